// Inspect's engine (web/inspect/engine.mjs) on the real WASM module: the
// read-only guard (wasm/sqljs-guard.mjs) refuses every write in one line and
// leaves the bytes as they were; the progress handler stops a runaway query;
// keyset pages walk a table exactly once in both directions, NULLs and ties
// included; the b-tree estimate; errors with their position; CSV a real
// CSV reader (Python's) reads back.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { WASM_DIR, ROOT, PULSE_BIN, makeTempDir } from './helpers.mjs';
import { skipUnless, fileNeed, missingOf } from '../strict.mjs';

const skip = skipUnless(import.meta.url, missingOf([fileNeed(join(WASM_DIR, 'pulse.wasm'), 'run scripts/setup.sh')]));
const web = (p) => import(pathToFileURL(join(ROOT, 'web', 'inspect', p)).href);

const skipCli = skip || skipUnless(import.meta.url, missingOf([fileNeed(PULSE_BIN, 'run scripts/setup.sh')]));

let SQL;
let engineMod;
let sqlMod;
let btree;

before(async () => {
  if (skip) return;
  const { bindApi } = await import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href);
  const create = (await import(pathToFileURL(join(WASM_DIR, 'pulse.mjs')).href)).default;
  SQL = bindApi(await create({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) }));
  engineMod = await web('engine.mjs');
  sqlMod = await web('sql.mjs');
  btree = await web('btree.mjs');
});

// An engine over `bytes` (a database image) opened in memory, as the
// worker opens a File: the same guard, the same progress handler.
function engineOver(bytes, isCancelled = () => false, options = {}) {
  const openFile = () => {
    const db = new SQL.Database(bytes);
    return { db, handle: { readAt: (offset, n) => bytes.slice(offset, offset + n) } };
  };
  const e = new engineMod.InspectEngine(SQL, openFile, isCancelled, options);
  e.open({ size: bytes.length }, {});
  return e;
}

function makeDb(sql) {
  const db = new SQL.Database();
  db.run(sql);
  const bytes = db.export();
  db.close();
  return bytes;
}

const LOG = `CREATE TABLE log(id TEXT PRIMARY KEY, kind TEXT, status TEXT, note TEXT, n INTEGER);
  CREATE INDEX log_status ON log(status);
  WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 1000)
  INSERT INTO log SELECT printf('a%04d', i), CASE i % 3 WHEN 0 THEN 'gate' WHEN 1 THEN 'fixer' ELSE 'reviewer' END,
    CASE WHEN i % 10 = 0 THEN 'running' ELSE 'completed' END,
    CASE WHEN i % 7 = 0 THEN NULL ELSE 'note ' || (i % 13) END, i % 50 FROM s;`;

test('a write of any kind is refused in one line and the bytes stay as they were', { skip }, () => {
  const bytes = makeDb(LOG);
  const e = engineOver(bytes);
  const writes = {
    'DELETE FROM log': /^Refused: DELETE from log;/,
    "UPDATE log SET status = 'x'": /^Refused: UPDATE of log\.status;/,
    "INSERT INTO log(id) VALUES('z')": /^Refused: INSERT into log;/,
    "ATTACH DATABASE ':memory:' AS other": /^Refused: ATTACH of ":memory:";/,
    'PRAGMA journal_mode = WAL': /^Refused: PRAGMA journal_mode = WAL;/,
    'PRAGMA journal_mode': /^Refused: PRAGMA journal_mode;/,
    'PRAGMA user_version = 7': /^Refused: PRAGMA user_version = 7;/,
    'CREATE TEMP TABLE t(a)': /^Refused: CREATE TEMP TABLE t\(a\) would change the temporary schema;/,
    'DROP TABLE log': /^Refused: DROP TABLE log would change the schema;/,
    'BEGIN': /^Refused: BEGIN \(a transaction\);/,
    'SAVEPOINT s1': /^Refused: SAVEPOINT s1;/,
    'ANALYZE': /^Refused: ANALYZE would change the schema;/,
    "VACUUM INTO 'x.db'": /^Refused: VACUUM would write;/,
  };
  for (const [sql, re] of Object.entries(writes)) {
    assert.throws(() => e.query(sql), (err) => {
      assert.match(err.message, re, sql);
      assert.ok(!err.message.includes('\n'), `${sql}: one line`);
      assert.equal(err.refused, true, sql);
      return true;
    });
  }
  // What only reads goes through.
  assert.equal(e.query('SELECT count(*) FROM log').rows[0][0], 1000);
  assert.ok(e.query('PRAGMA table_info(log)').rows.length === 5);
  assert.equal(e.query('PRAGMA user_version').rows[0][0], 0);
  assert.ok(e.query('WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5) SELECT sum(i) FROM c').rows[0][0] === 15);
  // The connection's own copy of the bytes is what it was.
  assert.deepEqual(e.db.export(), bytes);
  assert.equal(e.query('SELECT count(*) FROM log').rows[0][0], 1000);
});

