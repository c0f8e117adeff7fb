#!/usr/bin/env node
// The WASM module's figures in one run: .wasm size raw and gzipped (the
// shipping build in build/wasm), module load time in Node, and our Database
// against npm sql.js on the same work, as ratios (target: ours / sql.js
// <= 1.2 on every item; shipping .wasm <= 460 KB gzipped, the budget with Embind).
//
//   node bench/wasm.mjs [--rounds 5] [--rows 100000]
import { readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { WASM_DIR, SQLJS_DIR, ROOT, require, numberArg, median } from './common.mjs';

const ROUNDS = numberArg('--rounds', 5);
const ROWS = numberArg('--rows', 100000);
const KB = (n) => `${(n / 1024).toFixed(1)} KB`;
const ms = (t) => `${t.toFixed(1)} ms`;

function sizes(file) {
  const raw = readFileSync(file);
  return { raw: statSync(file).size, gzip: gzipSync(raw, { level: 9 }).length };
}

const oursWasm = readFileSync(join(WASM_DIR, 'pulse.wasm'));
const sqljsWasm = readFileSync(join(SQLJS_DIR, 'sql-wasm.wasm'));
const { bindApi } = await import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href);
const { default: createPulseModule } = await import(pathToFileURL(join(WASM_DIR, 'pulse.mjs')).href);
// initPulse() makes its module once; a fresh instance each time instead.
const loadOurs = async () => bindApi(await createPulseModule({ wasmBinary: oursWasm }));
// sql.js caches its first load: a fresh copy of its loader each time.
const loadTheirs = () => {
  const path = require.resolve(join(SQLJS_DIR, 'sql-wasm.js'));
  delete require.cache[path];
  return require(path)({ wasmBinary: sqljsWasm, useOldExtensionFunctions: false });
};

// --- size ---
const ours = sizes(join(WASM_DIR, 'pulse.wasm'));
const glue = sizes(join(WASM_DIR, 'pulse.mjs'));
const theirs = sizes(join(SQLJS_DIR, 'sql-wasm.wasm'));
let opt = 'unknown';
try {
  const cache = readFileSync(join(WASM_DIR, 'CMakeCache.txt'), 'utf8');
  opt = (cache.match(/^PULSE_WASM_OPT:STRING=(.*)$/m) || [])[1] || opt;
} catch {
  // a build without the cache variable
}
console.log(`WASM module (build/wasm, shipping level ${opt})`);
console.log(`  pulse.wasm     ${KB(ours.raw)} raw, ${KB(ours.gzip)} gzip  (target <= 460 KB gzip: ${ours.gzip <= 460 * 1024 ? 'met' : 'NOT met'})`);
console.log(`  pulse.mjs      ${KB(glue.raw)} raw, ${KB(glue.gzip)} gzip`);
console.log(`  sql-wasm.wasm  ${KB(theirs.raw)} raw, ${KB(theirs.gzip)} gzip  (npm sql.js, for reference)`);

// --- load time ---
const loadTimes = { ours: [], theirs: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const [key, load] of [['ours', loadOurs], ['theirs', loadTheirs]]) {
    const t0 = performance.now();
    await load();
    loadTimes[key].push(performance.now() - t0);
  }
}
console.log(`\nModule load in Node (compile + instantiate, median of ${ROUNDS})`);
console.log(`  ours ${ms(median(loadTimes.ours))}, sql.js ${ms(median(loadTimes.theirs))}`);

// --- the same work on both ---
function work(SQL) {
  const times = {};
  const db = new SQL.Database();
  let t0 = performance.now();
  db.run('BEGIN');
  const st = db.prepare('INSERT INTO t (id, name, value, grp) VALUES (?, ?, ?, ?)');
  for (let i = 0; i < ROWS; i++) st.run([i, `name ${i}`, i * 0.5, i % 100]);
  st.free();
  db.run('COMMIT');
  times.insert = performance.now() - t0;

  db.run('CREATE INDEX t_grp ON t (grp)');
  t0 = performance.now();
  let check = 0;
  for (let k = 0; k < 20; k++) {
    const res = db.exec('SELECT grp, count(*), sum(value), avg(value) FROM t WHERE grp BETWEEN ? AND ? GROUP BY grp', [10 + k, 60 + k]);
    check += res[0].values.length;
  }
  times.query = performance.now() - t0;

  // Five exports in a row, as the query runs twenty times: one call is a few
  // milliseconds, at the mercy of whichever module's garbage is collected then.
  t0 = performance.now();
  let bytes;
  for (let k = 0; k < 5; k++) bytes = db.export();
  times.export = performance.now() - t0;
  db.close();
  return { times, check, size: bytes.length };
}

function setup(SQL) {
  // Table made outside the timed part (same DDL on both).
  const Database = SQL.Database;
  return {
    Database: class extends Database {
      constructor() {
        super();
        this.run('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value REAL, grp INTEGER)');
      }
    },
  };
}

const [oursApi, theirsApi] = [await loadOurs(), await loadTheirs()];
const results = { ours: { insert: [], query: [], export: [] }, theirs: { insert: [], query: [], export: [] } };
let same = true;
for (let r = 0; r < ROUNDS; r++) {
  const a = work(setup(oursApi));
  const b = work(setup(theirsApi));
  if (a.check !== b.check) same = false;
  for (const k of Object.keys(a.times)) {
    results.ours[k].push(a.times[k]);
    results.theirs[k].push(b.times[k]);
  }
}
console.log(`\nOur Database vs sql.js ${require(join(ROOT, 'node_modules', 'sql.js', 'package.json')).version} (median of ${ROUNDS} rounds; ratio = ours / sql.js, target <= 1.2)`);
const labels = {
  insert: `${ROWS.toLocaleString('en')}-row insert, one transaction`,
  query: 'indexed aggregate query x20',
  export: 'export() x5',
};
let allMet = true;
for (const k of Object.keys(labels)) {
  const o = median(results.ours[k]);
  const t = median(results.theirs[k]);
  const ratio = o / t;
  if (ratio > 1.2) allMet = false;
  console.log(`  ${labels[k].padEnd(38)} ours ${ms(o).padStart(10)}  sql.js ${ms(t).padStart(10)}  ratio ${ratio.toFixed(2)}${ratio > 1.2 ? '  (over target)' : ''}`);
}
if (!same) console.log('  WARNING: the two gave different query results');
console.log(`\nsize target ${ours.gzip <= 460 * 1024 ? 'met' : 'NOT met'}; speed target ${allMet ? 'met on every item' : 'NOT met on every item'}`);
