// What one call through the WASM facade (Module.Pulse .call) costs, on a
// workflow database the page keeps open: `pulse.config` (the context alone),
// `goal.last_check` (one small read) and `pulse.version` without a database.
// With --before DIR (a build/wasm folder of another tree, e.g. a worktree of
// the previous commit) both modules run in the same process, interleaved,
// and the ratio after ÷ before is printed per call.
//
//   node bench/facade_call.mjs [--before ../old/build/wasm] [--calls 5000] [--rounds 7]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: opt } = parseArgs({
  options: { before: { type: 'string' }, calls: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '7' } },
});
const CALLS = Number(opt.calls);
const ROUNDS = Number(opt.rounds);

async function load(dir) {
  const m = await import(pathToFileURL(join(dir, 'pulse.mjs')).href + `?${dir}`);
  return m.default({ wasmBinary: readFileSync(join(dir, 'pulse.wasm')) });
}

// A workflow database as the browser holds one: the schema and a stored
// workflow.json snapshot with a goal.
function openWorkflow(M) {
  const pp = M._malloc(4);
  M.ccall('sqlite3_open_v2', 'number', ['string', 'number', 'number', 'number'], [':memory:', pp, 6, 0]);
  const db = M.getValue(pp, 'i32');
  M._free(pp);
  const pulse = new M.Pulse({ db });
  pulse.call('pulse.version', {});
  const config = JSON.stringify({
    pulse: { enabled: true },
    goal: { primary_metric: { name: 'subscribers', route: 'growth_funnel', direction: 'increase', target: 1000, baseline: 200 } },
    schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true }],
  }).replace(/'/g, "''");
  const exec = (sql) => M.ccall('sqlite3_exec', 'number', ['number', 'string', 'number', 'number', 'number'], [db, sql, 0, 0, 0]);
  exec(`INSERT OR REPLACE INTO pulse_workflow_config(id, workflow, config_json, soul_md, updated_at) VALUES (1, 'bench', '${config}', '', '2026-10-07T00:00:00Z')`);
  return pulse;
}

function timeCalls(pulse, method, n) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) pulse.call(method, {});
  return Number(process.hrtime.bigint() - t0) / 1e3 / n;  // µs per call
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const builds = [['after', resolve(ROOT, 'build/wasm')]];
if (opt.before) builds.unshift(['before', resolve(opt.before)]);
const mods = [];
for (const [name, dir] of builds) {
  const M = await load(dir);
  const noDb = new M.Pulse(null);
  mods.push({ name, withDb: openWorkflow(M), noDb });
}
const cases = [['pulse.config', 'withDb'], ['goal.last_check', 'withDb'], ['pulse.version', 'noDb']];
const results = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const m of mods) {
    for (const [method, which] of cases) {
      timeCalls(m[which], method, 200);  // warm
      (results[`${m.name} ${method}`] ??= []).push(timeCalls(m[which], method, CALLS));
    }
  }
}
for (const [method] of cases) {
  const after = median(results[`after ${method}`]);
  let line = `${method.padEnd(16)} after ${after.toFixed(1)} µs/call`;
  if (opt.before) {
    const before = median(results[`before ${method}`]);
    line += `   before ${before.toFixed(1)} µs/call   after ÷ before ${(after / before).toFixed(2)}`;
  }
  console.log(line);
}
