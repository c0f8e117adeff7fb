// Compatibility is measured, not claimed: ONE script of operations runs
// against our Database (build/wasm) and against the real sql.js from npm,
// and every observation (values and their types, blobs, nulls, errors'
// messages and codes, row counts, exported bytes) must be identical.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, WASM_DIR } from './helpers.mjs';

const require = createRequire(import.meta.url);

async function loadOurs() {
  const { initPulse } = await import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href);
  return initPulse({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) });
}

async function loadSqlJs() {
  const dist = join(ROOT, 'node_modules', 'sql.js', 'dist');
  const initSqlJs = require(join(dist, 'sql-wasm.js'));
  // Its legacy extension functions are not part of what we compare.
  return initSqlJs({ wasmBinary: readFileSync(join(dist, 'sql-wasm.wasm')), useOldExtensionFunctions: false });
}

const [ours, theirs] = await Promise.all([loadOurs(), loadSqlJs()]);

// Records what `fn` returns or throws (message, code), so a thrown error is
// an observation like any other.
function attempt(fn) {
  try {
    return { ok: fn() };
  } catch (e) {
    if (typeof e === 'string') return { thrown: e };
    return { error: e.message, code: e.code ?? null, type: e.constructor.name };
  }
}

// The shared script. `SQL` is either implementation's module object.
function script(SQL) {
  const log = [];
  const see = (label, fn) => log.push([label, attempt(fn)]);
  const db = new SQL.Database();
  // sql.js and our build differ in this compile-time default; say it.
  db.run('PRAGMA foreign_keys = OFF');

  see('create', () => db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB, any_)') && 'ok');
  see('insert array', () => {
    db.run('INSERT INTO t (i, r, s, b, any_) VALUES (?, ?, ?, ?, ?)', [42, 1.5, 'hello', new Uint8Array([0, 1, 254, 255]), null]);
    return db.getRowsModified();
  });
  see('insert :named', () => {
    db.run('INSERT INTO t (i, r, s, any_) VALUES (:i, :r, :s, :a)', { ':i': -7, ':r': 0.1 + 0.2, ':s': 'héllo ✓ 𝄞', ':a': true });
    return db.getRowsModified();
  });
  see('insert $named', () => db.run('INSERT INTO t (i, s, any_) VALUES ($i, $s, $a)', { $i: 2 ** 40, $s: '', $a: 2 ** 31 }) && 'ok');
  see('insert @named', () => db.run('INSERT INTO t (i, s, b) VALUES (@i, @s, @b)', { '@i': 9007199254740991, '@s': 'x'.repeat(100000), '@b': new Uint8Array(0) }) && 'ok');
  see('insert extra keys ignored', () => db.run('INSERT INTO t (s) VALUES (:s)', { ':s': 'kept', ':unused': 1 }) && 'ok');
  see('insert bigint', () => db.run('INSERT INTO t (i, any_) VALUES (?, ?)', [9223372036854775807n, -5n]) && 'ok');
  see('insert special numbers', () => db.run('INSERT INTO t (r, any_) VALUES (?, ?)', [Infinity, NaN]) && 'ok');
  see('insert big blob', () => {
    const big = new Uint8Array(1 << 20);
    for (let k = 0; k < big.length; k++) big[k] = (k * 31) & 0xff;
    db.run('INSERT INTO t (b) VALUES (?)', [big]);
    return db.getRowsModified();
  });
  see('select all', () => db.exec('SELECT id, i, r, s, b, any_, typeof(i), typeof(r), typeof(any_) FROM t WHERE length(s) < 1000 OR s IS NULL ORDER BY id'));
  see('select long text', () => db.exec('SELECT length(s), substr(s, 1, 3) FROM t WHERE length(s) > 1000'));
  see('select big blob', () => db.exec('SELECT b FROM t WHERE length(b) > 1000')[0].values[0][0]);
  see('multi statement exec', () => db.exec("SELECT 1 AS a, 'two' AS b; CREATE TABLE u(x); SELECT NULL AS n, x'00ff' AS blob, 2.0 AS f, -0.0 AS z; INSERT INTO u VALUES (1)"));
  see('exec with object params', () => db.exec('SELECT :a AS a, $b AS b; SELECT :a * 2 AS twice', { ':a': 21, $b: 'bee' }));
  see('exec with array params', () => db.exec('SELECT ? + ? AS sum, ? AS s', [1, 2.5, 'x']));
  see('exec empty', () => db.exec(''));
  see('exec comment only', () => db.exec('-- nothing here'));
  see('exec no rows', () => db.exec('SELECT * FROM u WHERE x > 100'));
  see('functions', () => db.exec("SELECT abs(-3), round(2.567, 2), upper('abc'), hex(x'0a0b'), json_object('k', 1), datetime('2026-01-31T10:00:00Z', '+1 day'), sqrt(16), printf('%05.1f', 3.14159), 7 / 2, 7 / 2.0, 1e308 * 10"));
  see('rows modified update', () => {
    db.run('UPDATE t SET s = s || ? WHERE s IS NOT NULL', ['!']);
    return db.getRowsModified();
  });
  see('rows modified after select', () => {
    db.exec('SELECT count(*) FROM t');
    return db.getRowsModified();
  });

  // Statements.
  see('prepare/bind/step/get', () => {
    const st = db.prepare('SELECT id, s, b FROM t WHERE id <= ? ORDER BY id');
    const rows = [];
    st.bind([3]);
    while (st.step()) rows.push(st.get());
    const names = st.getColumnNames();
    const sql = st.getSQL();
    st.free();
    return { rows, names, sql };
  });
  see('get with params + getAsObject', () => {
    const st = db.prepare('SELECT :x AS x, :y AS y, typeof(:y) AS ty');
    const a = st.get({ ':x': 1, ':y': 'y' });
    const b = st.getAsObject({ ':x': null, ':y': new Uint8Array([9]) });
    const c = st.getAsObject([5, 6]);
    st.free();
    return { a, b, c };
  });
  see('useBigInt', () => {
    const st = db.prepare('SELECT i, r FROM t WHERE i = 9223372036854775807');
    st.step();
    const big = st.get(null, { useBigInt: true });
    const plain = st.get();
    st.free();
    return { big, plain };
  });
  see('statement run + reset + rebind', () => {
    const st = db.prepare('INSERT INTO u VALUES (?)');
    for (let k = 0; k < 5; k++) st.run([k]);
    const r1 = st.run([null]);
    const r2 = st.reset();
    st.free();
    return { r1, r2, rows: db.exec('SELECT x, typeof(x) FROM u ORDER BY rowid') };
  });
  see('step without bind uses NULL', () => {
    const st = db.prepare('SELECT ? IS NULL');
    st.step();
    const v = st.get();
    st.free();
    return v;
  });
  see('bind returns', () => {
    const st = db.prepare('SELECT ?, ?');
    const r = [st.bind([1, 2]), st.bind(null), st.bind(), st.bind({})];
    st.free();
    return r;
  });
  see('getAsObject duplicate names', () => {
    const st = db.prepare('SELECT 1 AS a, 2 AS a, 3 AS b');
    st.step();
    const o = st.getAsObject();
    st.free();
    return o;
  });
  see('free twice', () => {
    const st = db.prepare('SELECT 1');
    return [st.free(), attempt(() => st.step())];
  });
  see('step after free', () => {
    const st = db.prepare('SELECT 1');
    st.free();
    return st.step();
  });
  see('bind after free', () => {
    const st = db.prepare('SELECT 1');
    st.free();
    return st.bind([1]);
  });

  // each
  see('each with params', () => {
    const rows = [];
    const ret = db.each('SELECT x FROM u WHERE x >= :min ORDER BY x', { ':min': 2 }, (r) => rows.push(r), () => 'done');
    return { rows, ret };
  });
  see('each without params', () => {
    const rows = [];
    const ret = db.each('SELECT x, x * 2 AS y FROM u WHERE x < 2 ORDER BY x', (r) => rows.push(r));
    return { rows, ret };
  });

  // Errors.
  see('syntax error', () => db.exec('SELEC 1'));
  see('no such table', () => db.run('INSERT INTO nope VALUES (1)'));
  see('no such column', () => db.prepare('SELECT nope FROM t'));
  see('unique constraint', () => {
    db.run('CREATE TABLE k (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL)');
    db.run("INSERT INTO k (name) VALUES ('a')");
    return db.run("INSERT INTO k (name) VALUES ('a')");
  });
  see('not null constraint', () => db.run('INSERT INTO k (name) VALUES (?)', [null]));
  see('check constraint', () => {
    db.run('CREATE TABLE c (v INTEGER CHECK (v > 0))');
    return db.run('INSERT INTO c VALUES (?)', [-1]);
  });
  see('error mid exec keeps earlier effects', () => {
    attempt(() => db.exec("INSERT INTO k (name) VALUES ('b'); INSERT INTO k (name) VALUES ('b'); INSERT INTO k (name) VALUES ('c')"));
    return db.exec('SELECT name FROM k ORDER BY id');
  });
  see('bind out of range', () => db.run('SELECT ?', [1, 2]));
  see('bind unknown type', () => db.run('SELECT ?', [{}]));
  see('bind undefined', () => db.run('SELECT ?', [undefined]));
  see('nothing to prepare', () => db.prepare(''));
  see('bigint out of range', () => db.run('SELECT ?', [2n ** 64n]));
  see('error is Error', () => {
    try {
      db.exec('SELECT * FROM missing_table');
    } catch (e) {
      return [e instanceof Error, typeof e.errcode];
    }
    return 'no error';
  });

  // Transactions.
  see('rollback', () => {
    db.run('BEGIN');
    db.run('INSERT INTO u VALUES (999)');
    db.run('ROLLBACK');
    return db.exec('SELECT count(*) FROM u WHERE x = 999');
  });
  see('commit', () => {
    db.exec('BEGIN; INSERT INTO u VALUES (1000); COMMIT;');
    return db.exec('SELECT count(*) FROM u WHERE x = 1000');
  });

  // Export / import round trip.
  see('export + reopen', () => {
    const bytes = db.export();
    const db2 = new SQL.Database(bytes);
    const out = {
      header: Array.from(bytes.subarray(0, 20)),
      pageAligned: bytes.length % 4096,
      tables: db2.exec("SELECT name, type FROM sqlite_schema ORDER BY name"),
      u: db2.exec('SELECT x FROM u ORDER BY rowid'),
      t: db2.exec('SELECT id, i, r, s, length(b), hex(substr(b, 1, 8)) FROM t WHERE length(s) < 1000 OR s IS NULL ORDER BY id'),
    };
    db2.close();
    return out;
  });
  see('statements survive export', () => {
    const st = db.prepare('SELECT count(*) FROM u');
    db.export();
    // sql.js frees statements on export; ours keep working. Compare only
    // what both agree on: the database still answers.
    attempt(() => st.free());
    return db.exec('SELECT count(*) FROM u');
  });
  see('export empty database', () => {
    const empty = new SQL.Database();
    const bytes = empty.export();
    empty.close();
    return bytes.length;
  });
  see('close twice', () => {
    const d = new SQL.Database();
    d.prepare('SELECT 1');
    d.close();
    d.close();
    return attempt(() => d.exec('SELECT 1'));
  });
  see('run after close', () => {
    const d = new SQL.Database();
    d.close();
    return d.run('SELECT 1');
  });
  db.close();
  return log;
}

