// GET /api/workflows in pages (?limit, ?cursor, ?q) on the real `pulse serve`
// over a workspace of many workflows: the cursor walks every workflow once in
// name order, each item carries what the overview shows (so the tab needs no
// call per workflow), a repeated page computes nothing, an answered decision
// shows in its workflow's item, and bad parameters are refused by name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, startServer, request, waitFor, setNow } from './helpers.mjs';
import { makeManyWorkflows, manyName, MANY_MADE_AT } from './many_workflows.mjs';

const COUNT = 120;
const BROKEN = 'wf-zz-broken';
let tmp;
let s;
let names;

before(async () => {
  tmp = makeTempDir('pulse-wf-pages-');
  const ws = join(tmp.dir, 'ws');
  names = makeManyWorkflows(ws, COUNT, { runs: 20 });
  // A workflow whose workflow.json does not parse: listed, with its error.
  mkdirSync(join(ws, 'Workflow', BROKEN), { recursive: true });
  writeFileSync(join(ws, 'Workflow', BROKEN, 'workflow.json'), '{"goal": ');
  names.push(BROKEN);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  s = await startServer(ws, ['--no-tick', '--now-file', nowFile]);
});

after(async () => {
  if (s) await s.stop();
  if (tmp) tmp.cleanup();
});

const list = async (query) => request(`${s.url}api/workflows${query}`);

// Every page from the first, following next_cursor.
async function walk(params) {
  const pages = [];
  let cursor = '';
  for (let i = 0; i < 1000; i++) {
    const r = await list(`?${params}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(r.status, 200, r.text);
    pages.push(r.body);
    cursor = r.body.next_cursor;
    if (cursor === null) return pages;
  }
  throw new Error('the cursor never reached the end');
}

test('the cursor walks every workflow exactly once, in name order, each item the overview\'s row', async () => {
  const pages = await walk('limit=7');
  const seen = pages.flatMap((p) => p.workflows.map((w) => w.name));
  assert.deepEqual(seen, [...names].sort());
  assert.equal(new Set(seen).size, COUNT + 1);
  for (const p of pages) {
    assert.equal(p.total, COUNT + 1);
    assert.equal(p.limit, 7);
    assert.ok(p.workflows.length <= 7 && p.workflows.length > 0);
  }
  const item = pages[0].workflows[0];
  assert.equal(item.name, manyName(0));
  assert.equal(item.goal_status, undefined, 'a page item is compact: no whole goal status document');
  assert.equal(typeof item.status, 'string');
  assert.equal(item.has_goal, true);
  assert.equal(item.pending_decisions, 3);
  assert.deepEqual(item.last_check.checked_at, MANY_MADE_AT);
  assert.equal(item.metric.name, 'readers');
  assert.equal(item.metric.target, 500);
  assert.equal(typeof item.alarms, 'number');
  // Its readings are manual, none by a workflow run: two alarms, the worst
  // of them named.
  assert.equal(item.alarms, 2);
  assert.equal(item.worst_alarm, 'never measured by a workflow run');
  const broken = pages.at(-1).workflows.at(-1);
  assert.equal(broken.name, BROKEN);
  assert.match(broken.error, /workflow\.json/);

  // One page of everything, and the unpaged answer as before (with the
  // whole goal status document), now with the overview's counts too.
  const all = await list('?limit=500');
  assert.equal(all.body.workflows.length, COUNT + 1);
  assert.equal(all.body.next_cursor, null);
  const unpaged = await list('');
  assert.equal(unpaged.body.next_cursor, undefined);
  assert.equal(unpaged.body.workflows.length, COUNT + 1);
  assert.equal(unpaged.body.workflows[0].goal_status.workflow, manyName(0));
  assert.equal(unpaged.body.workflows[0].pending_decisions, 3);
});

test('?q keeps the names containing it (any case), paged the same way', async () => {
  const pages = await walk('q=WF-0011&limit=4');
  const seen = pages.flatMap((p) => p.workflows.map((w) => w.name));
  assert.deepEqual(seen, Array.from({ length: 10 }, (_, k) => manyName(110 + k)));
  assert.equal(pages[0].total, 10);
  const none = await list('?q=nothing-like-this');
  assert.deepEqual({ n: none.body.workflows.length, total: none.body.total, next: none.body.next_cursor },
    { n: 0, total: 0, next: null });
  // A cursor past the end is an empty last page, not an error.
  const past = await list('?limit=5&cursor=zzz');
  assert.deepEqual(past.body.workflows, []);
});

test('a repeated page computes no goal status; an answered decision changes its workflow\'s count', async () => {
  const recomputes = async () => (await request(`${s.url}api/health`)).body.reads.status_recomputes;
  const page = '?limit=10&cursor=wf-00009';
  // (A file the fixture wrote within the last second is not trusted to
  // show a change, so the first reads may compute again: poll until a
  // repeat computes nothing.)
  await waitFor(async () => {
    await list(page);
    const from = await recomputes();
    await list(page);
    return (await recomputes()) === from;
  }, { what: 'a page answered from memory', timeoutMs: 30000 });

  const wf = manyName(12);
  const row = async () => (await list(page)).body.workflows.find((w) => w.name === wf);
  assert.equal((await row()).pending_decisions, 3);
  const pending = (await request(`${s.url}api/workflows/${wf}/decisions?status=pending`)).body.decisions;
  const answered = await request(`${s.url}api/workflows/${wf}/decisions/${pending[0].id}/answer`,
    { method: 'POST', token: s.ownerToken, body: { accept: true } });
  assert.equal(answered.status, 200, answered.text);
  assert.equal((await row()).pending_decisions, 2);
  // Only the answered workflow's row moved.
  const other = (await list(page)).body.workflows.find((w) => w.name === manyName(13));
  assert.equal(other.pending_decisions, 3);
});

test('bad paging parameters are refused with one line naming the parameter', async () => {
  const cases = [
    ['?limit=0', /^limit: must be a whole number from 1 to 500 \(got 0\)$/],
    ['?limit=501', /^limit: .*\(got 501\)$/],
    ['?limit=abc', /^limit: .*\(got "abc"\)$/],
    ['?limit=-3', /^limit: /],
    ['?limit=', /^limit: /],
    ['?limit=2&limit=3', /^limit: given more than once$/],
    ['?cursor=..%2Fetc', /^cursor: not a workflow name/],
    ['?cursor=a%20b', /^cursor: /],
    [`?q=${'x'.repeat(201)}`, /^q: at most 200 characters \(got 201\)$/],
    ['?limit=5&now=yesterday', /^now: /],
  ];
  for (const [query, re] of cases) {
    const r = await list(query);
    assert.equal(r.status, 400, `${query}: ${r.text}`);
    assert.match(r.body.error, re, query);
    assert.ok(!r.body.error.includes('\n'), query);
  }
});
