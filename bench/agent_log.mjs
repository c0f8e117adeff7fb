// Bench for the background-agent log: events per second and µs per
// event for start+completion pairs, natively and in WASM, each against a
// plain prepared-statement upsert loop on the same SQLite in the same run.
//
//   node bench/agent_log.mjs [--pairs N]     (after scripts/build.sh;
//   PULSE_WASM_DIR=DIR measures the module in DIR instead, for an A/B)
//
// Native: build/native/agent_log_bench, the BackgroundAgentLog recorder and
// the plain loop interleaved in chunks, each on its own real WAL database
// file, once under $TMPDIR (disk: dominated by the WAL checkpoints' fsyncs)
// and once under /dev/shm (tmpfs: the CPU cost alone). WASM: the facade
// (one call per event, as the browser would make it: the typed recorders
// Pulse.agentStarted/agentCompleted, and the named JSON methods; and
// agent_log.record with many events per call) and a plain loop through the
// exported sqlite3_* functions, all on in-memory copies of one database.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const NATIVE = join(ROOT, 'build', 'native');
const WASM = process.env.PULSE_WASM_DIR || join(ROOT, 'build', 'wasm');
const argPairs = process.argv.indexOf('--pairs');
const PAIRS = argPairs > 0 ? Number(process.argv[argPairs + 1]) : 5000;

const rows = [];
const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
function add(where, what, eventsPerSecond, usPerEvent, cpuUsPerEvent) {
  rows.push([where, what, fmt(eventsPerSecond), fmt(usPerEvent, 2), cpuUsPerEvent === undefined ? '-' : fmt(cpuUsPerEvent, 2)]);
}

