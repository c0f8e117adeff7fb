// The sandbox flags on every command that runs a runner (pulse serve, ask,
// pre-run, talk, pass: one declaration), and a runner the sandbox would
// stop named before it starts: an interpreter installed outside the system
// (pyenv, nvm, conda) gives one line naming the path and the flag that
// allows it, not the interpreter's own "No module named 'encodings'".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, buildSubstack, pulse } from './helpers.mjs';

const PYTHON = '/usr/bin/python3';

test('every command that takes --runner takes the sandbox flags, checked before anything runs', () => {
  const tmp = makeTempDir('pulse-sandbox-flags-');
  try {
    const ws = join(tmp.dir, 'ws');
    buildSubstack(ws);
    const common = ['--workspace', ws, '--workflow', 'substack'];
    const commands = {
      ask: ['ask', ...common, '--caller', 'step', '--session', 's-1', '--message', 'hi', '--runner', 'true'],
      'pre-run': ['pre-run', ...common, '--runner', 'true'],
      talk: ['talk', ...common, '--message', 'hi', '--runner', 'true'],
      pass: ['pass', ...common, '--runner', 'true'],
      serve: ['serve', '--workspace', ws, '--port', '0', '--runner', 'true'],
    };
    for (const [name, args] of Object.entries(commands)) {
      const bad = pulse([...args, '--runner-user', 'no-such-user-pulse', '--sandbox-allow-read', tmp.dir,
        '--sandbox-allow-write', tmp.dir]);
      assert.equal(bad.status, 2, `${name}: ${bad.stderr}`);
      assert.match(bad.stderr, /^pulse: --runner-user: no user named "no-such-user-pulse" on this machine\n$/, name);
      const tracking = pulse([...args, '--runner-tracking', 'sometimes']);
      assert.equal(tracking.status, 2, `${name}: ${tracking.stderr}`);
      assert.match(tracking.stderr, /--runner-tracking/, name);
    }
    // Nothing ran: no turn was recorded.
    assert.deepEqual(pulse(['agent-log', 'show', ...common, '--json']).json.rows, []);
  } finally {
    tmp.cleanup();
  }
});

test('pulse ask runs a runner script outside the workflow folder once --sandbox-allow-read grants it', () => {
  const tmp = makeTempDir('pulse-sandbox-ask-');
  try {
    const ws = join(tmp.dir, 'ws');
    buildSubstack(ws);
    const script = join(tmp.dir, 'answer.mjs');
    writeFileSync(script, "import { readFileSync } from 'node:fs';\nreadFileSync(0);\nconsole.log('Measured by growth_funnel.');\n");
    const args = ['ask', '--workspace', ws, '--workflow', 'substack', '--caller', 'step', '--session', 's-1',
      '--message', 'Who measures subscribers?', '--runner', `node ${script}`, '--json'];
    // Without the grant the script is named, with the flag that allows it.
    const denied = pulse(args, { timeout: 60000 });
    assert.equal(denied.status, 1, denied.stderr);
    assert.equal(denied.json.status, 'failed', denied.stdout);
    assert.equal(denied.json.error, `cannot start the runner: the runner sandbox does not let the runner read ${script} ` +
      `(its script); allow it with --sandbox-allow-read ${script}`);
    const r = pulse([...args, '--sandbox-allow-read', script], { timeout: 60000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.status, 'answered', r.stdout);
    assert.match(r.json.answer, /Measured by growth_funnel/);
  } finally {
    tmp.cleanup();
  }
});

// A pyenv-like installation: <prefix>/bin/python3 (a copy of the system's)
// and <prefix>/lib/python3.X, found first on PATH.
test('a runner whose interpreter lives outside the system folders gets one line naming the path and the flag', () => {
  const tmp = makeTempDir('pulse-sandbox-pyenv-');
  try {
    const ws = join(tmp.dir, 'ws');
    buildSubstack(ws);
    const prefix = join(tmp.dir, 'pyenv', 'versions', '3.x');
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    mkdirSync(join(prefix, 'lib'), { recursive: true });
    copyFileSync(PYTHON, join(prefix, 'bin', 'python3'));
    const stdlib = readdirSync('/usr/lib').find((d) => /^python3\.\d+$/.test(d));
    symlinkSync(join('/usr/lib', stdlib), join(prefix, 'lib', stdlib));
    const script = join(tmp.dir, 'agent.py');
    writeFileSync(script, 'import sys\nsys.stdin.read()\nprint("Noted.")\n');
    const env = { ...process.env, PATH: `${join(prefix, 'bin')}:/usr/bin:/bin` };
    const talk = (...extra) => pulse(['talk', '--workspace', ws, '--workflow', 'substack', '--message', 'hi',
      '--runner', `python3 ${script}`, '--sandbox-allow-read', script, '--json', ...extra], { env, timeout: 60000 });
    const error = (r) => r.json.turns.map((t) => t.error).join('\n');

    let r = talk();
    assert.equal(r.status, 1, r.stderr);
    assert.equal(error(r), `cannot start the runner: the runner sandbox does not let the runner read ${join(prefix, 'bin', 'python3')} ` +
      `(the runner's program); allow it with --sandbox-allow-read ${prefix}`);
    // Its bin/ alone is not enough: the library folder is named next.
    r = talk('--sandbox-allow-read', join(prefix, 'bin'));
    assert.equal(r.status, 1, r.stderr);
    assert.equal(error(r), `cannot start the runner: the runner sandbox does not let the runner read ${join(prefix, 'lib')} ` +
      `(the library folder of ${join(prefix, 'bin', 'python3')}); allow it with --sandbox-allow-read ${prefix}`);
    // The flag it names is the one that works.
    r = talk('--sandbox-allow-read', prefix);
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.equal(r.json.turns[0].reply.trim(), 'Noted.');
  } finally {
    tmp.cleanup();
  }
});
