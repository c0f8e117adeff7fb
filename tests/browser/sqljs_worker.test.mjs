// The sql.js-compatible API in a real headless Chromium, inside dedicated
// module Workers: JS functions from SQL (create_function, create_aggregate,
// updateHook) with the module loaded the way the Pulse tab's worker loads it
// (web/pulse-worker.mjs: initPulse with locateFile under /wasm/), and
// sql.js's worker protocol served by wasm/sqljs-worker.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browserSkip, launchBrowser, makeTempDir, startStaticServer } from './helpers.mjs';

const skip = browserSkip(import.meta.url);
let server;
let ctx;
let page;
let cleanup;

before(async () => {
  if (skip) return;
  server = await startStaticServer();
  const tmp = makeTempDir();
  cleanup = tmp.cleanup;
  ctx = await launchBrowser(tmp.dir);
  page = await ctx.newPage();
  // Any page of the server: the workers below are same-origin with it.
  await page.goto(`${server.url}/wasm/result-codes.mjs`);
});
after(async () => {
  if (ctx) await ctx.close();
  if (server) await server.close();
  if (cleanup) cleanup();
});

// What the worker runs: the module loaded as web/pulse-worker.mjs loads it.
const WORKER_SOURCE = `
const wasmBase = new URL('/wasm/', self.location.origin);
self.onmessage = async () => {
  try {
    const { initPulse } = await import(new URL('sqljs-api.mjs', wasmBase).href);
    const SQL = await initPulse({ locateFile: (path) => new URL(path, wasmBase).href });
    const db = new SQL.Database();
    db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v)');
    const changes = [];
    db.updateHook((op, dbName, table, rowId) => changes.push(op + ' ' + table + ' ' + rowId));
    db.run('INSERT INTO t (v) VALUES (2), (4), (4), (9)');
    db.create_function('js_label', (v) => 'v=' + v);
    db.create_aggregate('js_product', { init: () => 1, step: (p, v) => p * v });
    db.create_function('js_fail', () => { throw new Error('refused in the worker'); });
    const row = db.exec('SELECT js_label(max(v)), js_product(v), mode(v), median(v) FROM t')[0].values[0];
    let error = null;
    try { db.exec('SELECT js_fail()'); } catch (e) { error = e.message; }
    db.close();
    self.postMessage({ row, changes, error, sameModule: SQL === await initPulse() });
  } catch (e) {
    self.postMessage({ failed: String(e && e.stack || e) });
  }
};`;

test('create_function, create_aggregate and updateHook in a module Worker', { skip }, async () => {
  const out = await page.evaluate(async (source) => {
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    const worker = new Worker(url, { type: 'module' });
    const reply = new Promise((resolve) => { worker.onmessage = (e) => resolve(e.data); });
    worker.postMessage('go');
    const data = await reply;
    worker.terminate();
    return data;
  }, WORKER_SOURCE);
  assert.equal(out.failed, undefined, out.failed);
  assert.deepEqual(out.row, ['v=9', 288, 4, 4]);
  assert.deepEqual(out.changes, ['insert t 1', 'insert t 2', 'insert t 3', 'insert t 4']);
  assert.equal(out.error, 'refused in the worker');
  assert.equal(out.sameModule, true);
});

test("sql.js's worker protocol from wasm/sqljs-worker.mjs", { skip }, async () => {
  const out = await page.evaluate(async () => {
    const worker = new Worker('/wasm/sqljs-worker.mjs', { type: 'module' });
    let next = 1;
    const ask = (msg) => new Promise((resolve) => {
      const id = next++;
      const onMessage = (e) => {
        if (e.data.id !== id || e.data.finished === false) return;
        worker.removeEventListener('message', onMessage);
        resolve(e.data);
      };
      worker.addEventListener('message', onMessage);
      worker.postMessage({ id, ...msg });
    });
    const opened = await ask({ action: 'open' });
    const exec = await ask({ action: 'exec', sql: 'CREATE TABLE t (v); INSERT INTO t VALUES (1), (3), (3); SELECT mode(v) AS m, count(*) AS n FROM t' });
    const modified = await ask({ action: 'getRowsModified' });
    const exported = await ask({ action: 'export' });
    const bad = await ask({ action: 'exec', sql: 'SELECT * FROM missing' });
    worker.terminate();
    return { opened, exec, modified, header: new TextDecoder().decode(exported.buffer.slice(0, 15)), bad };
  });
  assert.deepEqual(out.opened, { id: 1, ready: true });
  assert.deepEqual(out.exec.results, [{ columns: ['m', 'n'], values: [[3, 3]] }]);
  assert.equal(out.modified.rowsModified, 3);
  assert.equal(out.header, 'SQLite format 3');
  assert.equal(out.bad.error, 'no such table: missing');
});