// ---- native ----
function nativeRun(label, env) {
  const r = spawnSync(join(NATIVE, 'agent_log_bench'), [String(PAIRS), '5'], { encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`agent_log_bench failed: ${r.stderr}`);
  const out = JSON.parse(r.stdout);
  add(`native, ${label}`, 'recorder (BackgroundAgentLog)', out.recorder.events_per_second, out.recorder.us_per_event,
    out.recorder.cpu_us_per_event);
  add(`native, ${label}`, 'plain upsert loop', out.plain.events_per_second, out.plain.us_per_event,
    out.plain.cpu_us_per_event);
  cpuRatios[`native, ${label}`] = out.cpu_ratio;
  return out.ratio;
}
const ratios = {};
const cpuRatios = {};
ratios['native, disk'] = nativeRun('disk', process.env);
if (existsSync('/dev/shm')) ratios['native, tmpfs'] = nativeRun('tmpfs', { ...process.env, TMPDIR: '/dev/shm' });

// ---- WASM ----
const work = mkdtempSync(join(tmpdir(), 'pulse-bench-'));
try {
  const ws = join(work, 'ws');
  mkdirSync(join(ws, 'Workflow', 'bench'), { recursive: true });
  writeFileSync(join(ws, 'Workflow', 'bench', 'workflow.json'), '{}');
  // A real workflow database (schema + configuration snapshot), made natively.
  const made = spawnSync(join(NATIVE, 'pulse'), ['agent-log', 'show', '--workspace', ws, '--workflow', 'bench']);
  if (made.status !== 0) throw new Error(String(made.stderr));
  const fileBytes = readFileSync(join(ws, 'Workflow', 'bench', 'db', 'db.sqlite'));

  const { default: create } = await import(pathToFileURL(join(WASM, 'pulse.mjs')).href);
  const M = await create({ wasmBinary: readFileSync(join(WASM, 'pulse.wasm')) });

  const cstr = (s) => {
    const n = M.lengthBytesUTF8(s) + 1;
    const p = M._malloc(n);
    M.stringToUTF8(s, p, n);
    return p;
  };
  const openCopy = () => {
    const bytes = Uint8Array.from(fileBytes);
    bytes[18] = 1;  // in memory: rollback journaling, not WAL
    bytes[19] = 1;
    const pp = M._malloc(4);
    const mem = cstr(':memory:');
    if (M._sqlite3_open_v2(mem, pp, 6, 0) !== 0) throw new Error('open');
    const db = M.getValue(pp, 'i32');
    const buf = M._sqlite3_malloc(bytes.length);
    M.HEAPU8.set(bytes, buf);
    const main = cstr('main');
    if (M._sqlite3_deserialize(db, main, buf, bytes.length, 0, bytes.length, 0, 3) !== 0) throw new Error('deserialize');
    [pp, mem, main].forEach((p) => M._free(p));
    return db;
  };
  const iso = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

  // The facade: one call per event, on a fresh copy; through the named
  // JSON methods (agent_log.started/completed), or through the typed
  // recorders (Pulse.agentStarted/agentCompleted: a struct in, no JSON).
  const runFacade = (pairs) => {
    const db = openCopy();
    const pulse = new M.Pulse({ db });
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < pairs; i++) {
      const s = pulse.call('agent_log.started', { session: 'bench', agent: `agent-${i}`,
        name: 'Reviewer', kind: 'reviewer', pulse_run_id: 'run-1' });
      const c = pulse.call('agent_log.completed', { session: 'bench', agent: `agent-${i}`,
        result: 'changed', duration: '1s' });
      if (!s.recorded || !c.recorded) throw new Error(JSON.stringify([s, c]));
    }
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    M._sqlite3_close_v2(db);
    return secs;
  };
  const runTyped = (pairs) => {
    const db = openCopy();
    const pulse = new M.Pulse({ db });
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < pairs; i++) {
      const s = pulse.agentStarted({ session: 'bench', agent: `agent-${i}`, name: 'Reviewer', kind: 'reviewer',
        pulse_run_id: 'run-1' });
      const c = pulse.agentCompleted({ session: 'bench', agent: `agent-${i}`, result: 'changed', duration: '1s' });
      if (!s.recorded || !c.recorded) throw new Error(JSON.stringify([s, c]));
    }
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    pulse.close();
    M._sqlite3_close_v2(db);
    return secs;
  };
  // The batch method: agent_log.record with 500 pairs per call, each event
  // still its own committed write.
  const runRecord = (pairs) => {
    const db = openCopy();
    const t0 = process.hrtime.bigint();
    for (let base = 0; base < pairs; base += 500) {
      const events = [];
      for (let i = base; i < Math.min(pairs, base + 500); i++) {
        events.push({ event: 'started', session: 'bench', agent: `agent-${i}`, name: 'Reviewer', kind: 'reviewer',
          pulse_run_id: 'run-1' });
        events.push({ event: 'completed', session: 'bench', agent: `agent-${i}`, result: 'changed', duration: '1s' });
      }
      const out = new M.Pulse({ db }).call('agent_log.record', { events });
      if (out.recorded !== events.length) throw new Error(JSON.stringify(out).slice(0, 300));
    }
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    M._sqlite3_close_v2(db);
    return secs;
  };
  // The plain loop through the exported sqlite3_* functions, on a fresh copy.
  const runPlain = (pairs) => {
    const db = openCopy();
    const prep = (sql) => {
      const pp = M._malloc(4);
      const z = cstr(sql);
      if (M._sqlite3_prepare_v2(db, z, -1, pp, 0) !== 0) throw new Error(sql);
      const st = M.getValue(pp, 'i32');
      M._free(pp);
      M._free(z);
      return st;
    };
    const start = prep("INSERT INTO background_agent_log(workspace_path, session_id, agent_id, name, kind,"
      + " parent_execution_id, pulse_run_id, status, started_at, updated_at)"
      + " VALUES(?, ?, ?, ?, ?, ?, ?, 'running', ?, ?)"
      + " ON CONFLICT(workspace_path, session_id, agent_id) DO UPDATE SET status = 'running'");
    const done = prep('INSERT INTO background_agent_log(workspace_path, session_id, agent_id, status, result,'
      + ' error, duration, completed_at, updated_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)'
      + ' ON CONFLICT(workspace_path, session_id, agent_id) DO UPDATE SET status = excluded.status,'
      + ' result = excluded.result, completed_at = excluded.completed_at, updated_at = excluded.updated_at');
    const scratch = M._malloc(4096);
    const bind = (st, values) => {
      let off = 0;
      values.forEach((v, i) => {
        const n = M.stringToUTF8(v, scratch + off, 4096 - off);
        M._sqlite3_bind_text(st, i + 1, scratch + off, n, -1);  // SQLITE_TRANSIENT: copied now
        off += n + 1;
      });
    };
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < pairs; i++) {
      const agent = `agent-${i}`;
      let now = iso();
      bind(start, ['Workflow/bench', 'bench', agent, 'Reviewer', 'reviewer', '', 'run-1', now, now]);
      if (M._sqlite3_step(start) !== 101) throw new Error('step');
      M._sqlite3_reset(start);
      now = iso();
      bind(done, ['Workflow/bench', 'bench', agent, 'completed', 'changed', '', '1s', now, now]);
      if (M._sqlite3_step(done) !== 101) throw new Error('step');
      M._sqlite3_reset(done);
    }
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    M._free(scratch);
    M._sqlite3_finalize(start);
    M._sqlite3_finalize(done);
    M._sqlite3_close_v2(db);
    return secs;
  };
  // WebAssembly starts on the baseline compiler and tiers up while it runs:
  // one untimed round of each first, then the best of three alternating.
  runFacade(PAIRS);
  runTyped(PAIRS);
  runRecord(PAIRS);
  runPlain(PAIRS);
  let typed = Infinity;
  let facade = Infinity;
  let record = Infinity;
  let plain = Infinity;
  for (let r = 0; r < 3; r++) {
    plain = Math.min(plain, runPlain(PAIRS));
    facade = Math.min(facade, runFacade(PAIRS));
    typed = Math.min(typed, runTyped(PAIRS));
    record = Math.min(record, runRecord(PAIRS));
  }
  add('wasm, in memory', 'facade, typed (agentStarted/Completed per event)', (2 * PAIRS) / typed, (typed / (2 * PAIRS)) * 1e6);
  add('wasm, in memory', 'facade, JSON (call per event)', (2 * PAIRS) / facade, (facade / (2 * PAIRS)) * 1e6);
  add('wasm, in memory', 'facade (agent_log.record, 1000/call)', (2 * PAIRS) / record, (record / (2 * PAIRS)) * 1e6);
  add('wasm, in memory', 'plain upsert loop', (2 * PAIRS) / plain, (plain / (2 * PAIRS)) * 1e6);
  ratios['wasm, in memory, typed'] = plain / typed;
  ratios['wasm, in memory, JSON'] = plain / facade;
  ratios['wasm, in memory, batched'] = plain / record;
} finally {
  rmSync(work, { recursive: true, force: true });
}

