// OPFS storage in a real headless Chromium: the demo page (web/opfs-demo.html)
// drives the worker (web/pulse-worker.mjs) that owns the WASM module and the
// pool. A copy imported there keeps every committed row across a reload and
// a browser restart; bad files never clobber it; a second tab works through
// the first tab's worker and takes the pool over when the first closes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { browserSkip, launchBrowser, makeTempDir, screenshot, startStaticServer, ROOT } from './helpers.mjs';

const skip = browserSkip(import.meta.url);
let server;
let api;

before(async () => {
  if (skip) return;
  server = await startStaticServer();
  const { initPulse } = await import(pathToFileURL(join(ROOT, 'build', 'wasm', 'sqljs-api.mjs')).href);
  api = await initPulse({ wasmBinary: readFileSync(join(ROOT, 'build', 'wasm', 'pulse.wasm')) });
});
after(async () => {
  if (server) await server.close();
});

// A workflow-like database made with the real module in Node.
function makeDatabase(rows = 300) {
  const db = new api.Database();
  db.run('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, payload BLOB)');
  db.run('CREATE INDEX items_name ON items (name)');
  const st = db.prepare('INSERT INTO items (name, payload) VALUES (?, ?)');
  for (let i = 0; i < rows; i++) st.run([`item ${i}`, new Uint8Array(200).fill(i & 255)]);
  st.free();
  const bytes = db.export();
  db.close();
  return bytes;
}

async function openDemo(page) {
  await page.goto(`${server.url}/opfs-demo.html`);
  return page.evaluate(() => window.demoReady);
}

// Imports `file` through the page's file input as copy `name`; returns the
// status line once the import has finished (either way).
async function importThroughUi(page, name, file) {
  await page.fill('#copy-name', name);
  const before = await page.textContent('#status');
  await page.setInputFiles('#file', file);
  await page.waitForFunction((prev) => {
    const s = document.getElementById('status').textContent;
    return s !== prev && !s.startsWith('importing');
  }, before);
  return {
    text: await page.textContent('#status'),
    isError: (await page.getAttribute('#status', 'class')) === 'error',
  };
}

const count = (page, name, sql) =>
  page.evaluate(async ([n, q]) => (await window.pulse.exec(n, q))[0].values[0][0], [name, sql]);

