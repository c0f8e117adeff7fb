// The tick's due-index, proven by counting database opens (/api/health's
// db_opens) on the real `pulse serve`: once every workflow was visited and
// found quiet, later ticks open none; a changed workflow is opened again; and
// the clock reaching the next day sends the tick into every workflow again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, startServer, request, waitFor, setNow, runnerWritableDir } from './helpers.mjs';
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

// The index is kept in <workspace>/.pulse/ over a restart: a second server
// on the unchanged workspace passes every workflow over from its first tick,
// opening no database (db_opens stays 0: the start opens none either). A
// damaged index file is ignored with one warning line and rebuilt by visiting.
test('the due-index survives a restart; a damaged index file is ignored with one warning and rebuilt', async () => {
  const tmp = makeTempDir('pulse-tick-due-restart-');
  const ws = join(tmp.dir, 'ws');
  makeManyWorkflows(ws, COUNT, { runs: 40 });
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const args = ['--tick-seconds', '0.2', '--now-file', nowFile];
  const indexFile = join(ws, '.pulse', 'tick-due.json');
  let s = await startServer(ws, args);
  try {
    // Quiet everywhere, for the tick and the outbox deliverer: three passes
    // that visit none and open no database.
    // The outbox deliverer runs at a lowered priority: on a loaded machine a
    // workflow the tick's visit could not settle waits for it longer than
    // three passes, so quiet also means no open for 3 s (its whole look
    // comes every 2 s at least while it has nothing else to do).
    await waitFor(async () => {
      const from = await ticksPass(s, 1);
      const h = await ticksPass(s, 3);
      if (!(h.tick.visited === 0 && h.tick.skipped === COUNT && h.db_opens === from.db_opens)) return null;
      await new Promise((r) => setTimeout(r, 3000));
      const later = await ticksPass(s, 1);
      return later.db_opens === h.db_opens ? later : null;
    }, { what: 'passes that open no database', timeoutMs: 90000, intervalMs: 10 });
  } finally {
    await s.stop();
  }
  assert.ok(existsSync(indexFile), 'the index was written to .pulse/');
  assert.equal(statSync(indexFile).mode & 0o777, 0o600);

  s = await startServer(ws, args);
  try {
    const h = await ticksPass(s, 3);
    assert.deepEqual({ visited: h.tick.visited, skipped: h.tick.skipped }, { visited: 0, skipped: COUNT });
    assert.equal(h.db_opens, 0, 'no database opened by the start or by three ticks after the restart');
  } finally {
    await s.stop();
  }

  // Cut short (as a crash while written would leave it): ignored, one warning, every workflow visited again.
  const text = readFileSync(indexFile, 'utf8');
  writeFileSync(indexFile, text.slice(0, Math.floor(text.length / 2)));
  s = await startServer(ws, args);
  try {
    const h = await ticksPass(s, 1);
    assert.equal(h.workflows, COUNT);
    assert.ok(h.db_opens >= COUNT, `every workflow was opened again (${h.db_opens} opens)`);
    const warnings = s.stdout.split('\n').filter((l) => l.includes('tick-due.json'));
    assert.equal(warnings.length, 1, s.stdout);
    assert.match(warnings[0], /tick-due\.json: ignored \(not JSON \(truncated or damaged\)\); the index is rebuilt by visiting/);
    // Rebuilt: quiet again, and written back whole.
    await waitFor(async () => {
      const q = await health(s);
      return q.tick.visited === 0 && q.tick.skipped === COUNT ? q : null;
    }, { what: 'quiet again after the rebuild', timeoutMs: 60000 });
  } finally {
    await s.stop();
  }
  assert.equal(JSON.parse(readFileSync(indexFile, 'utf8')).entries.length, COUNT);

  // An entry that claims more than a day of quiet is not trusted: the file is ignored.
  const doc = JSON.parse(readFileSync(indexFile, 'utf8'));
  doc.entries[0][2] = doc.entries[0][1] + 2 * 86400;
  writeFileSync(indexFile, JSON.stringify(doc));
  s = await startServer(ws, args);
  try {
    const h = await ticksPass(s, 1);
    assert.ok(h.db_opens >= COUNT, `every workflow was opened again (${h.db_opens} opens)`);
    assert.match(s.stdout, /tick-due\.json: ignored \(entries\[0\]: until is not after visited_at within 86400 s\)/);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

// Several visitors (--tick-threads) share a pass: the goal checks' cap is
// counted and a check started under one lock, so no more checks run at once
// than --max-checks even with more turn slots free; and every workflow due
// gets its day's check exactly once (none visited twice, none skipped). The
// runner counts the checks running when it starts (its own slot file among
// the others') and holds its slot a while.
test('with four tick visitors the goal checks\' cap holds and every due check starts once', async () => {
  const tmp = makeTempDir('pulse-tick-visitors-');
  const ws = join(tmp.dir, 'ws');
  makeManyWorkflows(ws, COUNT, { runs: 40 });
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-08T12:00:00Z');  // the day after the recorded checks: every check is due
  const box = runnerWritableDir(join(tmp.dir, 'box'));
  const slots = runnerWritableDir(join(box, 'slots'));
  const seen = join(box, 'seen');
  const runner = `touch ${slots}/$$; ls ${slots} | wc -l >> ${seen}; sleep 0.6; rm -f ${slots}/$$; echo checked`;
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile, '--tick-threads', '4',
    '--max-turns', '4', '--max-checks', '2', '--runner', runner, '--sandbox-allow-write', box]);
  try {
    const rows = await waitFor(async () => {
      const all = [];
      for (let i = 0; i < COUNT; i++) {
        const log = (await request(`${s.url}api/workflows/${manyName(i)}/agent-log`)).body.rows;
        const today = log.filter((r) => r.kind === 'goal_check' && r.started_at.startsWith('2026-10-08'));
        if (today.length === 0 || today.some((r) => r.status === 'running')) return null;
        all.push(today);
      }
      return all;
    }, { what: 'every workflow\'s goal check of the day, finished', timeoutMs: 120000 });
    // A few more passes: nothing starts a second check the same day.
    await ticksPass(s, 3);
    for (let i = 0; i < COUNT; i++) {
      const log = (await request(`${s.url}api/workflows/${manyName(i)}/agent-log`)).body.rows;
      const today = log.filter((r) => r.kind === 'goal_check' && r.started_at.startsWith('2026-10-08'));
      assert.equal(today.length, 1, `${manyName(i)}: one goal check today, got ${today.length}`);
      assert.equal(today[0].status, 'completed', `${manyName(i)}: ${JSON.stringify(today[0])}`);
    }
    assert.equal(rows.length, COUNT);
    const counts = readFileSync(seen, 'utf8').trim().split('\n').map(Number);
    assert.equal(counts.length, COUNT, 'the runner ran once per workflow');
    assert.ok(Math.max(...counts) <= 2, `at most --max-checks checks at once, saw ${Math.max(...counts)}`);
    assert.equal(Math.max(...counts), 2, 'two checks did run at once (the cap was reached, not just respected by running one)');
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