// ---- report ----
const head = ['where', 'path', 'events/s', 'µs/event', 'CPU µs/event'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r) => r.map((c, i) => (i >= 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
// Wall-clock figures on a shared machine include the other work queued for
// its cores; the CPU column (user + system time of the bench process) is the
// work each path itself does, and decides the native target.
console.log(`background-agent log: ${PAIRS} start+completion pairs (${2 * PAIRS} events) per run`);
console.log(line(head));
for (const r of rows) console.log(line(r));
for (const [where, ratio] of Object.entries(ratios)) {
  const cpu = cpuRatios[where];
  const target = where === 'wasm, in memory, typed' ? ` (target ≥ 0.50: ${ratio >= 0.5 ? 'met' : 'NOT met'})` : '';
  console.log(`${where}: ${where.startsWith('wasm') ? 'facade' : 'recorder'} = ${ratio.toFixed(2)}× the plain loop's rate${target}`
    + (cpu === undefined ? '' : `, ${cpu.toFixed(2)}× by CPU time (target ≥ 0.80: ${cpu >= 0.8 ? 'met' : 'NOT met'})`));
}

// ---- bytes written per event (native, a real WAL database file) ----
// /proc/self/io "wchar": every byte the process hands to write() — WAL frames,
// checkpoints, headers. The recorder runs with Pulse's WAL settings; the
// plain loop with SQLite's defaults (checkpoint at 1000 pages, WAL never cut).
{
  const r = spawnSync(join(NATIVE, 'agent_log_bench'), ['bytes', '2000'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`agent_log_bench bytes failed: ${r.stderr}`);
  const out = JSON.parse(r.stdout);
  const kb = (n) => (n / 1024).toFixed(1);
  console.log(`bytes written per event (${2 * out.pairs} events): recorder ${fmt(out.recorder.bytes_per_event)} B`
    + ` (goal < 8 KiB: ${out.recorder.bytes_per_event < 8192 ? 'met' : 'NOT met'}), WAL file ${kb(out.recorder.wal_bytes)} KiB;`
    + ` plain loop with SQLite's WAL defaults ${fmt(out.plain.bytes_per_event)} B, WAL file ${kb(out.plain.wal_bytes)} KiB`);
}
