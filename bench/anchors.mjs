#!/usr/bin/env node
// Pulse against its anchors, side by side, in one run: each figure is a
// ratio Pulse ÷ anchor (below 1: Pulse is ahead), a median over rounds that
// alternate which side goes first.
//
//   node bench/anchors.mjs [--rounds 7] [--only size,node,sql,opfs,agent,tab] [--mb 100]
//
// The anchors, all pinned in package.json / built here:
//   - sql.js 1.17 (npm) in Node: module load in a fresh process, and a
//     CPU-bound query (a covering-index GROUP BY over 100,000 rows, 20 times);
//   - the official @sqlite.org/sqlite-wasm with its opfs-sahpool VFS, in a
//     dedicated worker of headless Chromium (bench/opfs_anchor_worker.mjs):
//     importing a database from bytes and opening it, and opening the pool
//     (first open, and after a reload);
//   - native SQLite (the same amalgamation, build/native/sql_bench) as the
//     physical limit of the query;
//   - the agent log's plain upsert loop on the same SQLite
//     (build/native/agent_log_bench, on disk), and bytes written per event;
//   - the tab: bench/overview.mjs at 1,000 workflows, the bundle against
//     the modules one by one (the before), targets in seconds;
//   - size: pulse.wasm gzip -9 against the 460 KiB budget.
// After scripts/build.sh (build/native, build/wasm). Prints a table at the end.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { ROOT, WASM_DIR, SQLJS_DIR, numberArg, median, require } from './common.mjs';

const ROUNDS = numberArg('--rounds', 7);
const MB = numberArg('--mb', 100);
const ONLY = (() => {
  const i = process.argv.indexOf('--only');
  return i > 0 ? new Set(process.argv[i + 1].split(',')) : null;
})();
const wanted = (section) => !ONLY || ONLY.has(section);
const NATIVE = join(ROOT, 'build', 'native');
const OFFICIAL_DIR = join(ROOT, 'node_modules', '@sqlite.org', 'sqlite-wasm', 'dist');
const BUDGET = 471040;

const rows = []; // [figure, pulse, anchor, ratio, spread, target, met]
const f1 = (x) => x.toFixed(1);
const spread = (xs) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
// One row from interleaved rounds: the medians of each side, their ratio,
// and the spread of the rounds' own ratios (round r of Pulse against round r
// of the anchor, which ran next to it).
function ratioRow(figure, pulse, anchor, unit, target, anchorName) {
  const p = median(pulse);
  const a = median(anchor);
  const ratio = p / a;
  const perRound = pulse.length === anchor.length ? pulse.map((x, i) => x / anchor[i]) : [ratio];
  rows.push([figure, `${f1(p)} ${unit}`, `${f1(a)} ${unit} (${anchorName})`, ratio.toFixed(2), spread(perRound),
    target === null ? '' : `≤ ${target.toFixed(2)}`, target === null ? '' : ratio <= target ? 'met' : 'NOT met']);
  return ratio;
}
const versionOf = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
const SQLJS_VERSION = versionOf(join(ROOT, 'node_modules', 'sql.js'));
const OFFICIAL_VERSION = versionOf(join(ROOT, 'node_modules', '@sqlite.org', 'sqlite-wasm'));

// ---- size ----
function sizeSection() {
  const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;
  const ours = gz(join(WASM_DIR, 'pulse.wasm'));
  const sqljs = gz(join(SQLJS_DIR, 'sql-wasm.wasm'));
  const official = gz(join(OFFICIAL_DIR, 'sqlite3.wasm'));
  console.log(`size (gzip -9): pulse.wasm ${ours.toLocaleString('en')} B (budget ${BUDGET.toLocaleString('en')} B); `
    + `sql.js ${SQLJS_VERSION} sql-wasm.wasm ${sqljs.toLocaleString('en')} B; official ${OFFICIAL_VERSION} sqlite3.wasm ${official.toLocaleString('en')} B`);
  rows.push(['pulse.wasm gzip -9', `${ours.toLocaleString('en')} B`, `${BUDGET.toLocaleString('en')} B (budget)`,
    (ours / BUDGET).toFixed(3), '', '≤ 1.00', ours <= BUDGET ? 'met' : 'NOT met']);
  rows.push(['  … against sql.js\'s sql-wasm.wasm', `${ours.toLocaleString('en')} B`, `${sqljs.toLocaleString('en')} B (sql.js ${SQLJS_VERSION})`,
    (ours / sqljs).toFixed(2), '', '', '']);
}

