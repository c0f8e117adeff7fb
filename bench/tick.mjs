// Bench for the scheduler tick over many workflows: one real `pulse serve`
// on a workspace of N realistic workflows (tests/server/many_workflows.mjs:
// a goal, 1,000 runs, readings, a recorded check and three decisions each)
// and three tick passes, while clients poll /api/health:
//   1. the first pass after start: every database is opened (cold);
//   2. the next pass: a workflow another writer (the outbox deliverer) wrote
//      while the tick visited it is visited again;
//   3. the pass after, nothing changed: the due-index passes over them all;
//   4. after workflow.json of 1% of the workflows was rewritten: only those.
// Then the server is stopped and started again on the unchanged workspace
// (the due-index read back from .pulse/): its start time and two passes.
// Last, the index files are removed and the server started once more: a cold
// pass again, but on workflows whose schedule-runs.json was imported before
// (as on any day after the first, when every stamp moved or the index was
// lost), so what it measures is the visit itself. That cold pass is run
// three times, under three loads on /api/health: CLIENTS clients back to back
// (a load generator on the same 2 cores, taking what CPU it can), CLIENTS
// clients at one request every --paced ms each (a probe: the latency it sees
// is the HTTP side's while the tick runs), and none (the tick alone).
// Then the passes on a workspace whose databases know none of the runs in
// schedule-runs.json (as when Pulse meets a workspace: every run is new),
// --import-batch runs a visit and --import-seconds a pass, until none is
// left importing, under the same three loads, each on a newly made workspace.
// For each pass: its time (the server's own tick.seconds), workflows visited
// and passed over, database opens (db_opens), and /api/health's p50/p99
// while it ran; for the whole run: peak RSS (VmHWM) and the most open files
// (/proc/PID/fd), sampled every 20 ms.
//
//   node bench/tick.mjs [--workflows 1000] [--runs 1000] [--clients 4] [--paced 50] [--gap 3] [--tick-threads 2]
//                       [--import-seconds 24]
//   PULSE_BIN=/path/to/other/pulse node bench/tick.mjs ...   (compare a binary)
import { readdirSync, readFileSync, writeFileSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, startServer, request, setNow, PULSE_BIN } from '../tests/server/helpers.mjs';
import { makeManyWorkflows, manyConfig, manyName, templateDbBytes } from '../tests/server/many_workflows.mjs';
import { numberArg, median } from './common.mjs';

const N = numberArg('--workflows', 1000);
const RUNS = numberArg('--runs', 1000);
const CLIENTS = numberArg('--clients', 4);
const GAP = numberArg('--gap', 3);
const PACED_MS = numberArg('--paced', 50);
const IMPORT_SECONDS = numberArg('--import-seconds', 24);
// Passed on only when given (a binary from before the flag runs too).
const TICK_THREADS = process.argv.includes('--tick-threads') ? numberArg('--tick-threads', 2) : null;

const pct = (xs, p) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))];
};
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '-');