test('the shared script gives identical results on our Database and on sql.js', () => {
  const a = script(ours);
  const b = script(theirs);
  assert.equal(a.length, b.length);
  for (let k = 0; k < a.length; k++) {
    assert.equal(a[k][0], b[k][0]);
    assert.deepStrictEqual(a[k][1], b[k][1], `step "${a[k][0]}" differs`);
  }
});

test('a database exported by one opens in the other', () => {
  const make = (SQL) => {
    const db = new SQL.Database();
    db.run('CREATE TABLE n (k TEXT PRIMARY KEY, v BLOB, w REAL)');
    const st = db.prepare('INSERT INTO n VALUES (?, ?, ?)');
    for (let k = 0; k < 500; k++) st.run([`key${k}`, new Uint8Array([k & 255, k >> 8]), k / 3]);
    st.free();
    const bytes = db.export();
    db.close();
    return bytes;
  };
  const read = (SQL, bytes) => {
    const db = new SQL.Database(bytes);
    const out = db.exec('SELECT count(*), sum(w), group_concat(hex(v), \'\') FROM n');
    const check = db.exec('PRAGMA integrity_check');
    db.close();
    return { out, check };
  };
  const fromTheirs = make(theirs);
  const fromOurs = make(ours);
  assert.deepStrictEqual(read(ours, fromTheirs), read(theirs, fromTheirs));
  assert.deepStrictEqual(read(theirs, fromOurs), read(ours, fromOurs));
  assert.deepStrictEqual(read(ours, fromOurs).check, [{ columns: ['integrity_check'], values: [['ok']] }]);
});