// ---- module load in Node, a fresh process each ----
// Each measures from its first line: wall time, and CPU time (user + system
// of every thread: V8 compiles the module on background threads) to the
// module's readiness, then to the end of a first query.
// `load` makes SQL, the module's API: timed from the script's first line.
const loadScript = (load) => `
const c0 = process.cpuUsage();
const t0 = performance.now();
const { readFileSync } = await import('node:fs');
${load}
const t1 = performance.now();
const c1 = process.cpuUsage(c0);
const db = new SQL.Database();
db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1); SELECT x FROM t');
db.close();
console.log(JSON.stringify({ load: t1 - t0, first: performance.now() - t0, loadCpu: (c1.user + c1.system) / 1000 }));`;
const LOAD_PULSE = loadScript(`
const bytes = readFileSync(${JSON.stringify(join(WASM_DIR, 'pulse.wasm'))});
const { initPulse } = await import(${JSON.stringify(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href)});
const SQL = await initPulse({ wasmBinary: bytes });`);
const LOAD_SQLJS = loadScript(`
const { createRequire } = await import('node:module');
const bytes = readFileSync(${JSON.stringify(join(SQLJS_DIR, 'sql-wasm.wasm'))});
const initSqlJs = createRequire(${JSON.stringify(join(ROOT, 'package.json'))})('sql.js');
const SQL = await initSqlJs({ wasmBinary: bytes });`);