function procStatus(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number((text.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm')) || [])[1] || 0);
    return { rss: kb('VmRSS'), hwm: kb('VmHWM'), fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch { return null; }
}

const tmp = makeTempDir('pulse-bench-tick-');
const ws = join(tmp.dir, 'ws');
const nowFile = join(tmp.dir, 'now');
let server;

const touched = () => Math.max(1, Math.floor(N / 100));
function touchSome() {
  for (let i = 0; i < touched(); i++) {
    const cfg = manyConfig(i);
    cfg.goal.primary_metric.target += 1;
    writeFileSync(join(ws, 'Workflow', manyName(i * Math.floor(N / touched())), 'workflow.json'), JSON.stringify(cfg, null, 2));
  }
}

// Starts `pulse serve` on the workspace, waits for the passes `plan` names
// ([tick number, label, what to do before it]) while CLIENTS poll
// /api/health, and stops it. Returns its start time, peak RSS and open
// files, and per pass its stats, db_opens and the health latencies.
// `load`: how many health clients, and the ms between one client's requests
// (0: back to back).
async function serveAndMeasure(prefix, plan, load = { clients: CLIENTS, every: 0 }, { extra = [], until = null } = {}) {
  const t0 = performance.now();
  server = await startServer(ws, ['--tick-seconds', String(GAP), '--now-file', nowFile, ...extra,
    ...(TICK_THREADS ? ['--tick-threads', String(TICK_THREADS)] : [])], { startTimeoutMs: 3600 * 1000 });
  const startSeconds = (performance.now() - t0) / 1000;
  const pid = server.proc.pid;
  let peak = { hwm: 0, fds: 0 };
  const sampler = setInterval(() => {
    const st = procStatus(pid);
    if (st) peak = { hwm: Math.max(peak.hwm, st.hwm), fds: Math.max(peak.fds, st.fds) };
  }, 20);
  const during = new Map();  // pass number -> [ms]
  let stop = false;
  const client = async () => {
    while (!stop) {
      const a = performance.now();
      const r = await request(`${server.url}api/health`);
      const ms = performance.now() - a;
      if (r.body.tick.running) {
        const pass = r.body.ticks + 1;
        if (!during.has(pass)) during.set(pass, []);
        during.get(pass).push(ms);
      }
      if (load.every > 0) await new Promise((res) => setTimeout(res, Math.max(0, load.every - ms)));
    }
  };
  const clients = Array.from({ length: load.clients }, client);
  const waitTicks = async (n) => {
    for (;;) {
      const h = (await request(`${server.url}api/health`)).body;
      if (h.ticks >= n && !h.tick.running) return h;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const rows = [];
  for (const [n, what, before] of plan()) {
    if (before) before();
    const h = await waitTicks(n);
    rows.push({ what: prefix + what, stats: h.tick, opens: h.db_opens, ms: during.get(n) || [] });
    if (until && until(h)) break;
  }
  stop = true;
  await Promise.all(clients);
  clearInterval(sampler);
  await server.stop();
  server = null;
  return { startSeconds, peak, rows };
}

try {
  console.log(`load average at the start: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  const t0 = performance.now();
  makeManyWorkflows(ws, N, { runs: RUNS });
  const made = (performance.now() - t0) / 1000;
  console.log(`made ${fmt(N)} workflows (${fmt(RUNS)} runs each, db ${fmt(templateDbBytes(ws) / 1024)} KiB) in ${fmt(made, 1)} s`);
  setNow(nowFile, '2026-10-07T12:00:00Z');  // the same day as the recorded checks: nothing is due

  const rows = [];
  const run = await serveAndMeasure('', (waitTicks) => [
    [1, 'first pass after start (cold)'],
    [2, 'second pass (a workflow written during its first visit is visited again)'],
    [3, 'third pass, nothing changed'],
    [4, `after ${touched()} workflow.json edits`, () => touchSome()],
  ]);
  rows.push(...run.rows);
  // The same workspace, unchanged, after a restart: the due-index is read
  // back from .pulse/ and the start opens no database.
  const again = await serveAndMeasure('restart: ', () => [
    [1, 'first pass after the restart'],
    [2, 'second pass after the restart'],
  ]);
  rows.push(...again.rows);
  // The index lost: every workflow opened again, its runs imported before.
  const removeIndex = () => {
    for (const f of ['tick-due.json', 'outbox-due.json']) rmSync(join(ws, '.pulse', f), { force: true });
  };
  removeIndex();
  const lost = await serveAndMeasure('index removed: ', () => [
    [1, 'first pass (cold, runs imported before)'],
    [2, 'second pass'],
  ]);
  rows.push(...lost.rows);
  removeIndex();
  const paced = await serveAndMeasure(`index removed, ${CLIENTS} clients paced at ${PACED_MS} ms: `, () => [
    [1, 'first pass (cold)'],
  ], { clients: CLIENTS, every: PACED_MS });
  rows.push(...paced.rows);
  removeIndex();
  const alone = await serveAndMeasure('index removed, no health clients: ', () => [
    [1, 'first pass (cold)'],
  ], { clients: 0, every: 0 });
  rows.push(...alone.rows);
  // A workspace Pulse has never ticked: the databases know none of the
  // runs in schedule-runs.json, so the first pass imports them all (RUNS
  // inserts a workflow), under the same three loads, each on a new copy.
  const fresh = [];
  for (const [label, load] of [
    [`${CLIENTS} clients back to back`, { clients: CLIENTS, every: 0 }],
    [`${CLIENTS} clients paced at ${PACED_MS} ms`, { clients: CLIENTS, every: PACED_MS }],
    ['no health clients', { clients: 0, every: 0 }],
  ]) {
    rmSync(ws, { recursive: true, force: true });
    makeManyWorkflows(ws, N, { runs: RUNS, imported: false });
    // At most --import-batch (250) runs a visit, and a pass imports for
    // --import-seconds: 24 here, what 40% of a 60-s tick gives (the bench's
    // passes come GAP s apart). Passes until none is left importing.
    const r = await serveAndMeasure(`runs never imported, ${label}: `, () => Array.from({ length: 100 }, (_, i) => (
      [i + 1, `pass ${i + 1}`])), load, { extra: ['--import-seconds', String(IMPORT_SECONDS)], until: (h) => h.tick.importing === 0 });
    rows.push(...r.rows);
    fresh.push([`runs never imported, ${label}`, r]);
  }

  console.log(`binary: ${PULSE_BIN}; ${CLIENTS} health clients (back to back unless the row says); ${GAP} s between passes; --tick-threads ${TICK_THREADS ?? 'default'}`);
  console.log(`server start (until it serves): ${fmt(run.startSeconds, 1)} s; after the restart ${fmt(again.startSeconds, 1)} s`);
  console.log('| pass | seconds | visited | passed over | still importing | db opens (server total) | health answers during | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.what} | ${fmt(r.stats.seconds, 2)} | ${fmt(r.stats.visited)} | ${fmt(r.stats.skipped)} | ${fmt(r.stats.importing ?? NaN)} |` +
      ` ${fmt(r.opens)} | ${fmt(r.ms.length)} | ${fmt(median(r.ms) ?? NaN, 1)} | ${fmt(pct(r.ms, 99), 1)} |`);
  }
  for (const [label, r] of [['first server', run], ['after the restart', again], ['index removed', lost],
    ['index removed, paced', paced], ['index removed, alone', alone], ...fresh]) {
    console.log(`${label}: peak RSS ${fmt(r.peak.hwm / 1024, 1)} MiB, most open files ${fmt(r.peak.fds)} (${fmt(N)} workflows)`);
  }
  console.log(`load average at the end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
} finally {
  if (server) await server.stop();
  tmp.cleanup();
}
