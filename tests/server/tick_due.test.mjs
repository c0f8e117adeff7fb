// The tick's due-index, proven by counting database opens (/api/health's
// db_opens) on the real `pulse serve`: once every workflow was visited and
// found quiet, later ticks open none; a changed workflow is opened again; and
// the clock reaching the next day sends the tick into every workflow again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, startServer, request, waitFor, setNow } from './helpers.mjs';
import { makeManyWorkflows, manyConfig, manyName } from './many_workflows.mjs';

const COUNT = 30;

async function health(s) {
  return (await request(`${s.url}api/health`)).body;
}

// Waits for `n` more finished ticks; returns the health after them.
async function ticksPass(s, n) {
  const from = (await health(s)).ticks;
  return waitFor(async () => {
    const h = await health(s);
    return h.ticks >= from + n && !h.tick.running ? h : null;
  }, { what: `${n} more ticks`, timeoutMs: 60000 });
}

test('a quiet workspace costs the tick no database opens; a change or a new day costs only what it touches', async () => {
  const tmp = makeTempDir('pulse-tick-due-');
  const ws = join(tmp.dir, 'ws');
  makeManyWorkflows(ws, COUNT, { runs: 40 });
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');  // the day the checks were recorded: nothing is due
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile]);
  try {
    // The first ticks visit every workflow once and find nothing to do.
    let h = await ticksPass(s, 3);
    assert.equal(h.workflows, COUNT);
    // Quiet from here on: three more ticks pass every workflow over and open nothing.
    const before = h.db_opens;
    h = await ticksPass(s, 3);
    assert.deepEqual({ visited: h.tick.visited, skipped: h.tick.skipped }, { visited: 0, skipped: COUNT });
    assert.equal(h.db_opens, before, 'no database opened while nothing changed');

    // One workflow's workflow.json changes: that one is opened again (by the
    // tick, and by the outbox deliverer), the others are not.
    const cfg = manyConfig(3);
    cfg.goal.primary_metric.target += 7;
    writeFileSync(join(ws, 'Workflow', manyName(3), 'workflow.json'), JSON.stringify(cfg, null, 2));
    const afterEdit = await ticksPass(s, 3);
    const opened = afterEdit.db_opens - before;
    assert.ok(opened >= 1 && opened <= 4, `only the edited workflow was opened (${opened} opens)`);
    h = await ticksPass(s, 2);
    assert.equal(h.db_opens, afterEdit.db_opens, 'quiet again after the edited workflow was visited');

    // The next day: the daily goal check is due everywhere, so the tick
    // visits again and starts it (wf-00000 first).
    setNow(nowFile, '2026-10-08T12:00:00Z');
    const row = await waitFor(async () => {
      const log = (await request(`${s.url}api/workflows/${manyName(0)}/agent-log`)).body.rows;
      return log.find((r) => r.kind === 'goal_check' && r.started_at.startsWith('2026-10-08'));
    }, { what: 'the next day\'s goal check', timeoutMs: 60000 });
    assert.ok(row, 'the goal check of the new day started');
    assert.ok((await health(s)).db_opens > h.db_opens);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