function freshLoad(script) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`module load: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

function nodeSection() {
  const rounds = Math.max(ROUNDS * 2, 11);
  const got = { pulse: [], sqljs: [] };
  freshLoad(LOAD_PULSE); // the disk cache warm for both
  freshLoad(LOAD_SQLJS);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? ['sqljs', 'pulse'] : ['pulse', 'sqljs'];
    for (const who of order) got[who].push(freshLoad(who === 'pulse' ? LOAD_PULSE : LOAD_SQLJS));
  }
  const all = (who, k) => got[who].map((x) => x[k]);
  const m = (who, k) => median(all(who, k));
  console.log(`module load in Node, a fresh process each (median of ${rounds}): Pulse ${f1(m('pulse', 'load'))} ms `
    + `(CPU ${f1(m('pulse', 'loadCpu'))}), sql.js ${f1(m('sqljs', 'load'))} ms (CPU ${f1(m('sqljs', 'loadCpu'))}); `
    + `with the first query ${f1(m('pulse', 'first'))} / ${f1(m('sqljs', 'first'))} ms`);
  const anchor = `sql.js ${SQLJS_VERSION}`;
  ratioRow('module load in Node (fresh process)', all('pulse', 'load'), all('sqljs', 'load'), 'ms', 1, anchor);
  ratioRow('  … by CPU time', all('pulse', 'loadCpu'), all('sqljs', 'loadCpu'), 'ms', 1, anchor);
  ratioRow('  … with the first query', all('pulse', 'first'), all('sqljs', 'first'), 'ms', null, anchor);
}

// ---- CPU-bound SQL: a covering-index GROUP BY over 100,000 rows ----
const SQL_ROWS = 100000;
const SQL_REPEAT = 20;
const AGGREGATE = 'SELECT grp, count(*), sum(value), avg(value) FROM t GROUP BY grp';

function fillTable(SQL) {
  const db = new SQL.Database();
  db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value REAL, grp INTEGER)');
  db.run('BEGIN');
  const st = db.prepare('INSERT INTO t (id, name, value, grp) VALUES (?, ?, ?, ?)');
  for (let i = 0; i < SQL_ROWS; i++) st.run([i, `name ${i}`, i * 0.5, i % 100]);
  st.free();
  db.run('COMMIT');
  db.run('CREATE INDEX t_grp_value ON t (grp, value)');
  const plan = db.exec(`EXPLAIN QUERY PLAN ${AGGREGATE}`)[0].values.map((v) => v[3]).join('; ');
  if (!/COVERING INDEX t_grp_value/.test(plan)) throw new Error(`the aggregate does not use the covering index: ${plan}`);
  return db;
}

function timeAggregate(db) {
  const st = db.prepare(AGGREGATE);
  const t0 = performance.now();
  let groups = 0;
  for (let k = 0; k < SQL_REPEAT; k++) {
    while (st.step()) groups++;
    st.reset();
  }
  const ms = performance.now() - t0;
  st.free();
  if (groups !== 100 * SQL_REPEAT) throw new Error(`aggregate: ${groups} groups`);
  return ms;
}

async function sqlSection() {
  const { default: createPulseModule } = await import(pathToFileURL(join(WASM_DIR, 'pulse.mjs')).href);
  const { bindApi } = await import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href);
  const ours = bindApi(await createPulseModule({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) }));
  const theirs = await require('sql.js')({ wasmBinary: readFileSync(join(SQLJS_DIR, 'sql-wasm.wasm')) });
  const dbs = { pulse: fillTable(ours), sqljs: fillTable(theirs) };
  timeAggregate(dbs.pulse); // both tiered up before the clock
  timeAggregate(dbs.sqljs);
  const got = { pulse: [], sqljs: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? ['sqljs', 'pulse'] : ['pulse', 'sqljs'];
    for (const who of order) got[who].push(timeAggregate(dbs[who]));
  }
  dbs.pulse.close();
  dbs.sqljs.close();
  const native = JSON.parse(spawnSync(join(NATIVE, 'sql_bench'), [String(SQL_ROWS), String(SQL_REPEAT), String(ROUNDS)],
    { encoding: 'utf8' }).stdout);
  console.log(`covering-index GROUP BY over ${SQL_ROWS.toLocaleString('en')} rows ×${SQL_REPEAT} (median of ${ROUNDS}): `
    + `Pulse ${f1(median(got.pulse))} ms, sql.js ${f1(median(got.sqljs))} ms, native SQLite ${native.sqlite} ${f1(native.median_ms)} ms`);
  ratioRow(`GROUP BY, covering index, 100k rows ×${SQL_REPEAT}`, got.pulse, got.sqljs, 'ms', 1, `sql.js ${SQLJS_VERSION}`);
  ratioRow('  … against native SQLite (the limit)', got.pulse, [native.median_ms], 'ms', null, 'native');
}

// ---- OPFS in Chromium: Pulse's pool against the official opfs-sahpool ----
async function makeBigDatabase(file, mb) {
  const { initPulse } = await import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href);
  const SQL = await initPulse({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) });
  const db = new SQL.Database();
  db.run('CREATE TABLE log (id INTEGER PRIMARY KEY, session TEXT NOT NULL, at TEXT NOT NULL, body TEXT NOT NULL)');
  db.run('CREATE INDEX log_session ON log (session, at)');
  const body = 'Reviewed the run folder and the step logs; no blocking issue. '.repeat(16);
  const st = db.prepare('INSERT INTO log (session, at, body) VALUES (?, ?, ?)');
  db.run('BEGIN');
  const perRow = body.length + 60;
  const n = Math.ceil((mb * 1024 * 1024) / perRow);
  for (let i = 0; i < n; i++) st.run([`session-${i % 500}`, new Date(1.75e12 + i * 60000).toISOString(), body]);
  st.free();
  db.run('COMMIT');
  const bytes = db.export();
  db.close();
  writeFileSync(file, bytes);
  return bytes.length;
}

async function opfsSection() {
  const { chromium } = await import('playwright-core');
  const { startStaticServer } = await import('../scripts/serve-static.mjs');
  const tmp = mkdtempSync(join(tmpdir(), 'pulse-anchors-'));
  try {
    const size = await makeBigDatabase(join(tmp, 'db.sqlite'), MB);
    const server = await startStaticServer({ mounts: [
      ['/wasm/', WASM_DIR], ['/official/', OFFICIAL_DIR], ['/anchor-data/', tmp], ['/bench/', join(ROOT, 'bench')],
    ] });
    const ctx = await chromium.launchPersistentContext(join(tmp, 'profile'), {
      executablePath: process.env.PULSE_CHROMIUM || '/usr/bin/chromium', headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const page = await ctx.newPage();
      await page.goto(`${server.url}/bench/anchors.html`);
      const op = (impl, name) => page.evaluate(([i, o]) => new Promise((resolve, reject) => {
        const w = new Worker(`/bench/opfs_anchor_worker.mjs?impl=${i}`, { type: 'module' });
        w.onmessage = (e) => { w.terminate(); if (e.data.error) reject(new Error(e.data.error)); else resolve(e.data); };
        w.onerror = (e) => { w.terminate(); reject(new Error(`${i} ${o}: ${e.message || 'the worker failed to load'}`)); };
        w.postMessage({ op: o });
      }), [impl, name]);
      const got = { pulse: { fresh: [], imp: [], reload: [], check: [], files: 0 }, official: { fresh: [], imp: [], reload: [], files: 0 } };
      // One untimed pass of each first (the browser's caches, OPFS's directory).
      for (const impl of ['pulse', 'official']) {
        await op(impl, 'reset');
        await op(impl, 'import');
      }
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 ? ['official', 'pulse'] : ['pulse', 'official'];
        for (const impl of order) {
          await op(impl, 'reset');
          got[impl].fresh.push((await op(impl, 'open')).ms);
          const imported = await op(impl, 'import');
          got[impl].imp.push(imported.ms);
          if (imported.checkMs !== null) got[impl].check.push(imported.checkMs);
          const reload = await op(impl, 'open');
          got[impl].reload.push(reload.ms);
          got[impl].files = reload.files;
        }
      }
      for (const impl of ['pulse', 'official']) await op(impl, 'reset');
      const m = (impl, k) => median(got[impl][k]);
      const anchor = `official ${OFFICIAL_VERSION} opfs-sahpool`;
      const both = (k) => [got.pulse[k], got.official[k]];
      console.log(`OPFS in Chromium (median of ${ROUNDS}; a ${(size / 1048576).toFixed(1)} MB database): `
        + `import from bytes + open Pulse ${f1(m('pulse', 'imp'))} ms, official ${f1(m('official', 'imp'))} ms `
        + `(then Pulse's integrity check in the worker ${f1(m('pulse', 'check'))} ms); `
        + `pool open, first ${f1(m('pulse', 'fresh'))} / ${f1(m('official', 'fresh'))} ms, `
        + `after a reload ${f1(m('pulse', 'reload'))} / ${f1(m('official', 'reload'))} ms `
        + `(pool files ${got.pulse.files} / ${got.official.files})`);
      ratioRow(`OPFS: import ${Math.round(size / 1048576)} MB from bytes, then open`, ...both('imp'), 'ms', 1, anchor);
      ratioRow('OPFS: pool open, first', ...both('fresh'), 'ms', 1, anchor);
      ratioRow('OPFS: pool open, after a reload', ...both('reload'), 'ms', 1, anchor);
    } finally {
      await ctx.close();
      await server.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---- the agent log on disk (native) ----
// agent_log_bench interleaves the recorder and the plain loop in chunks on
// their own WAL files and reports each path's best round; it runs
// ROUNDS times here (the median of those runs, and their spread).
function agentSection() {
  const run = (args) => {
    const r = spawnSync(join(NATIVE, 'agent_log_bench'), args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`agent_log_bench ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const runs = Array.from({ length: Math.max(3, Math.min(ROUNDS, 7)) }, () => run(['3000', '3']));
  const bytes = run(['bytes', '2000']);
  const med = (f) => median(runs.map(f));
  console.log(`agent log on disk (${runs.length} runs of 3,000 start+completion pairs, best of 3 rounds each, interleaved in chunks): `
    + `recorder ${f1(med((r) => r.recorder.us_per_event))} µs/event (CPU ${f1(med((r) => r.recorder.cpu_us_per_event))}), `
    + `plain upsert loop ${f1(med((r) => r.plain.us_per_event))} µs/event (CPU ${f1(med((r) => r.plain.cpu_us_per_event))}); `
    + `bytes written per event ${bytes.recorder.bytes_per_event.toLocaleString('en')} (plain loop ${bytes.plain.bytes_per_event.toLocaleString('en')})`);
  for (const [label, k, who] of [['agent log on disk: recorder ÷ plain loop, rate', 'ratio', 'events_per_second'],
    ['  … the same by CPU time', 'cpu_ratio', 'cpu_us_per_event']]) {
    const ratio = med((r) => r[k]);
    const unit = who === 'events_per_second' ? 'ev/s' : 'CPU µs/ev';
    rows.push([label, `${f1(med((r) => r.recorder[who]))} ${unit}`, `${f1(med((r) => r.plain[who]))} ${unit} (plain loop)`,
      ratio.toFixed(2), spread(runs.map((r) => r[k])), '≥ 0.80', ratio >= 0.8 ? 'met' : 'NOT met']);
  }
  rows.push(['agent log: bytes written per event', `${bytes.recorder.bytes_per_event.toLocaleString('en')} B`,
    `${bytes.plain.bytes_per_event.toLocaleString('en')} B (plain loop)`, (bytes.recorder.bytes_per_event / 8192).toFixed(2), '',
    '≤ 8 KiB', bytes.recorder.bytes_per_event <= 8192 ? 'met' : 'NOT met']);
}

// ---- the tab (bench/overview.mjs) ----
function tabSection() {
  const r = spawnSync(process.execPath, [join(ROOT, 'bench', 'overview.mjs'), '--counts', '1000', '--runs', String(ROUNDS),
    '--before-runs', '0', '--unbundled', '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`bench/overview.mjs: ${r.stderr}`);
  // The last JSON line (tests/browser/helpers.mjs loads node:test, whose
  // empty summary follows it).
  const json = r.stdout.trim().split('\n').reverse().find((l) => l.startsWith('{'));
  if (!json) throw new Error(`bench/overview.mjs printed no JSON line: ${r.stdout.slice(-400)}`);
  const out = JSON.parse(json);
  const b = out.bundled;
  const u = out.unbundled;
  console.log(`the tab, overview of 1,000 workflows (median of ${ROUNDS}): bundled first paint ${b.fcp.toFixed(0)} ms, `
    + `list drawn ${b.list.toFixed(0)} ms (${b.range.map((x) => x.toFixed(0)).join('–')}), ${b.scripts} script files, `
    + `${(b.scriptBytes / 1024).toFixed(1)} KB; modules one by one ${u.fcp.toFixed(0)} / ${u.list.toFixed(0)} ms, ${u.scripts} files, `
    + `${(u.scriptBytes / 1024).toFixed(1)} KB`);
  for (const [label, k] of [['tab: first paint, 1,000 workflows', 'fcp'], ['tab: list drawn, 1,000 workflows', 'list']]) {
    rows.push([label, `${b[k].toFixed(0)} ms`, `${u[k].toFixed(0)} ms (modules one by one)`, (b[k] / u[k]).toFixed(2),
      k === 'list' ? `${b.range.map((x) => x.toFixed(0)).join('–')} ms` : '', '≤ 1,000 ms', b[k] <= 1000 ? 'met' : 'NOT met']);
  }
  rows.push(['tab: script transfer until drawn', `${(b.scriptBytes / 1024).toFixed(1)} KB`, `${(u.scriptBytes / 1024).toFixed(1)} KB (one by one)`,
    (b.scriptBytes / u.scriptBytes).toFixed(2), '', '< 1.00', b.scriptBytes < u.scriptBytes ? 'met' : 'NOT met']);
}

const sections = [['size', sizeSection], ['node', nodeSection], ['sql', sqlSection], ['opfs', opfsSection],
  ['agent', agentSection], ['tab', tabSection]];
for (const [name, fn] of sections) {
  if (!wanted(name)) continue;
  const t0 = performance.now();
  await fn();
  console.log(`  (${name}: ${((performance.now() - t0) / 1000).toFixed(0)} s)`);
}

const head = ['figure', 'Pulse', 'anchor', 'ratio', 'spread', 'target', ''];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r) => r.map((c, i) => (i === 3 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
console.log(`\nPulse ÷ anchor (${ROUNDS} rounds, interleaved; below 1.00 Pulse is ahead; spread: the rounds' own ratios; `
  + `load average at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${cpus().length} cores)`);
console.log(line(head));
for (const r of rows) console.log(line(r));
