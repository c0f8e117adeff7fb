// The read routes run on kept connections and the goal status is computed
// again only when one of its inputs moved: the database, a file outside it
// that the check reads, or the clock's second. /api/health counts the
// recomputations (reads.status_recomputes) and the pool's opens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request, startServer, makeTempDir, buildSubstack, buildHealthy, observe, waitFor } from './helpers.mjs';
import { WASM_DIR } from '../node/helpers.mjs';

const NOW = '2026-10-07T12:00:00Z';

function put(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

async function health(s) {
  const h = await request(`${s.url}api/health`);
  assert.equal(h.status, 200);
  return h.body.reads;
}

// A cost ledger with `rows` one-dollar runs, made with the module's
// sql.js-compatible Database.
async function ledgerBytes(rows) {
  const { initPulse } = await import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href);
  const SQL = await initPulse({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) });
  const db = new SQL.Database();
  db.run('CREATE TABLE cost_events(at TEXT, run_id TEXT NULL, source TEXT, usd REAL)');
  for (let i = 0; i < rows; i++) db.run('INSERT INTO cost_events VALUES (?, ?, ?, ?)', [`2026-10-0${i + 1}T09:00:00Z`, `r-${i}`, 'run', 1.0]);
  const bytes = db.export();
  db.close();
  return bytes;
}

