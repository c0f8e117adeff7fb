// A workspace Pulse meets for the first time: schedule-runs.json holds runs
// its database has never seen. One tick visit imports at most --import-batch
// of them, the newest first, so one pass never holds every workflow's whole
// history; the workflow is visited again on the next pass, and its goal check
// waits until the history is in. Proven on the real `pulse serve`: the runs
// the API counts after each pass, /api/health's tick.importing, and the agent
// log (no goal check before the last batch).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { makeTempDir, startServer, request, waitFor, setNow } from './helpers.mjs';
import { makeManyWorkflows, manyName, MANY_MADE_AT } from './many_workflows.mjs';

const RUNS = 600;
const BATCH = 250;
const WF = manyName(0);

async function health(s) {
  return (await request(`${s.url}api/health`)).body;
}

// /api/health once pass `pass` has ended (passes are 1 s apart here).
async function afterPass(s, pass) {
  await waitFor(async () => {
    const h = await health(s);
    return h.ticks >= pass && !h.tick.running ? h : null;
  }, { what: `pass ${pass}`, timeoutMs: 60000, intervalMs: 20 });
  return health(s);
}

// The runs the database knows (finished at or after `since`, when given).
async function runsKnown(s, since = '', wf = WF) {
  const q = since ? `?since=${encodeURIComponent(since)}` : '';
  const routes = (await request(`${s.url}api/workflows/${wf}/runs-by-route${q}`)).body.routes;
  return routes.reduce((n, r) => n + r.runs, 0);
}

// many_workflows.mjs's run k of RUNS starts (RUNS - 1 - k) * 3 h before two
// days before MANY_MADE_AT and finishes 20 minutes later.
const finishedAt = (k) => new Date(Date.parse(MANY_MADE_AT) - 2 * 86400e3 - (RUNS - 1 - k) * 3 * 3600e3 + 20 * 60e3)
  .toISOString().replace(/\.\d{3}Z$/, 'Z');

async function goalChecks(s) {
  const rows = (await request(`${s.url}api/workflows/${WF}/agent-log`)).body.rows;
  return rows.filter((r) => r.kind === 'goal_check' && r.started_at.startsWith('2026-10-08'));
}

test('a first import comes in --import-batch runs a pass, the newest first; the goal check waits for the last batch', async () => {
  const tmp = makeTempDir('pulse-tick-import-batch-');
  const ws = join(tmp.dir, 'ws');
  makeManyWorkflows(ws, 1, { runs: RUNS, imported: false });
  const nowFile = join(tmp.dir, 'now');
  // The next day: the daily goal check is due from the first pass on.
  setNow(nowFile, '2026-10-08T12:00:00Z');
  const s = await startServer(ws, ['--tick-seconds', '1', '--now-file', nowFile, '--import-batch', String(BATCH)]);
  try {
    // Between passes (1 s apart): what each pass left behind.
    const seen = [];
    for (let pass = 1; pass <= 3; pass++) {
      const h = await afterPass(s, pass);
      seen.push({
        pass, ticks: h.ticks, importing: h.tick.importing, runs: await runsKnown(s),
        // The newest first: every known run is one of the newest pass * BATCH.
        newest: await runsKnown(s, finishedAt(Math.max(0, RUNS - pass * BATCH))),
        checks: (await goalChecks(s)).length,
      });
    }
    const expected = [
      { pass: 1, importing: 1, runs: BATCH, newest: BATCH, checks: 0 },
      { pass: 2, importing: 1, runs: 2 * BATCH, newest: 2 * BATCH, checks: 0 },
      { pass: 3, importing: 0, runs: RUNS, newest: RUNS },
    ];
    for (const [i, want] of expected.entries()) {
      const got = seen[i];
      assert.equal(got.ticks, want.pass, `read between passes: ${JSON.stringify(seen)}`);
      for (const k of Object.keys(want)) assert.equal(got[k], want[k], `${k} after pass ${want.pass}: ${JSON.stringify(seen)}`);
    }
    // With everything in, the check starts.
    const check = await waitFor(async () => (await goalChecks(s))[0], { what: 'the goal check after the import', timeoutMs: 60000 });
    assert.ok(check);
    // Later passes have nothing to import and leave the workflow quiet.
    const h = await waitFor(async () => {
      const x = await health(s);
      return x.ticks >= 6 && !x.tick.running ? x : null;
    }, { what: 'three more passes', timeoutMs: 60000 });
    assert.equal(h.tick.importing, 0);
    assert.equal(await runsKnown(s), RUNS);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

// The pass's import time: with --import-seconds 0 a pass takes in runs only
// in its first visit that has any (one visitor: exactly one batch a pass), so
// three workflows' histories come in one after the other, every pass moving
// on, until none is left.
test('a pass stops importing when its import time is spent, and every pass still moves on', async () => {
  const tmp = makeTempDir('pulse-tick-import-seconds-');
  const ws = join(tmp.dir, 'ws');
  const names = makeManyWorkflows(ws, 3, { runs: RUNS, imported: false });
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const s = await startServer(ws, ['--tick-seconds', '1', '--now-file', nowFile, '--import-batch', String(BATCH),
    '--import-seconds', '0', '--tick-threads', '1']);
  try {
    const seen = [];
    for (let pass = 1; pass <= 9; pass++) {
      const h = await afterPass(s, pass);
      const runs = [];
      for (const wf of names) runs.push(await runsKnown(s, '', wf));
      seen.push({ ticks: h.ticks, importing: h.tick.importing, runs });
    }
    // 600 runs in batches of 250: three passes a workflow, one workflow at a time.
    assert.deepEqual(seen, [
      { ticks: 1, importing: 3, runs: [250, 0, 0] },
      { ticks: 2, importing: 3, runs: [500, 0, 0] },
      { ticks: 3, importing: 2, runs: [600, 0, 0] },
      { ticks: 4, importing: 2, runs: [600, 250, 0] },
      { ticks: 5, importing: 2, runs: [600, 500, 0] },
      { ticks: 6, importing: 1, runs: [600, 600, 0] },
      { ticks: 7, importing: 1, runs: [600, 600, 250] },
      { ticks: 8, importing: 1, runs: [600, 600, 500] },
      { ticks: 9, importing: 0, runs: [600, 600, 600] },
    ]);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
