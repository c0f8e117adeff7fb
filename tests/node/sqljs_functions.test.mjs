// JS callbacks into SQLite (create_function, create_aggregate, updateHook),
// the statement iterator and the module's identity, on the real module:
// what sql.js's own suite does not pin down, and that nothing leaks (heap in
// use and function-table size equal before and after 10,000 calls).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WASM_DIR } from './helpers.mjs';

const { initPulse } = await import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href);
const SQL = await initPulse({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) });

const heapInUse = () => SQL._pulse_heap_in_use();
const tableSize = () => SQL.asm.__indirect_function_table.length;
const one = (db, sql, params) => db.exec(sql, params)[0].values[0][0];
// The integers a..b as a query with one column, value.
const series = (a, b) => `WITH RECURSIVE c(value) AS (SELECT ${a} UNION ALL SELECT value + 1 FROM c WHERE value < ${b}) SELECT value FROM c`;

// Runs `round` `n` times after a warm-up of the same size (caches, first
// table growth), and returns the heap and table growth across the n rounds.
function growthAcross(n, round) {
  for (let i = 0; i < n; i++) round(i);
  const heap = heapInUse();
  const table = tableSize();
  for (let i = 0; i < n; i++) round(i);
  return { heap: heapInUse() - heap, table: tableSize() - table };
}

test('init returns one module, the Emscripten module itself, however often it is called', async () => {
  const again = await initPulse();
  assert.equal(again, SQL);
  assert.equal(typeof SQL.stackSave, 'function');
  assert.equal(Object.getPrototypeOf(new again.Database()), SQL.Database.prototype);
});

test('create_function: values both ways, as sql.js converts them', () => {
  const db = new SQL.Database();
  db.create_function('describe', (x) => (x instanceof Uint8Array ? `blob ${x.length}` : `${typeof x} ${x}`));
  assert.deepEqual(db.exec("SELECT describe(1), describe(2.5), describe('t'), describe(x'0102'), describe(NULL)")[0].values[0],
    ['number 1', 'number 2.5', 'string t', 'blob 2', 'object null']);
  db.create_function('give', (kind) => ({ int: 7, bool: true, text: 'é✓', blob: new Uint8Array([9, 8]), none: undefined })[kind]);
  assert.deepEqual(db.exec("SELECT give('int'), typeof(give('int')), give('bool'), typeof(give('bool')), give('text'), give('blob'), give('none')")[0].values[0],
    [7, 'real', 1, 'integer', 'é✓', new Uint8Array([9, 8]), null]);
  const long = 'x'.repeat(100000);
  db.create_function('echo', (s) => s);
  assert.equal(one(db, 'SELECT length(echo(?))', [long]), 100000);
  db.close();
});

test('create_function: a JS exception is the SQL error, and the database goes on', () => {
  const db = new SQL.Database();
  db.create_function('boom', (x) => {
    if (x > 1) throw new Error(`too big: ${x}`);
    return x;
  });
  assert.throws(() => db.exec('SELECT boom(1), boom(2)'), { message: 'too big: 2' });
  db.create_function('boom', () => {
    throw 'a plain string';
  });
  assert.throws(() => db.exec('SELECT boom()'), { message: 'a plain string' });
  assert.equal(one(db, 'SELECT boom(1)'), 1, 'the one-argument boom is still the first definition');
  db.create_function('weird', () => ({}));
  assert.throws(() => db.exec('SELECT weird()'), /Wrong API use : tried to return a value of an unknown type/);
  db.close();
});

test('create_function: 10,000 calls and 10,000 redefinitions leak nothing', () => {
  const db = new SQL.Database();
  db.run('CREATE TABLE t (x)');
  db.run(`INSERT INTO t ${series(1, 100)}`);
  db.create_function('twice', (x) => `${x}${x}`);
  const calls = growthAcross(100, () => db.exec('SELECT twice(x) FROM t'));
  assert.deepEqual(calls, { heap: 0, table: 0 }, '100 x 100 calls');
  const redefinitions = growthAcross(10000, (i) => {
    db.create_function('f', () => i);
    assert.equal(one(db, 'SELECT f()'), i);
  });
  assert.deepEqual(redefinitions, { heap: 0, table: 0 }, '10,000 redefinitions');
  db.close();
});

test('a closed database gives its function-table slots back', () => {
  const growth = growthAcross(200, () => {
    const db = new SQL.Database();
    db.create_function('a', () => 1);
    db.create_aggregate('b', { step: (s, v) => v });
    db.updateHook(() => {});
    db.close();
  });
  assert.deepEqual(growth, { heap: 0, table: 0 });
});

