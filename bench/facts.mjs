// Bench: what the goal check's context facts add to a goal check, on a year
// of history: 100k runs (after-run facts and their run.json snapshot, every
// 13th failed, every 97th with a login hint) and 1M cost-ledger events (the
// snapshot table, 10 per run, every 7th without a run id), generated inside
// SQLite with recursive CTEs. Times `goal.check` with and without facts in
// the WASM module (the call only; the browser's case, where the facts are
// computed from the database alone; interleaved) and `pulse check --json`
// natively (whole process), median of 21.
//
//   node bench/facts.mjs [runs] [events]      default 100000 1000000
//
// Target: facts add at most 20 ms to a goal check.
import { rmSync } from 'node:fs';
import { PULSE_BIN, loadPulseModule } from '../tests/node/helpers.mjs';
import { openDbInModule, closeDbInModule, callInModule } from '../tests/node/goal_db.mjs';
import { BENCH_NOW as NOW, benchWorkflow, median, ms, run } from './common.mjs';

const RUNS = Number(process.argv[2]) || 100000;
const EVENTS = Number(process.argv[3]) || 1000000;
const NOW_S = Date.parse(NOW) / 1000;
const YEAR = 365 * 86400;
const REPEAT = 21;

const WORKFLOW = {
  pulse: { enabled: true },
  goal: { primary_metric: { name: 'subscribers', route: 'growth_funnel', target: 1000, baseline: 0 } },
  schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true }],
};

const fillSql = `WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k + 1 < ${RUNS})
INSERT INTO goal_run_facts(run_id, schedule_id, trigger, started_at, finished_at, status, error, route,
  primary_route, completed, primary_reading, origin, recorded_at)
SELECT printf('r-%08d', k), 'daily', 'schedule:daily',
  strftime('%Y-%m-%dT%H:%M:%SZ', ${NOW_S} - ${YEAR} + k * ${Math.floor(YEAR / RUNS)}, 'unixepoch'),
  strftime('%Y-%m-%dT%H:%M:%SZ', ${NOW_S} - ${YEAR} + k * ${Math.floor(YEAR / RUNS)} + 60, 'unixepoch'),
  CASE WHEN k % 13 = 0 THEN 'failed' ELSE 'completed' END,
  CASE WHEN k % 97 = 0 THEN 'gmail: invalid_grant' WHEN k % 13 = 0 THEN 'step write: timeout' ELSE '' END,
  CASE k % 3 WHEN 0 THEN 'growth_funnel' WHEN 1 THEN 'publish_review' ELSE 'research' END,
  k % 3 = 0, k % 13 != 0, 0, 'finalize_run', '${NOW}'
FROM i;
INSERT INTO pulse_fact_runs(folder, run_id, started_at, finished_at, status, error, concerns_json, cost_usd, route)
SELECT 'iteration-' || rowid, run_id, started_at, finished_at, status, error,
  CASE WHEN rowid % 11 = 0 THEN '["CONCERNS: the draft is short"]' ELSE '[]' END, 0.8, route FROM goal_run_facts;
WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k + 1 < ${EVENTS})
INSERT INTO pulse_fact_costs(ledger_rowid, at, run_id, source, usd)
SELECT k + 1, strftime('%Y-%m-%dT%H:%M:%SZ', ${NOW_S} - ${YEAR} + k * ${Math.floor(YEAR / EVENTS)}, 'unixepoch'),
  CASE WHEN k % 7 = 0 THEN NULL ELSE printf('r-%08d', k * ${RUNS} / ${EVENTS}) END,
  'run', 0.05 + (k % 10) * 0.01 + CASE WHEN k % 5003 = 0 THEN 5 ELSE 0 END
FROM i;
WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k + 1 < 20000)
INSERT INTO pulse_fact_changelog(at, tool, reason, steps_json, who, session)
SELECT strftime('%Y-%m-%dT%H:%M:%SZ', ${NOW_S} - ${YEAR} + k * ${Math.floor(YEAR / 20000)}, 'unixepoch'),
  'update_step', 'change ' || k, '["s-' || (k % 9) || '"]', 'ana', 'b-1' FROM i;`;

function timed(fn) {
  const times = [];
  let out;
  for (let i = 0; i < REPEAT; ++i) {
    const s = process.hrtime.bigint();
    out = fn();
    times.push(ms(process.hrtime.bigint() - s));
  }
  return { median: median(times), min: Math.min(...times), out };
}

function timedPair(a, b) {
  a();
  b();
  const ta = [], tb = [];
  let outA, outB;
  for (let i = 0; i < REPEAT; ++i) {
    let s = process.hrtime.bigint();
    outA = a();
    ta.push(ms(process.hrtime.bigint() - s));
    s = process.hrtime.bigint();
    outB = b();
    tb.push(ms(process.hrtime.bigint() - s));
  }
  return [{ median: median(ta), min: Math.min(...ta), out: outA }, { median: median(tb), min: Math.min(...tb), out: outB }];
}

const { dir, dbPath, checkArgs: args, infoArgs } = benchWorkflow('pulse-bench-facts-', WORKFLOW, fillSql);
try {
  const native = timed(() => JSON.parse(run(PULSE_BIN, args)));
  const nativeInfo = timed(() => run(PULSE_BIN, infoArgs));
  const Module = await loadPulseModule();
  const db = openDbInModule(Module, dbPath);
  try {
    // Interleaved, after one warm-up of each: on a shared machine a burst
    // of load then falls on both sides alike.
    const [without, withFacts] = timedPair(() => callInModule(Module, db, 'goal.check', { facts: false }, NOW),
      () => callInModule(Module, db, 'goal.check', {}, NOW));
    const f = withFacts.out.facts;
    console.log(`history: ${RUNS} runs, ${EVENTS} ledger events over a year; facts since ${f.since}: ` +
      `${f.run_health.runs} runs, ${f.cost_spikes.length} cost spikes, ${f.login_hints.length} login hints, ` +
      `${f.plan_changes.length} plan changes`);
    console.log(`WASM goal.check without facts: ${without.median.toFixed(2)} ms (min ${without.min.toFixed(2)})`);
    console.log(`WASM goal.check with facts:    ${withFacts.median.toFixed(2)} ms (min ${withFacts.min.toFixed(2)})`);
    const added = withFacts.median - without.median;
    console.log(`facts add ${added.toFixed(2)} ms (ratio ${(withFacts.median / without.median).toFixed(2)}×); target: at most 20 ms — ${added <= 20 ? 'met' : 'NOT met'}`);
    console.log(`native pulse check --json (process, with facts and the snapshot): ${native.median.toFixed(2)} ms; pulse info (start-up only): ${nativeInfo.median.toFixed(2)} ms`);
  } finally {
    closeDbInModule(Module, db);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