test('the goal status is recomputed only when one of its inputs changes, and every change is seen', async () => {
  const tmp = makeTempDir('pulse-scale-status-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const wf = join(ws, 'Workflow', 'substack');
  put(join(wf, 'costs', 'costs.sqlite'), await ledgerBytes(2));
  const s = await startServer(ws, ['--no-tick']);
  try {
    const status = async (now = NOW) => {
      const r = await request(`${s.url}api/workflows/substack/goal-status?now=${now}`);
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    // Settled: a request that computes nothing (files written within the
    // last second are read afresh until they are older).
    const settle = async () => {
      await waitFor(async () => {
        const before = (await health(s)).status_recomputes;
        await status();
        return (await health(s)).status_recomputes === before;
      }, { what: 'a goal-status answer from memory' });
      return status();
    };
    // One input changed: the next answer differs where it should, and was
    // computed again.
    const changed = async (what, change, pick) => {
      const before = await settle();
      const count = (await health(s)).status_recomputes;
      await change();
      const after = await status();
      assert.ok((await health(s)).status_recomputes > count, `${what}: answered from memory`);
      assert.notDeepEqual(pick(after), pick(before), `${what}: the answer did not change`);
    };

    const first = await settle();
    const settled = (await health(s)).status_recomputes;
    for (let i = 0; i < 5; i++) assert.deepEqual(await status(), first);
    assert.equal((await health(s)).status_recomputes, settled, 'a repeated request was computed again');
    assert.ok((await health(s)).status_hits >= 5);

    // The clock's second.
    const later = await status('2026-10-07T12:00:01Z');
    assert.equal(later.checked_at, '2026-10-07T12:00:01Z');
    assert.equal((await health(s)).status_recomputes, settled + 1);

    await changed('a reading (the database)', () => observe(ws, 'substack', 'subscribers', 450, '2026-10-07T11:00:00Z', 'builder_chat'),
      (b) => b.metric.value);
    await changed('workflow.json', () => {
      const config = JSON.parse(readFileSync(join(wf, 'workflow.json'), 'utf8'));
      config.goal.primary_metric.target = 2000;
      writeFileSync(join(wf, 'workflow.json'), JSON.stringify(config));
    }, (b) => b.metric.target);
    await changed('planning/changelog.jsonl', () => put(join(wf, 'planning', 'changelog.jsonl'),
      `${JSON.stringify({ at: '2026-10-06T10:00:00Z', tool: 'update_step', reason: 'shorter intro', steps: ['s-grow'], who: 'ana' })}\n`),
    (b) => b.facts.plan_changes.length);
    await changed('a line appended to the changelog', () => appendFileSync(join(wf, 'planning', 'changelog.jsonl'),
      `${JSON.stringify({ at: '2026-10-06T11:00:00Z', tool: 'rename_step', steps: ['s-other'] })}\n`),
    (b) => b.facts.plan_changes.length);
    await changed('costs/costs.sqlite', async () => put(join(wf, 'costs', 'costs.sqlite'), await ledgerBytes(5)),
      (b) => b.facts.spend.last_7_days_usd);
    await changed('a run folder', () => {
      const dir = join(wf, 'runs', 'iteration-99', 'default');
      put(join(dir, 'run.json'), JSON.stringify({ run_id: 'r-0099', started_at: '2026-10-07T09:00:00Z',
        finished_at: '2026-10-07T09:10:00Z', status: 'failed', error: 'gmail: token refresh failed: invalid_grant' }));
      put(join(dir, 'route_selection.json'), '{"route": "growth_funnel"}');
    }, (b) => b.facts.run_health.runs);
    await changed('chats.json', () => put(join(wf, 'chats.json'), JSON.stringify([{ session_id: 'b-1', kind: 'builder', account: 'ana' }])),
      (b) => b.facts.sources.find((x) => x.file === 'chats.json').state);

    // The whole workflow replaced (a restore): a new database in a new
    // folder, never answered from the old connection or the old answer.
    const other = join(tmp.dir, 'other', 'ws');
    buildHealthy(other, 'substack');
    // Taken away whole first: the live server (its outbox deliverer, a kept
    // connection) may make db.sqlite-wal/-shm again inside a folder being
    // removed file by file, and rmSync then fails with ENOTEMPTY.
    const gone = join(tmp.dir, 'replaced-substack');
    renameSync(wf, gone);
    renameSync(join(other, 'Workflow', 'substack'), wf);
    rmSync(gone, { recursive: true, force: true });
    const restored = await status();
    assert.equal(restored.metric.name, 'readers');
    assert.equal(restored.status, 'on_track');
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('reads share kept connections, closed when idle; a database renamed into place is never read through the old one', async () => {
  const tmp = makeTempDir('pulse-scale-pool-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const s = await startServer(ws, ['--no-tick', '--pool-idle-seconds', '0.5']);
  try {
    const read = async (path) => {
      const r = await request(`${s.url}api/workflows/substack/${path}`);
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    // A connection whose open read a file written within the last second is
    // not kept (two writes inside one timestamp step would look the same),
    // so the fixture's fresh files are first left to age past that.
    await waitFor(async () => {
      const before = (await health(s)).opens;
      await read('agent-log');
      return (await health(s)).opens === before;
    }, { what: 'a read on a kept connection' });
    const opened = await health(s);
    for (let i = 0; i < 10; i++) {
      await read('agent-log');
      await read('decisions');
    }
    const after = await health(s);
    assert.equal(after.opens, opened.opens, 'sequential reads opened the database again');
    // Each was answered on a kept connection or from memory.
    assert.ok(after.reuses + after.answer_hits >= opened.reuses + opened.answer_hits + 20);
    assert.ok(after.open >= 1);
    // Idle connections are closed; a read not asked before opens one again.
    await waitFor(async () => (await health(s)).open === 0, { what: 'the idle connection to close' });
    await read('agent-log?limit=5');
    assert.equal((await health(s)).open, 1);

    // Another database renamed over db.sqlite (its WAL and shared memory
    // removed first, as a restore does): the kept connection is dropped.
    // The other database is made first: the kept connection must still be
    // open (not closed as idle) when it is replaced.
    const other = join(tmp.dir, 'other', 'ws');
    buildHealthy(other, 'substack');
    const before = await read('readings');
    assert.equal(before.metric, 'subscribers');
    const db = join(ws, 'Workflow', 'substack', 'db', 'db.sqlite');
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
    renameSync(join(other, 'Workflow', 'substack', 'db', 'db.sqlite'), db);
    const stale = (await health(s)).dropped_stale;
    // The workflow's metric (subscribers) has no readings in the new file.
    assert.equal(before.readings.length, 2);
    const now = await read('readings');
    assert.deepEqual(now.readings, []);
    assert.equal((await health(s)).dropped_stale, stale + 1);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