test('create_aggregate: states per group, errors, 10,000 groups leak nothing', () => {
  const db = new SQL.Database();
  db.run('CREATE TABLE t (g, v)');
  db.run(`INSERT INTO t SELECT value % 10000, value FROM (${series(0, 29999)})`);
  db.create_aggregate('js_sum', { init: () => 0, step: (s, v) => s + v });
  assert.deepEqual(db.exec('SELECT g, js_sum(v) FROM t WHERE g < 2 GROUP BY g')[0].values, [[0, 30000], [1, 30003]]);
  assert.equal(one(db, 'SELECT js_sum(v) FROM t WHERE 0'), 0, 'no rows: finalize gets init()');
  const growth = growthAcross(2, () => db.exec('SELECT g, js_sum(v) FROM t GROUP BY g'));
  assert.deepEqual(growth, { heap: 0, table: 0 });
  db.create_aggregate('fails', { step: () => { throw new Error('step failed'); } });
  assert.throws(() => db.exec('SELECT fails(v) FROM t'), { message: 'step failed' });
  db.close();
});

test('updateHook: every change, and an exception thrown after the statement', () => {
  const db = new SQL.Database();
  db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v)');
  let seen = 0;
  db.updateHook((op, dbName, table, rowId) => {
    assert.equal(op, 'insert');
    assert.equal(table, 't');
    seen = rowId;
  });
  const growth = growthAcross(5000, (i) => db.run('INSERT OR REPLACE INTO t VALUES (?, ?)', [i + 1, i]));
  assert.deepEqual(growth, { heap: 0, table: 0 });
  assert.equal(seen, 5000);
  db.updateHook(() => {
    throw new Error('hook refused');
  });
  assert.throws(() => db.run('INSERT INTO t VALUES (9007199254740991, 1)'), { message: 'hook refused' });
  assert.throws(() => db.run('DELETE FROM t WHERE id = 1'), { message: 'hook refused' });
  db.updateHook(null);
  assert.equal(one(db, 'SELECT count(*) FROM t WHERE id IN (1, 9007199254740991)'), 1, 'the statements did finish');
  db.close();
});

test('iterateStatements: remaining SQL after the end and after an error; close frees what is left', () => {
  const db = new SQL.Database();
  const it = db.iterateStatements('SELECT 1; SELECT 2');
  assert.equal([...it].length, 2);
  assert.equal(it.getRemainingSQL(), '');
  const bad = db.iterateStatements('SELECT 1; nonsense here; SELECT 3');
  bad.next();
  assert.throws(() => bad.next(), /syntax error/);
  assert.equal(bad.getRemainingSQL(), ' nonsense here; SELECT 3');
  const open = db.iterateStatements('SELECT 1; SELECT 2');
  open.next();
  db.close();
  assert.deepEqual(open.next(), { done: true });
});

test('getNormalizedSQL is SQLite\'s normalized text', () => {
  const db = new SQL.Database();
  db.run('CREATE TABLE test (x integer)');
  assert.equal(db.prepare('select * from test where x = 42').getNormalizedSQL(), 'SELECT*FROM test WHERE x=?;');
  db.close();
});

test('extension functions sql.js ships; SQLite\'s own math functions stay', () => {
  const db = new SQL.Database();
  db.run('CREATE TABLE t (v); INSERT INTO t VALUES (1), (2), (2), (4), (5), (6), (7), (8), (9)');
  assert.deepEqual(db.exec('SELECT mode(v), median(v), lower_quartile(v), upper_quartile(v), round(variance(v), 2), round(stdev(v), 2) FROM t')[0].values[0],
    [2, 5, 2, 7, 8.11, 2.85]);
  assert.deepEqual(db.exec("SELECT reverse('abc'), difference('Robert', 'Rupert'), replicate('ab', 3), padl('x', 3), square(3), log(100)")[0].values[0],
    ['cba', 4, 'ababab', '  x', 9, 2]);
  db.close();
});

test('bytes that are not a database: our message, with SQLite\'s words', () => {
  assert.throws(() => new SQL.Database([1, 2, 3]), (e) => {
    assert.match(e.message, /^the given database is not a SQLite database: only 3 bytes/);
    assert.match(e.message, /file is not a database/);
    assert.equal(e.code, 'SQLITE_NOTADB');
    return true;
  });
});

test('the default VFS keeps everything in memory: the clock and randomness work, a file name is refused', () => {
  const db = new SQL.Database();
  try {
    const now = Date.parse(one(db, "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"));
    assert.ok(Math.abs(now - Date.now()) < 60000, `SQLite's clock says ${new Date(now).toISOString()}`);
    const blobs = db.exec('SELECT hex(randomblob(16)), hex(randomblob(16))')[0].values[0];
    assert.match(blobs[0], /^[0-9A-F]{32}$/);
    assert.notEqual(blobs[0], blobs[1]);
    db.run("ATTACH ':memory:' AS scratch");
    db.run('CREATE TABLE scratch.t(x); INSERT INTO scratch.t VALUES (1)');
    assert.equal(one(db, 'SELECT count(*) FROM scratch.t'), 1);
    assert.throws(() => db.run("ATTACH 'other.db' AS other"), /unable to open database/);
    assert.throws(() => db.run("VACUUM INTO 'copy.db'"), /unable to open database/);
    assert.equal(one(db, 'SELECT 1'), 1);
  } finally {
    db.close();
  }
});
