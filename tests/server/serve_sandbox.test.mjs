// The runner sandbox against the real `pulse serve`: a runner that tries to
// write soul.md (shell redirect, python), read .pulse/ and write the
// database is stopped by the kernel, and still does a normal turn (its work
// folder, its temp dir, its session's MCP tools). Its environment carries
// its own session's token and nothing of the owner's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { request, startServer, makeTempDir, buildSubstack, waitFor } from './helpers.mjs';

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const SQLITE = existsSync('/usr/bin/sqlite3') ? '/usr/bin/sqlite3' : '';

// Each attempt prints NAME=ok or NAME=denied; the last step is a real MCP
// call with the session token.
const RUNNER = (extraOut) => `#!/bin/sh
try() { name=$1; shift; if "$@" >/dev/null 2>&1; then echo "$name=ok"; else echo "$name=denied"; fi; }
cat >/dev/null
try shell_soul sh -c 'echo x>soul.md'
try python_soul ${PYTHON} -c "open('soul.md','w').write('x')"
try cat_pulse sh -c 'cat ../../.pulse/owner-token* ../../.pulse/*'
try ls_pulse ls ../../.pulse
try python_db ${PYTHON} -c "import sqlite3; c=sqlite3.connect('db/db.sqlite'); c.execute('create table evil(x)'); c.commit()"
${SQLITE ? `try sqlite_db ${SQLITE} db/db.sqlite 'create table evil2(x)'` : 'echo sqlite_db=denied'}
try memory sh -c 'echo x >> memory/goal.md'
try read_soul cat soul.md
try work sh -c 'echo note > pulse/work/note.txt'
try tmp sh -c 'echo t > "$TMPDIR/t" && cat "$TMPDIR/t"'
try extra sh -c 'echo e > ${extraOut}/e.txt'
env > pulse/work/env.txt
/usr/bin/node -e '
fetch(process.env.MCP_API_URL, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer " + process.env.MCP_API_TOKEN },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_pulse_state", arguments: { view: "goal_status" } } }) })
  .then((r) => r.json()).then((j) => console.log("mcp=" + (j.result && !j.result.isError ? "ok" : "denied")), () => console.log("mcp=denied"));'
`;

test('a runner under the sandbox cannot touch soul.md, .pulse/ or the database, and still works', async () => {
  const tmp = makeTempDir('pulse-sandbox-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const wf = join(ws, 'Workflow', 'substack');
  writeFileSync(join(wf, 'soul.md'), '# Grow to 1000 subscribers\n');
  mkdirSync(join(wf, 'memory'), { recursive: true });
  writeFileSync(join(wf, 'memory', 'goal.md'), '# Goal memory\n');
  const extra = join(tmp.dir, 'extra-out');
  mkdirSync(extra);
  const script = join(tmp.dir, 'runner.sh');
  writeFileSync(script, RUNNER(extra));
  const s = await startServer(ws, ['--no-tick', '--runner', `sh ${script}`, '--runner-timeout', '60',
    '--sandbox-allow-read', script, '--sandbox-allow-write', extra],
  // Whatever the server's own environment holds of Pulse's is not the runner's.
  { env: { PULSE_OWNER_TOKEN: 'owner-secret-in-env', MCP_API_TOKEN: 'outer-token' } });
  try {
    const health = (await request(`${s.url}api/health`)).body;
    if (!/^landlock abi \d+$/.test(health.sandbox)) {
      // A kernel without Landlock: the server says so and goes on.
      assert.match(health.sandbox, /^unavailable: /);
      return;
    }
    const turn = (await request(`${s.url}api/workflows/substack/messages`, { method: 'POST', token: s.ownerToken, body: { text: 'hi' } })).body.turn;
    const row = await waitFor(async () => {
      const rows = (await request(`${s.url}api/workflows/substack/agent-log?run_id=${turn.pulse_run_id}`)).body.rows;
      return rows.length === 1 && rows[0].status !== 'running' ? rows[0] : null;
    }, { what: 'the runner turn', timeoutMs: 60000 });
    assert.equal(row.status, 'completed', JSON.stringify(row));
    const seen = Object.fromEntries(row.result.trim().split('\n').map((l) => l.split('=')));
    assert.deepEqual(seen, {
      shell_soul: 'denied', python_soul: 'denied', cat_pulse: 'denied', ls_pulse: 'denied', python_db: 'denied',
      sqlite_db: 'denied', memory: 'denied', read_soul: 'ok', work: 'ok', tmp: 'ok', extra: 'ok', mcp: 'ok',
    }, row.result);
    assert.equal(readFileSync(join(wf, 'soul.md'), 'utf8'), '# Grow to 1000 subscribers\n');
    assert.equal(readFileSync(join(wf, 'memory', 'goal.md'), 'utf8'), '# Goal memory\n');
    assert.equal(readFileSync(join(wf, 'pulse', 'work', 'note.txt'), 'utf8'), 'note\n');
    if (SQLITE) assert.doesNotMatch(spawnSync(SQLITE, [join(wf, 'db', 'db.sqlite'), '.tables'], { encoding: 'utf8' }).stdout, /evil/);
    // Its environment: its own session's endpoint and token, nothing of the owner's.
    const env = readFileSync(join(wf, 'pulse', 'work', 'env.txt'), 'utf8');
    assert.ok(!env.includes(s.ownerToken), 'the owner token reached a runner');
    assert.doesNotMatch(env, /owner-secret-in-env|outer-token/);
    assert.match(env, new RegExp(`^PULSE_SESSION=${turn.session}$`, 'm'));
    assert.match(env, /^MCP_API_TOKEN=\S{16,}$/m);
    assert.match(env, /^TMPDIR=\S*pulse-runner-/m);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