test('a runaway recursive query is stopped by the progress handler', { skip }, () => {
  let stopAt = Infinity;
  const e = engineOver(makeDb(LOG), () => Date.now() > stopAt);
  stopAt = Date.now() + 150;
  const t0 = Date.now();
  assert.throws(() => e.query('WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r'),
    (err) => err.cancelled === true && err.message === 'Cancelled');
  assert.ok(Date.now() - t0 < 1000, `stopped after ${Date.now() - t0} ms`);
  // The connection is usable at once.
  stopAt = Infinity;
  assert.equal(e.query('SELECT count(*) FROM log').rows[0][0], 1000);
});

// A workflow database written by the real `pulse` program (its schema, its
// rows): a failed and a completed run, their agents (two still running), a
// decision recommended, answered and with its outcome, and the guard's
// decisions on two tool calls (one refused).
function workflowDbBytes(t) {
  const { dir, cleanup } = makeTempDir('pulse-inspect-points-');
  t.after(cleanup);
  const ws = join(dir, 'ws');
  const wf = join(ws, 'Workflow', 'demo');
  mkdirSync(wf, { recursive: true });
  writeFileSync(join(wf, 'workflow.json'), '{}');
  const pulse = (args, input) => {
    const r = spawnSync(PULSE_BIN, [...args, '--workspace', ws, '--workflow', 'demo', '--now', '2026-10-07T12:00:00Z'],
      { encoding: 'utf8', input });
    return r;
  };
  const must = (args, input) => {
    const r = pulse(args, input);
    assert.equal(r.status, 0, `pulse ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  for (const [n, status, day] of [[1, 'completed', '2026-10-05'], [2, 'failed', '2026-10-06']]) {
    const run = join(wf, 'runs', `iteration-${n}`, 'default');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'run.json'), JSON.stringify({ run_id: `r-${n}`, started_at: `${day}T09:00:00Z`,
      finished_at: `${day}T09:40:00Z`, status, trigger: 'schedule:morning', error: status === 'failed' ? 'export timed out' : '' }));
    writeFileSync(join(run, 'route_selection.json'), '{"route": "growth_funnel"}');
    must(['finalize-run', '--run-dir', run]);
  }
  const events = [
    { event: 'started', session: 'run-r-1', agent: 'gate', kind: 'gate', pulse_run_id: 'r-1', at: '2026-10-05T09:01:00Z' },
    { event: 'completed', session: 'run-r-1', agent: 'gate', status: 'completed', result: 'nothing due', at: '2026-10-05T09:02:00Z' },
    { event: 'started', session: 'run-r-2', agent: 'export', kind: 'call_sub_agent', pulse_run_id: 'r-2', at: '2026-10-06T09:01:00Z' },
    { event: 'started', session: 'run-r-2', agent: 'watch', kind: 'run_in_background', pulse_run_id: 'r-2', at: '2026-10-06T09:02:00Z' },
  ];
  must(['agent-log', 'batch'], events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const id = must(['decision', 'create', '--question', 'Resume the schedules?', '--option', 'yes', '--option', 'no']).trim().match(/\d+/)[0];
  must(['decision', 'recommend', '--id', id, '--option', 'yes', '--why', 'the export works again', '--confidence', 'high']);
  must(['decision', 'answer', '--id', id, '--accept']);
  must(['decision', 'outcome', '--id', id, '--result', 'two runs completed']);
  const { token } = JSON.parse(must(['session', 'open', '--turn', 'goal_check']));
  writeFileSync(join(dir, 'token'), `${token}\n`);
  assert.equal(pulse(['tool', '--token-file', join(dir, 'token'), '--tool', 'run_workflow']).status, 1);
  must(['tool', '--token-file', join(dir, 'token'), '--tool', 'notify_user', '--args', '{"message": "hi"}']);
  return new Uint8Array(readFileSync(join(wf, 'db', 'db.sqlite')));
}

test('every starting point runs on a real workflow database and answers its question', { skip: skipCli }, async (t) => {
  const { STARTING_POINTS, startingSql } = await web('starting-points.mjs');
  const e = engineOver(workflowDbBytes(t));
  const names = new Set(e.listObjects().objects.map((o) => o.name));
  const answers = {};
  for (const s of STARTING_POINTS) {
    assert.ok(s.tables.every((n) => names.has(n)), `${s.label}: its tables are in a workflow database`);
    const sql = await startingSql(s, (q) => e.query(q));
    const r = e.query(sql);
    answers[s.id] = r.rows.map((row) => Object.fromEntries(r.columns.map((c, i) => [c, row[i]])));
  }
  assert.deepEqual(answers.running.map((r) => [r.agent_id, r.pulse_run_id]), [['export', 'r-2'], ['watch', 'r-2']]);
  // The newest run is filled in.
  assert.deepEqual(answers.run.map((r) => [r.agent_id, r.status]), [['export', 'running'], ['watch', 'running']]);
  assert.deepEqual(answers.failed.map((r) => [r.run_id, r.status, r.error]), [['r-2', 'failed', 'export timed out']]);
  assert.deepEqual(answers.decisions.map((r) => [r.question, r.status, r.recommended, r.confidence, r.answer_kind, r.answer, r.outcome]),
    [['Resume the schedules?', 'answered', 'yes', 'high', 'accepted', 'yes', 'two runs completed']]);
  assert.deepEqual(answers.refusals.map((r) => [r.rule, r.refusals, r.tools]), [['run_level', 1, 'run_workflow']]);
  assert.deepEqual(answers['agents-per-run'].map((r) => [r.run_id, r.agents, r.still_running]), [['r-2', 2, 2], ['r-1', 1, 0]]);
});

// Every page forward, then every page backward from the end: the rows of
// ORDER BY sort, id exactly once each way.
function walk(e, view, total) {
  const seen = [];
  let page = e.page({ ...view, table: 'log' });
  assert.equal(page.hasPrev, false);
  for (;;) {
    seen.push(...page.rows.map((r) => r[0]));
    if (!page.hasNext) break;
    page = e.page({ ...view, table: 'log', after: page.last });
  }
  assert.equal(seen.length, total);
  const back = [];
  page = e.page({ ...view, table: 'log', last: true });
  assert.equal(page.hasNext, false);
  for (;;) {
    back.unshift(...page.rows.map((r) => r[0]));
    if (!page.hasPrev) break;
    page = e.page({ ...view, table: 'log', before: page.first });
  }
  assert.deepEqual(back, seen);
  return seen;
}

test('keyset pages walk a table exactly once both ways: any sort, NULLs, ties, filters', { skip }, () => {
  const e = engineOver(makeDb(LOG));
  const ids = (sql) => e.query(sql).rows.map((r) => r[0]);
  assert.deepEqual(walk(e, { filters: [] }, 1000), ids('SELECT id FROM log ORDER BY rowid'));
  // note has NULLs (first going up, last going down) and many ties.
  assert.deepEqual(walk(e, { sort: 'note', dir: 'asc', filters: [] }, 1000), ids('SELECT id FROM log ORDER BY note, rowid'));
  assert.deepEqual(walk(e, { sort: 'note', dir: 'desc', filters: [] }, 1000), ids('SELECT id FROM log ORDER BY note DESC, rowid DESC'));
  assert.deepEqual(walk(e, { sort: 'n', dir: 'desc', filters: [{ col: 'status', op: 'eq', value: 'running' }] }, 100),
    ids("SELECT id FROM log WHERE status = 'running' ORDER BY n DESC, rowid DESC"));
  assert.deepEqual(walk(e, { sort: 'note', dir: 'asc', filters: [{ col: 'note', op: 'null' }] }, 142),
    ids('SELECT id FROM log WHERE note IS NULL ORDER BY rowid'));
  // Page 10 is a seek, not a skip: its plan reads the key's index.
  const p = e.page({ table: 'log', sort: 'status', dir: 'asc', filters: [], after: ['completed', 500] });
  assert.equal(p.rows[0][0], 'a0501');
  assert.equal(p.scan, false);
});

// The work a page costs, in SQLite's own steps: the progress handler is
// called every few thousand virtual-machine steps (engine.mjs), so its
// calls count what a statement did, whatever the machine's speed.
function stepsOf(e, calls, fn) {
  const before = calls.n;
  const out = fn();
  return { out, steps: calls.n - before };
}

test('a deep page costs what the first does: sorted either way, filtered by a rare or a common value, with statistics or without', { skip }, () => {
  // 60,000 agents: 12 running, the rest completed; started_at NOT NULL and
  // indexed; note nullable and indexed. With ANALYZE's statistics SQLite
  // takes "running" for a third of the table; without them it takes
  // "completed" for a few rows.
  const rows = 60000;
  const base = `CREATE TABLE log(id TEXT PRIMARY KEY, status TEXT NOT NULL, started_at TEXT NOT NULL, note TEXT, kind TEXT);
    CREATE INDEX log_status ON log(status, started_at); CREATE INDEX log_start ON log(started_at); CREATE INDEX log_note ON log(note);
    WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${rows})
    INSERT INTO log SELECT printf('a%06d', i), CASE WHEN i % 5000 = 0 THEN 'running' ELSE 'completed' END,
      printf('2026-%02d-%02dT%02d:%02d:00Z', 1 + i % 12, 1 + i % 28, i % 24, i % 60),
      CASE WHEN i % 3 = 0 THEN NULL ELSE 'n' || (i % 1000) END, 'k' || (i % 4) FROM s;`;
  for (const analyzed of [false, true]) {
    const calls = { n: 0 };
    const e = engineOver(makeDb(`${base}${analyzed ? ' ANALYZE;' : ''}`), () => { calls.n++; return false; });
    const table = 'log';
    const tail = (sort, dir) => e.query(`SELECT ${sort}, rowid FROM log ORDER BY ${sort} ${dir}, rowid ${dir} LIMIT 1 OFFSET ${rows - 150}`).rows[0];
    const cases = {
      'sorted by started_at, descending, near the end': { sort: 'started_at', dir: 'desc', after: tail('started_at', 'DESC') },
      'sorted by started_at, ascending, near the end': { sort: 'started_at', dir: 'asc', after: tail('started_at', 'ASC') },
      'sorted by note (NULLs), descending, near the end': { sort: 'note', dir: 'desc', after: tail('note', 'DESC') },
      'status = running': { filters: [{ col: 'status', op: 'eq', value: 'running' }] },
      'status = completed': { filters: [{ col: 'status', op: 'eq', value: 'completed' }] },
      'status = running, by started_at descending': { sort: 'started_at', dir: 'desc', filters: [{ col: 'status', op: 'eq', value: 'running' }] },
      'status = completed, by started_at descending': { sort: 'started_at', dir: 'desc', filters: [{ col: 'status', op: 'eq', value: 'completed' }] },
    };
    for (const [what, v] of Object.entries(cases)) {
      const view = { table, filters: [], ...v };
      const { out, steps } = stepsOf(e, calls, () => e.page(view));
      assert.ok(steps <= 25, `${what}${analyzed ? ' (analyzed)' : ''}: ${steps} progress calls (${steps * 4000} steps or more)`);
      assert.ok(out.rows.length > 0, what);
      assert.equal(out.scan, false, `${what}: an index serves it`);
      assert.equal(out.sort, false, `${what}: no sort of every row`);
    }
    // And the rows are right: the running ones, newest first.
    const running = e.page({ table, sort: 'started_at', dir: 'desc', filters: [{ col: 'status', op: 'eq', value: 'running' }] });
    assert.deepEqual(running.rows.map((r) => r[0]),
      e.query("SELECT id FROM log WHERE status = 'running' ORDER BY started_at DESC, rowid DESC").rows.map((r) => r[0]));
    const completed = e.page({ table, filters: [{ col: 'status', op: 'eq', value: 'completed' }], after: [30000] });
    assert.deepEqual(completed.rows.map((r) => r[0]),
      e.query("SELECT id FROM log WHERE status = 'completed' AND rowid > 30000 ORDER BY rowid LIMIT 100").rows.map((r) => r[0]));
    assert.equal(completed.dense, true);
  }
});

test('filters: = contains (LIKE wildcards taken literally) < > is null; a filter no index serves says it scans', { skip }, () => {
  const e = engineOver(makeDb(`${LOG} INSERT INTO log VALUES('x1', 'gate', 'completed', '50%_off', 1);`));
  const count = (filters) => e.count('log', filters).count;
  assert.equal(count([{ col: 'status', op: 'eq', value: 'running' }]), 100);
  assert.equal(count([{ col: 'note', op: 'contains', value: '%_' }]), 1);
  assert.equal(count([{ col: 'note', op: 'contains', value: 'NOTE 1' }]), count([{ col: 'note', op: 'contains', value: 'note 1' }]));
  assert.equal(count([{ col: 'n', op: 'lt', value: '10' }, { col: 'n', op: 'gt', value: '4' }]), e.query('SELECT count(*) FROM log WHERE n < 10 AND n > 4').rows[0][0]);
  assert.equal(count([{ col: 'note', op: 'null' }]), 142);
  assert.equal(count([{ col: 'note', op: 'notnull' }]), 859);
  assert.equal(e.page({ table: 'log', filters: [{ col: 'kind', op: 'eq', value: 'gate' }] }).scan, true);
  assert.equal(e.page({ table: 'log', filters: [{ col: 'status', op: 'eq', value: 'running' }] }).scan, false);
  assert.throws(() => e.page({ table: 'log', filters: [{ col: 'nope', op: 'eq', value: 'x' }] }), /filter: no column "nope"/);
  const facet = e.facet('log', 'kind', [{ col: 'status', op: 'eq', value: 'running' }]);
  assert.deepEqual(facet.values.map((v) => v.value).sort(), ['fixer', 'gate', 'reviewer']);
  assert.equal(facet.values.reduce((s, v) => s + v.n, 0), 100);
});

test('the table list: columns, types, indexes, row identity; rows from the b-tree at once, exact ones next, estimates past the limit', { skip }, () => {
  const bytes = makeDb(`${LOG} CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID; INSERT INTO kv VALUES('a', 1);
    CREATE VIEW running AS SELECT * FROM log WHERE status = 'running';`);
  const e = engineOver(bytes);
  const { objects } = e.listObjects();
  const log = objects.find((o) => o.name === 'log');
  // The list reads no table whole: the log's rows are its b-tree's estimate, counted next.
  assert.equal(log.estimated, true);
  assert.equal(log.counting, true);
  assert.ok(Math.abs(log.rows - 1000) < 200, `estimated ${log.rows}`);
  assert.deepEqual([objects.find((o) => o.name === 'kv').rows, objects.find((o) => o.name === 'kv').estimated], [1, false]);
  const exact = e.exactRows('log');
  assert.deepEqual([exact.name, exact.rows, exact.estimated], ['log', 1000, false]);
  assert.equal(e.object('log').counting, false);
  // Past the limit (a million; 500 here) the estimate stays, said so.
  const capped = engineOver(bytes, () => false, { exactLimit: 500 });
  const big = capped.listObjects().objects.find((o) => o.name === 'log');
  assert.deepEqual([big.estimated, big.counting], [true, false]);
  assert.equal(capped.exactRows('log').estimated, true);
  assert.deepEqual(log.ids, ['rowid']);
  assert.deepEqual(log.columnInfo.map((c) => [c.name, c.type, c.indexed]),
    [['id', 'TEXT', true], ['kind', 'TEXT', false], ['status', 'TEXT', true], ['note', 'TEXT', false], ['n', 'INTEGER', false]]);
  assert.deepEqual(objects.find((o) => o.name === 'kv').ids, ['k']);
  const view = objects.find((o) => o.name === 'running');
  assert.equal(view.type, 'view');
  const vp = e.page({ table: 'running', filters: [] });
  assert.equal(vp.keyset, false);
  assert.equal(vp.rows.length, 100);
  assert.equal(e.count('running', []).count, 100);
});

test('the b-tree estimate is exact for a one-page tree and within 10% on a 200,000-row table', { skip }, () => {
  const db = new SQL.Database();
  db.run(`CREATE TABLE big(a INTEGER, b TEXT); CREATE TABLE small(a);  INSERT INTO small VALUES (1), (2), (3);
    WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 200000)
    INSERT INTO big SELECT i, printf('%.*c', 20 + i % 60, 'x') FROM s;`);
  const roots = Object.fromEntries(db.exec("SELECT name, rootpage FROM sqlite_schema WHERE type = 'table'")[0].values);
  const bytes = db.export();
  db.close();
  const pageSize = (bytes[16] << 8) | bytes[17];
  const readPage = (n) => bytes.subarray((n - 1) * pageSize, n * pageSize);
  assert.deepEqual(btree.estimateRows(readPage, roots.small), { rows: 3, exact: true, pagesRead: 1 });
  const big = btree.estimateRows(readPage, roots.big);
  assert.equal(big.exact, false);
  assert.ok(Math.abs(big.rows - 200000) / 200000 < 0.1, `estimated ${big.rows}`);
  assert.ok(big.pagesRead < 120, `${big.pagesRead} pages read`);
  assert.throws(() => btree.readBtreePage(new Uint8Array(pageSize), 3), /page 3 is not a b-tree page/);
});

test('an error is one line with its position; a second statement is refused with its position', { skip }, () => {
  const e = engineOver(makeDb(LOG));
  assert.throws(() => e.query('SELECT id,\n  kind\nFROM log\nWHERE nope = 1'), (err) => {
    assert.equal(err.message, 'no such column: nope');
    assert.deepEqual([err.line, err.column], [4, 7]);
    return true;
  });
  // The position counts characters, not UTF-8 bytes.
  assert.throws(() => e.query('SELECT é FROM log WHER id = 1'), (err) => err.line === 1 && err.column === 24 && /syntax error/.test(err.message));
  assert.throws(() => e.query('SELECT 1;\n SELECT 2'), (err) => /^One statement at a time/.test(err.message) && err.line === 2 && err.column === 2);
  assert.equal(e.query('SELECT 1; -- done\n').rows[0][0], 1);
  assert.throws(() => e.query('-- nothing'), { message: /^Nothing to run: write a SELECT first$/ });
  // 10,000 rows shown, all counted.
  const r = e.query('WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 12345) SELECT i FROM s');
  assert.equal(r.rows.length, 10000);
  assert.equal(r.total, 12345);
  assert.equal(r.truncated, true);
});

test('CSV is RFC 4180: a real CSV reader gets every cell back (commas, quotes, newlines, non-ASCII, NULL)', { skip }, async () => {
  const cells = ['plain', 'a, b', 'say "hi"', 'line 1\nline 2', 'crlf\r\nend', ' padded ', 'naïve café – 東京 🐎', '', null, 42, 1.5];
  const text = sqlMod.csvLines(['c'], cells.map((c) => [c]));
  assert.ok(text.endsWith('\r\n'));
  const py = spawnSync('python3', ['-c', 'import csv, json, sys; print(json.dumps(list(csv.reader(sys.stdin, strict=True))))'],
    { input: text, encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  const back = JSON.parse(py.stdout).map((r) => r[0]);
  assert.deepEqual(back, ['c', ...cells.map((c) => (c === null ? '' : String(c)))]);
  // The engine's export writes the same, header first.
  const e = engineOver(makeDb("CREATE TABLE t(a, b); INSERT INTO t VALUES ('x,y', 'q\"z'), (NULL, 'é\nè');"));
  const out = e.exportRows({ table: 't', view: { filters: [] }, format: 'csv' });
  assert.equal(out.rows, 2);
  assert.equal(await out.blob.text(), 'a,b\r\n"x,y","q""z"\r\n,"é\nè"\r\n');
  const json = e.exportRows({ sql: 'SELECT a, b FROM t ORDER BY rowid', format: 'json' });
  assert.deepEqual(JSON.parse(await json.blob.text()), [{ a: 'x,y', b: 'q"z' }, { a: null, b: 'é\nè' }]);
  assert.throws(() => e.exportRows({ sql: 'DELETE FROM t', format: 'csv' }), { message: /^Refused: DELETE from t;/ });
});

test('a JSON cell folds when it is an object or array, within 256 KB and 64 levels; anything else is text', { skip }, () => {
  assert.deepEqual(sqlMod.jsonCell('{"signups": 0, "note": "a \\" [[ quote"}'), { signups: 0, note: 'a " [[ quote' });
  assert.deepEqual(sqlMod.jsonCell('  ["a", {"b": [1]}]'), ['a', { b: [1] }]);
  for (const text of ['plain', '"a string"', '42', '{not json', null, 7]) assert.equal(sqlMod.jsonCell(text), undefined, String(text));
  const deep = (n) => `${'['.repeat(n)}${']'.repeat(n)}`;
  assert.ok(sqlMod.jsonCell(deep(64)));
  assert.equal(sqlMod.jsonCell(deep(65)), undefined);
  assert.equal(sqlMod.jsonCell(deep(100000)), undefined);
  assert.equal(sqlMod.jsonCell(`["${'x'.repeat(262144)}"]`), undefined);
});

test('the view in the address survives a round trip', { skip }, () => {
  const v = { table: 'background_agent_log', sort: 'started_at', dir: 'desc', filters: [{ col: 'status', op: 'eq', value: 'run~ning & co' }, { col: 'error', op: 'null', value: '' }],
    after: ['2026-10-07T09:00:00Z', 12], before: null, offset: 0, last: false, facet: 'kind', sql: "SELECT 1 -- 'x'", tab: 'sql' };
  assert.deepEqual(sqlMod.viewFromQuery(sqlMod.queryFromView(v)), v);
  assert.deepEqual(sqlMod.viewFromQuery('f=nope~bad~1&a=notjson').filters, []);
});
