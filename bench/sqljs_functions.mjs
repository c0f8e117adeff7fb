#!/usr/bin/env node
// JS functions called from SQL, our Database against npm sql.js in one run:
// a scalar function over 100,000 rows (numbers, then strings), and an
// aggregate over them; ratio = ours / sql.js (goal <= 1.0 for the scalar
// function). Both wall time and this process's CPU time are measured (the
// rounds alternate which side goes first): on a shared, busy machine the
// CPU time is the steadier figure. The same query without a JS function
// shows what SQLite itself costs on each side. Then what 10,000 calls leave
// behind in our module: heap bytes in use and function-table slots (both
// should be 0).
//
//   node bench/sqljs_functions.mjs [--rounds 11] [--rows 100000]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { WASM_DIR, SQLJS_DIR, ROOT, require, numberArg, median } from './common.mjs';

const ROUNDS = numberArg('--rounds', 11);
const ROWS = numberArg('--rows', 100000);

const { initPulse } = await import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href);
const ours = await initPulse({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) });
const theirs = await require(join(SQLJS_DIR, 'sql-wasm.js'))({
  wasmBinary: readFileSync(join(SQLJS_DIR, 'sql-wasm.wasm')),
  useOldExtensionFunctions: false,
});

function prepareDb(SQL) {
  const db = new SQL.Database();
  db.run('CREATE TABLE t (x INTEGER, s TEXT)');
  db.run('BEGIN');
  const st = db.prepare('INSERT INTO t VALUES (?, ?)');
  for (let i = 0; i < ROWS; i++) st.run([i, `row ${i}`]);
  st.free();
  db.run('COMMIT');
  db.create_function('js_add', (a, b) => a + b);
  db.create_function('js_tag', (s) => `<${s}>`);
  db.create_aggregate('js_sum', { init: () => 0, step: (acc, v) => acc + v });
  return db;
}

const WORK = {
  'no JS function: sum(x + 1)': 'SELECT sum(x + 1) FROM t',
  'scalar, numbers: sum(js_add(x, 1))': 'SELECT sum(js_add(x, 1)) FROM t',
  'scalar, strings: max(js_tag(s))': 'SELECT max(js_tag(s)) FROM t',
  'aggregate: js_sum(x)': 'SELECT js_sum(x) FROM t',
};

const dbs = { ours: prepareDb(ours), theirs: prepareDb(theirs) };
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const times = { ours: {}, theirs: {} };
const cpu = { ours: {}, theirs: {} };
for (let r = 0; r < ROUNDS; r++) {
  for (const [label, sql] of Object.entries(WORK)) {
    const values = {};
    for (const side of r % 2 ? ['ours', 'theirs'] : ['theirs', 'ours']) {
      const [t0, c0] = [performance.now(), cpuMs()];
      values[side] = dbs[side].exec(sql)[0].values[0][0];
      (times[side][label] ??= []).push(performance.now() - t0);
      (cpu[side][label] ??= []).push(cpuMs() - c0);
    }
    if (values.ours !== values.theirs) throw new Error(`${label}: ours ${values.ours}, sql.js ${values.theirs}`);
  }
}

const version = require(join(ROOT, 'node_modules', 'sql.js', 'package.json')).version;
console.log(`JS functions from SQL, ${ROWS.toLocaleString('en')} rows: ours vs sql.js ${version} (median of ${ROUNDS}; ratio = ours / sql.js)`);
const fmt = (o, t) => `ours ${o.toFixed(1).padStart(6)}  sql.js ${t.toFixed(1).padStart(6)}  ratio ${(o / t).toFixed(2)}`;
for (const label of Object.keys(WORK)) {
  const wall = fmt(median(times.ours[label]), median(times.theirs[label]));
  const used = fmt(median(cpu.ours[label]), median(cpu.theirs[label]));
  console.log(`  ${label.padEnd(36)} wall ms: ${wall} | CPU ms: ${used}`);
}

// What 10,000 calls leave behind, after a warm-up of the same.
const heap = () => ours._pulse_heap_in_use();
const table = () => ours.asm.__indirect_function_table.length;
function leftBehind(label, n, round) {
  for (let i = 0; i < n; i++) round(i);
  const [h, t] = [heap(), table()];
  for (let i = 0; i < n; i++) round(i);
  console.log(`  ${label.padEnd(46)} heap ${String(heap() - h).padStart(3)} bytes, table ${table() - t} slots`);
}
console.log('\nLeft behind by 10,000 calls (ours; should be 0 and 0)');
const db = dbs.ours;
leftBehind('scalar function calls (100 queries x 100 rows)', 100, () => db.exec('SELECT js_tag(s) FROM t LIMIT 100'));
leftBehind('create_function redefinitions + call', 10000, (i) => {
  db.create_function('f', () => i);
  db.exec('SELECT f()');
});
leftBehind('open, create_function/aggregate/updateHook, close', 10000, () => {
  const d = new ours.Database();
  d.create_function('g', (x) => x);
  d.create_aggregate('h', { step: (s, v) => v });
  d.updateHook(() => {});
  d.close();
});
for (const d of Object.values(dbs)) d.close();