test('bad bytes given to new Database are refused with an Error naming the problem', () => {
  const good = (() => {
    const db = new ours.Database();
    db.run('CREATE TABLE a (x); INSERT INTO a VALUES (1), (2);');
    db.run(`INSERT INTO a SELECT randomblob(3000) FROM a, a, a`);
    const bytes = db.export();
    db.close();
    return bytes;
  })();
  assert.ok(good.length >= 3 * 4096);
  assert.throws(() => new ours.Database(new Uint8Array(0)), { message: /empty \(0 bytes\)/ });
  assert.throws(() => new ours.Database(new TextEncoder().encode('hello, this is not a database '.repeat(200))),
    { message: /not a SQLite database/ });
  assert.throws(() => new ours.Database(good.slice(0, good.length - 4096)), { message: /truncated: the header says \d+ pages/ });
  assert.throws(() => new ours.Database(good.slice(0, 5000)), { message: /truncated: 5000 bytes is not a whole number/ });
  assert.throws(() => new ours.Database(good.slice(0, 50)), { message: /shorter than the 100-byte header/ });
  const badPage = good.slice();
  badPage[16] = 0;
  badPage[17] = 3;
  assert.throws(() => new ours.Database(badPage), { message: /bad page size 3/ });
  // A damaged interior page passes the header checks; the full check finds it.
  const damaged = good.slice();
  damaged.fill(0x5a, 4096 + 8, 4096 + 200);
  assert.throws(() => ours.validateDatabaseBytes(damaged, 'copy.sqlite'), { message: /^copy\.sqlite / });
  // The good bytes still open.
  const db = new ours.Database(good);
  assert.deepStrictEqual(db.exec('SELECT count(*) FROM a')[0].values, [[10]]);
  db.close();
});

