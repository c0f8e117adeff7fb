// A full disk under a running server (issue #32): agent-log events written by
// background agents (`pulse agent-log started`, ~18 KB each) until the volume
// is full, and writes through the server. The server says so in one line
// naming the workflow and the room a write needs, every refused write names
// them too, and the workflow takes writes again by itself once there is room
// (no restart). The volume is a small tmpfs mounted in the test's temp dir
// (the test runs as root, as CI does); a machine that cannot mount one says
// why, and CI fails.
import { STRICT } from '../strict.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, makeWorkspace, pulse, request, startServer, waitFor, SUBSTACK_CONFIG } from './helpers.mjs';

function mountSmallVolume(dir, size) {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return `cannot mount a ${size} tmpfs (root is needed): ${(r.stderr || '').trim()}`;
  return null;
}

// Writes until the volume refuses: the file holding the rest of the space.
function fill(path) {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(16 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if (e.code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
}

const agentLog = (ws, agent) => pulse(['agent-log', 'started', '--workspace', ws, '--workflow', 'substack',
  '--session', 'bg-1', '--agent', agent, '--name', 'x'.repeat(16000)]);

const FULL = /workflow substack: the disk holding \S+Workflow\/substack\/db\/db\.sqlite is full \(\d+ [KM]iB free; a write needs about \d+ [KM]iB\): nothing was written, and writes go through again by themselves once there is room/;

test('a full disk is one line naming the workflow and the room a write needs, and writes resume by themselves', { timeout: 120000 }, async (t) => {
  const tmp = makeTempDir('pulse-disk-full-');
  const vol = join(tmp.dir, 'vol');
  const why = mountSmallVolume(vol, '4m');
  if (why) {
    tmp.cleanup();
    if (STRICT) throw new Error(`strict mode (CI=true or PULSE_STRICT=1): ${why}`);
    t.skip(why);
    return;
  }
  let s;
  try {
    const ws = makeWorkspace(vol, { substack: SUBSTACK_CONFIG });
    assert.equal(agentLog(ws, 'a-0').status, 0);
    s = await startServer(ws, ['--no-tick']);
    const owner = (text) => request(`${s.url}api/workflows/substack/call/outbox.add`, { method: 'POST', token: s.ownerToken,
      body: { kind: 'pulse_reply', title: 'note', text } });
    assert.equal((await owner('before')).status, 200);

    const filler = join(vol, 'filler');
    fill(filler);
    // Background agents keep writing: each one is told, in one line.
    for (let i = 1; i <= 3; i++) {
      const r = agentLog(ws, `a-${i}`);
      assert.equal(r.status, 0, 'the agent log is best-effort: the agent goes on');
      assert.match(r.stderr, FULL, r.stderr);
    }
    // Writes through the server are refused with the same line; the
    // server's log says it once, however many fail.
    for (let i = 0; i < 5; i++) {
      const r = await owner('y'.repeat(20000));
      assert.equal(r.status, 500, r.text);
      assert.match(r.body.error, FULL);
    }
    const said = () => (s.stdout + s.stderr).split('\n').filter((l) => FULL.test(l) && /pulse: error:/.test(l));
    await waitFor(() => said().length >= 1, { what: 'the server to say the disk is full' });
    assert.equal(said().length, 1, `said once:\n${said().join('\n')}`);

    // Room again: the same server takes writes, without a restart, and says so.
    rmSync(filler);
    const back = await owner('after');
    assert.equal(back.status, 200, back.text);
    await waitFor(() => /workflow substack: writes go through again/.test(s.stdout + s.stderr), { what: 'the recovery line' });
    assert.equal(agentLog(ws, 'a-9').status, 0);
    const shown = pulse(['agent-log', 'show', '--workspace', ws, '--workflow', 'substack', '--json']);
    const agents = (Array.isArray(shown.json) ? shown.json : shown.json.rows).map((r) => r.agent_id);
    assert.ok(agents.includes('a-0') && agents.includes('a-9'), JSON.stringify(agents));
    const check = pulse(['check', '--workspace', ws, '--workflow', 'substack', '--json']);
    assert.equal(check.status === 0 || check.status === 1, true, check.stderr);
  } finally {
    if (s) await s.stop();
    spawnSync('umount', [vol]);
    tmp.cleanup();
  }
});