test('an imported copy keeps every committed row across a reload and a browser restart', { skip }, async () => {
  const { dir, cleanup } = makeTempDir();
  try {
    const dbFile = join(dir, 'workflow.sqlite');
    writeFileSync(dbFile, makeDatabase(300));
    const profile = join(dir, 'profile');

    let ctx = await launchBrowser(profile);
    let page = await ctx.newPage();
    const info = await openDemo(page);
    assert.equal(info.opfs, true, JSON.stringify(info));
    const imported = await importThroughUi(page, 'workflow.sqlite', dbFile);
    assert.equal(imported.isError, false, imported.text);
    assert.match(imported.text, /imported workflow\.sqlite as workflow\.sqlite/);

    // A write through the page's SQL box.
    await page.fill('#sql', "INSERT INTO items (name) VALUES ('typed in the page')");
    await page.click('#run');
    await page.waitForFunction(() => document.getElementById('result').textContent === 'changes: 1');
    // Twenty separate commits, then one large transaction.
    await page.evaluate(async () => {
      for (let i = 0; i < 20; i++) await window.pulse.run('workflow.sqlite', 'INSERT INTO items (name) VALUES (?)', [`commit ${i}`]);
      await window.pulse.exec('workflow.sqlite',
        "BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) INSERT INTO items (name, payload) SELECT 'bulk ' || i, randomblob(100) FROM n; COMMIT;");
    });
    // A transaction left open with more than the page cache holds, so SQLite
    // spills pages into the database file: only its journal can undo that.
    await page.evaluate(async () => {
      await window.pulse.exec('workflow.sqlite',
        "BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO items (name, payload) SELECT 'uncommitted ' || i, randomblob(2000) FROM n;");
    });
    const expected = 300 + 1 + 20 + 5000;
    assert.equal(await count(page, 'workflow.sqlite', "SELECT count(*) FROM items WHERE name NOT LIKE 'uncommitted %'"), expected);
    await screenshot(page, 'opfs-1-imported-and-written');

    // Reload: a new worker, the same OPFS files.
    await page.reload();
    const afterReload = await page.evaluate(() => window.demoReady);
    assert.equal(afterReload.opfs, true, JSON.stringify(afterReload));
    assert.deepEqual(afterReload.copies.map((c) => c.name), ['workflow.sqlite']);
    assert.equal(await count(page, 'workflow.sqlite', 'SELECT count(*) FROM items'), expected);
    assert.equal(await count(page, 'workflow.sqlite', "SELECT count(*) FROM items WHERE name = 'typed in the page'"), 1);
    assert.equal(await count(page, 'workflow.sqlite', "SELECT count(*) FROM items WHERE name LIKE 'commit %'"), 20);
    assert.equal(await count(page, 'workflow.sqlite', "SELECT count(*) FROM items WHERE name LIKE 'uncommitted %'"), 0);
    assert.equal(await count(page, 'workflow.sqlite', 'PRAGMA integrity_check'), 'ok');
    await screenshot(page, 'opfs-2-after-reload');

    // Restart the browser on the same profile.
    await ctx.close();
    ctx = await launchBrowser(profile);
    page = await ctx.newPage();
    const afterRestart = await openDemo(page);
    assert.equal(afterRestart.opfs, true, JSON.stringify(afterRestart));
    assert.equal(afterRestart.copies[0].name, 'workflow.sqlite');
    assert.match(afterRestart.copies[0].importedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await page.waitForSelector('td[data-table="items"]');
    assert.equal(await page.textContent('td[data-table="items"]'), String(expected));
    assert.equal(await count(page, 'workflow.sqlite', "SELECT count(*) FROM items WHERE name LIKE 'bulk %'"), 5000);
    assert.equal(await count(page, 'workflow.sqlite', 'SELECT sum(length(payload)) FROM items WHERE id <= 300'), 300 * 200);

    // The exported bytes are the same database, readable outside the browser.
    const exported = await page.evaluate(async () => {
      const { bytes } = await window.pulse.export('workflow.sqlite');
      let s = '';
      for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(s);
    });
    const copy = new api.Database(Buffer.from(exported, 'base64'));
    assert.deepEqual(copy.exec('SELECT count(*) FROM items')[0].values, [[expected]]);
    assert.deepEqual(copy.exec('PRAGMA integrity_check')[0].values, [['ok']]);
    copy.close();
    await screenshot(page, 'opfs-3-after-browser-restart');
    await ctx.close();
  } finally {
    cleanup();
  }
});

test('a non-SQLite, a truncated and an empty file are refused and the existing copy stays intact', { skip }, async () => {
  const { dir, cleanup } = makeTempDir();
  try {
    const good = makeDatabase(400);
    assert.ok(good.length > 3 * 4096);
    const files = {
      good: join(dir, 'good.sqlite'),
      notSqlite: join(dir, 'notes.sqlite'),
      truncated: join(dir, 'truncated.sqlite'),
      cutOnPage: join(dir, 'cut-on-page.sqlite'),
      empty: join(dir, 'empty.sqlite'),
    };
    writeFileSync(files.good, good);
    writeFileSync(files.notSqlite, 'these are my notes, not a database\n'.repeat(500));
    writeFileSync(files.truncated, good.subarray(0, good.length - 1000));
    writeFileSync(files.cutOnPage, good.subarray(0, good.length - 4096));
    writeFileSync(files.empty, new Uint8Array(0));

    const ctx = await launchBrowser(join(dir, 'profile'));
    const page = await ctx.newPage();
    await openDemo(page);
    const ok = await importThroughUi(page, 'pulse.sqlite', files.good);
    assert.equal(ok.isError, false, ok.text);
    await page.evaluate(() => window.pulse.run('pulse.sqlite', "INSERT INTO items (name) VALUES ('written after import')"));
    const sizeBefore = (await page.evaluate(() => window.pulse.list())).copies[0].size;

    const cases = [
      ['notSqlite', /not a SQLite database \(no "SQLite format 3" header\)/],
      ['truncated', /truncated: \d+ bytes is not a whole number of 4096-byte pages/],
      ['cutOnPage', /truncated: the header says \d+ pages/],
      ['empty', /empty \(0 bytes\)/],
    ];
    for (const [which, pattern] of cases) {
      const refused = await importThroughUi(page, 'pulse.sqlite', files[which]);
      assert.equal(refused.isError, true, `${which}: ${refused.text}`);
      assert.match(refused.text, /^import refused: the file for copy "pulse\.sqlite" /);
      assert.match(refused.text, pattern);
      await screenshot(page, `opfs-refused-${which}`);
      const { copies } = await page.evaluate(() => window.pulse.list());
      assert.deepEqual(copies.map((c) => [c.name, c.size]), [['pulse.sqlite', sizeBefore]], which);
      assert.equal(await count(page, 'pulse.sqlite', 'SELECT count(*) FROM items'), 401, which);
      assert.equal(await count(page, 'pulse.sqlite', "SELECT count(*) FROM items WHERE name = 'written after import'"), 1);
    }
    // Still intact after a reload (nothing half-written on disk either).
    await page.reload();
    await page.evaluate(() => window.demoReady);
    assert.equal(await count(page, 'pulse.sqlite', 'SELECT count(*) FROM items'), 401);
    assert.equal(await count(page, 'pulse.sqlite', 'PRAGMA integrity_check'), 'ok');

    // Bad names are refused too, naming the name.
    const badName = await page.evaluate(() => window.pulse.import('../x', new Uint8Array(0)).catch((e) => e.message));
    assert.match(badName, /^invalid copy name "\.\.\/x"/);
    await ctx.close();
  } finally {
    cleanup();
  }
});

test('a second tab works through the first tab\'s worker, and takes the pool over when the first closes', { skip }, async () => {
  const { dir, cleanup } = makeTempDir();
  try {
    const ctx = await launchBrowser(join(dir, 'profile'));
    const first = await ctx.newPage();
    assert.equal((await openDemo(first)).opfs, true);
    await first.evaluate(() => window.pulse.open('one.sqlite', { create: true }));
    await first.evaluate(() => window.pulse.exec('one.sqlite', 'CREATE TABLE t(x); INSERT INTO t VALUES (1)'));
    const second = await ctx.newPage();
    const shared = await openDemo(second);
    assert.equal(shared.opfs, true, JSON.stringify(shared));
    assert.equal(shared.sharedWith, 'another Pulse tab');
    assert.deepEqual(shared.copies.map((c) => c.name), ['one.sqlite']);
    // Reads and writes from the second tab go through the first tab's worker.
    await second.evaluate(() => window.pulse.run('one.sqlite', 'INSERT INTO t VALUES (2)'));
    assert.equal(await count(first, 'one.sqlite', 'SELECT count(*) FROM t'), 2);
    // The first tab closes: the second's worker opens the pool and goes on.
    await first.close();
    assert.equal(await count(second, 'one.sqlite', 'SELECT sum(x) FROM t'), 3);
    await second.evaluate(() => window.pulse.run('one.sqlite', 'INSERT INTO t VALUES (3)'));
    assert.equal(await count(second, 'one.sqlite', 'SELECT count(*) FROM t'), 3);
    await screenshot(second, 'opfs-second-tab-owner');
    await ctx.close();
  } finally {
    cleanup();
  }
});

test('outside a dedicated worker the pool says OPFS is not available', { skip }, async () => {
  const { dir, cleanup } = makeTempDir();
  try {
    const ctx = await launchBrowser(join(dir, 'profile'));
    const page = await ctx.newPage();
    await page.goto(`${server.url}/opfs-demo.html`);
    const message = await page.evaluate(async () => {
      const { openOpfsPool } = await import('/wasm/opfs-pool.mjs');
      return openOpfsPool({ Module: {} }).then(() => 'opened', (e) => e.message);
    });
    assert.match(message, /^OPFS is not available in this browser context/);
    await ctx.close();
  } finally {
    cleanup();
  }
});

test('the worker protocol: init, import with progress, list, exec, run, call, export, delete, errors', { skip }, async () => {
  const { dir, cleanup } = makeTempDir();
  try {
    const ctx = await launchBrowser(join(dir, 'profile'));
    const page = await ctx.newPage();
    assert.deepEqual((await openDemo(page)).copies, []);
    const out = await page.evaluate(async () => {
      const p = window.pulse;
      const r = {};
      // A ~10 MB database made in the worker, exported, then imported as a copy.
      r.created = await p.open('seed.sqlite', { create: true });
      await p.exec('seed.sqlite', 'CREATE TABLE big (id INTEGER PRIMARY KEY, data BLOB); ' +
        'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500) INSERT INTO big (data) SELECT randomblob(4000) FROM n');
      const bytes = (await p.export('seed.sqlite')).bytes;
      await p.delete('seed.sqlite');
      r.size = bytes.length;
      const progress = [];
      r.imported = await p.import('big.sqlite', bytes, (loaded, total) => progress.push([loaded, total]));
      r.progress = progress;
      r.callerBytesKept = bytes.length;
      r.list = (await p.list()).copies;
      r.exec = await p.exec('big.sqlite', 'SELECT count(*) AS n, :tag AS tag, x\'cafe\' AS blob FROM big WHERE id > $min', { ':tag': 't', $min: 100 });
      r.blobIsBytes = r.exec[0].values[0][2] instanceof Uint8Array;
      r.clock = (await p.exec('big.sqlite', "SELECT datetime('now') > '2020-01-01', julianday('now') > 2458849.5"))[0].values[0];
      r.run = await p.run('big.sqlite', 'DELETE FROM big WHERE id > ?', [2000]);
      r.version = await p.call('big.sqlite', 'pulse.version', {});
      r.badCall = await p.call('big.sqlite', 'no.such.method', {}).catch((e) => ({ message: e.message, code: e.code, operation: e.operation }));
      r.badSql = await p.exec('big.sqlite', 'SELEC 1').catch((e) => ({ message: e.message, operation: e.operation }));
      const exported = await p.export('big.sqlite');
      r.exportedLength = exported.bytes.length;
      r.exportedHeader = new TextDecoder().decode(exported.bytes.subarray(0, 15));
      r.deleted = await p.delete('big.sqlite');
      r.afterDelete = (await p.list()).copies;
      r.missing = await p.exec('big.sqlite', 'SELECT 1').catch((e) => e.message);
      // The raw envelope, on a worker that never initialised.
      r.raw = await new Promise((resolve) => {
        const w = new Worker('/pulse-worker.mjs', { type: 'module' });
        const got = [];
        w.onmessage = (e) => {
          got.push(e.data);
          if (got.length === 2) {
            w.terminate();
            resolve(got);
          }
        };
        w.postMessage({ type: 'bogus', messageId: 7, args: {} });
        w.postMessage({ type: 'list', messageId: 8 });
      });
      return r;
    });
    assert.deepEqual(out.created, { name: 'seed.sqlite', open: true });
    assert.ok(out.size > 10e6, String(out.size));
    assert.deepEqual(out.imported, { name: 'big.sqlite', size: out.size });
    assert.ok(out.progress.length >= 2, JSON.stringify(out.progress));
    assert.deepEqual(out.progress.at(-1), [out.size, out.size]);
    assert.equal(out.callerBytesKept, out.size);
    assert.equal(out.list.length, 1);
    assert.equal(out.list[0].name, 'big.sqlite');
    assert.equal(out.list[0].size, out.size);
    assert.deepEqual(out.exec[0].columns, ['n', 'tag', 'blob']);
    assert.deepEqual(out.exec[0].values[0].slice(0, 2), [2400, 't']);
    assert.equal(out.blobIsBytes, true);
    // The VFS's clock (xCurrentTimeInt64) answers datetime('now').
    assert.deepEqual(out.clock, [1, 1]);
    assert.deepEqual(out.run, { changes: 500 });
    assert.equal(out.version.pulse, '0.1.0');
    assert.deepEqual(out.badCall, { message: 'unknown method "no.such.method"', code: 'not_found', operation: 'call' });
    assert.deepEqual(out.badSql, { message: 'near "SELEC": syntax error', operation: 'exec' });
    assert.equal(out.exportedHeader, 'SQLite format 3');
    assert.ok(out.exportedLength > 0 && out.exportedLength % 4096 === 0);
    assert.deepEqual(out.deleted, { name: 'big.sqlite', deleted: true });
    assert.deepEqual(out.afterDelete, []);
    assert.equal(out.missing, 'no copy named "big.sqlite" in OPFS');
    assert.deepEqual(out.raw, [
      { type: 'error', messageId: 7, result: { operation: 'bogus', message: 'unknown message type "bogus"' } },
      { type: 'error', messageId: 8, result: { operation: 'list', message: 'the Pulse worker is not initialised: send "init" first' } },
    ]);
    await ctx.close();
  } finally {
    cleanup();
  }
});