test('close() frees every statement and the connection', () => {
  const { Database } = ours;
  const Module = ours; // initPulse() resolves to the module itself, as initSqlJs does
  const before = Module.HEAPU8.length;
  for (let round = 0; round < 40; round++) {
    const db = new Database();
    db.run('CREATE TABLE x (v)');
    // ~2 MB per database: 40 leaked ones would not fit in the heap we started with.
    db.run('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO x SELECT randomblob(1000) FROM n');
    const st = db.prepare('INSERT INTO x VALUES (?)');
    st.run(['y'.repeat(1000)]);
    db.prepare('SELECT * FROM x').step(); // left unfreed, mid-step: close() must finalize it
    const copy = new Database(db.export());
    copy.close();
    db.close();
    assert.equal(db.db, null);
  }
  // Room for a round (the module starts with 16 MiB), none for 40 leaked ones.
  assert.ok(before >= 16 << 20 && before < 40 * (2 << 20), String(before));
  assert.equal(Module.HEAPU8.length, before);
});

test('the Pulse facade calls the core API and throws its errors with a code', () => {
  const db = new ours.Database();
  const pulse = new ours.Pulse(db);
  assert.equal(pulse.call('pulse.version').pulse, '0.1.0');
  const methods = pulse.call('pulse.methods', {}, { now: '2026-10-07T12:00:00Z' });
  assert.ok(methods.some((m) => m.name === 'pulse.version'));
  assert.throws(() => pulse.call('no.such.method'), (e) => e instanceof Error && e.code === 'not_found' && /no\.such\.method/.test(e.message));
  assert.throws(() => pulse.call('pulse.version', {}, { now: 'yesterday-ish' }), /not a valid time/);
  db.close();
  assert.throws(() => pulse.call('pulse.version'), /database is closed/);
});
