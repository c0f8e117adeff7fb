// The attention items over the real `pulse serve` on the demo workspace
// (scripts/demo_workspace.mjs, on its clock): GET /api/workflows carries each
// workflow's items, rank and needs_attention, the paged overview the same;
// an item is snoozed and lifted only with the owner token (401 changes
// nothing), a key that needs no attention is 404, an `until` not after now
// 400; a snoozed item stops counting for --fail-on; snoozed "until it
// changes", a new failed run with an expired login brings it back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { writeFileSync, mkdirSync } from 'node:fs';
import { makeDemo, makeTempDir, PULSE_BIN, WASM_DIR } from '../node/helpers.mjs';
import { startServer, request } from './helpers.mjs';
import { fileNeed, missingOf, skipUnless } from '../strict.mjs';

const opts = {
  skip: skipUnless(import.meta.url, missingOf([fileNeed(PULSE_BIN, 'run scripts/setup.sh'),
    fileNeed(join(WASM_DIR, 'pulse.wasm'), 'run scripts/setup.sh (the demo writes its cost ledger with it)')])),
};
let tmp;
let ws;
let server;

before(async () => {
  if (opts.skip) return;
  tmp = makeTempDir('pulse-attention-http-');
  ws = join(tmp.dir, 'demo');
  makeDemo(ws);
  server = await startServer(ws, ['--now-file', join(ws, '.pulse', 'demo-now')]);
});

after(async () => {
  if (server) await server.stop();
  if (tmp) tmp.cleanup();
});

const kinds = (items) => items.map((a) => a.kind);
const status = async (wf) => (await request(`${server.url}api/workflows/${wf}/goal-status`)).body;
const snooze = (body, token) => request(`${server.url}api/workflows/inbox/attention/snooze`, { method: 'POST', token, body });
const unsnooze = (body, token) => request(`${server.url}api/workflows/inbox/attention/unsnooze`, { method: 'POST', token, body });
const failOn = (list) => spawnSync(PULSE_BIN, ['check', '--workspace', ws, '--workflow', 'inbox', '--fail-on', list], { encoding: 'utf8' });

test('GET /api/workflows carries each workflow\'s attention, rank and needs_attention; the paged overview the same', opts, async () => {
  const all = (await request(`${server.url}api/workflows`)).body;
  const rows = Object.fromEntries((all.workflows || all).map((w) => [w.name || w.workflow, w]));
  assert.equal(rows.inbox.status, 'on_track');
  assert.deepEqual(kinds(rows.inbox.attention), ['needs_reauth', 'error_rate_spike', 'cost_spike', 'schedule_late']);
  assert.equal(rows.inbox.rank, 1);
  assert.equal(rows.inbox.needs_attention, true);
  assert.deepEqual(rows.digest.attention, []);
  assert.equal(rows.digest.needs_attention, false);
  assert.equal(rows.substack.needs_attention, true);
  for (const a of rows.inbox.attention) {
    assert.match(a.link, /^#\/w\/inbox\/[a-z-]+$/);
    assert.ok(['critical', 'warning', 'info'].includes(a.severity));
    assert.equal(typeof a.text, 'string');
    assert.equal(a.snoozed, false);
  }
  const page = (await request(`${server.url}api/workflows?limit=10`)).body;
  const inbox = page.workflows.find((w) => w.name === 'inbox');
  assert.deepEqual(inbox.attention.map((a) => [a.kind, a.key, a.text]), rows.inbox.attention.map((a) => [a.kind, a.key, a.text]));
  assert.equal(inbox.rank, 1);
});

test('a snooze needs the owner token; refusals name the problem and change nothing; a snoozed item stops counting for --fail-on', opts, async () => {
  const key = (await status('inbox')).attention.find((a) => a.kind === 'schedule_late').key;
  assert.equal(key, 'schedule_late:daily');
  for (const token of [undefined, 'f'.repeat(64)]) {
    const refused = await snooze({ key }, token);
    assert.equal(refused.status, 401, refused.text);
  }
  assert.equal((await status('inbox')).attention.find((a) => a.key === key).snoozed, false);
  assert.equal(failOn('schedule_late').status, 1);

  const unknown = await snooze({ key: 'schedule_late:weekly' }, server.ownerToken);
  assert.equal(unknown.status, 404, unknown.text);
  assert.match(unknown.body.error, /schedule_late:weekly/);
  const past = await snooze({ key, until: '2026-10-01T00:00:00Z' }, server.ownerToken);
  assert.equal(past.status, 400, past.text);
  assert.match(past.body.error, /until/);
  const bad = await snooze({ key, until: 'next tuesday' }, server.ownerToken);
  assert.equal(bad.status, 400, bad.text);
  assert.equal((await status('inbox')).attention.find((a) => a.key === key).snoozed, false);

  const done = await snooze({ key, until: '2026-10-09T00:00:00Z' }, server.ownerToken);
  assert.equal(done.status, 200, done.text);
  const item = done.body.attention.find((a) => a.key === key);
  assert.deepEqual([item.snoozed, item.snooze, item.snoozed_until], [true, 'until_date', '2026-10-09T00:00:00Z']);
  // Still listed, marked; it no longer trips --fail-on, the others still do.
  assert.equal((await status('inbox')).attention.find((a) => a.key === key).snoozed, true);
  const late = failOn('schedule_late');
  assert.equal(late.status, 0, late.stderr);
  assert.match(late.stdout, /schedule_late.*\(snoozed until 2026-10-09T00:00:00Z\)/);
  assert.equal(failOn('schedule_late,needs_reauth').status, 1);

  assert.equal((await unsnooze({ key })).status, 401);
  assert.equal((await unsnooze({ key }, server.ownerToken)).status, 200);
  const again = await unsnooze({ key }, server.ownerToken);
  assert.equal(again.status, 404, again.text);
  assert.equal(failOn('schedule_late').status, 1);
});

test('snoozed until it changes: a new failed run with an expired login brings the item back', opts, async () => {
  const key = 'needs_reauth';
  const item = (await status('inbox')).attention.find((a) => a.kind === key);
  const done = await snooze({ key: item.key }, server.ownerToken);
  assert.equal(done.status, 200, done.text);
  assert.equal(done.body.attention.find((a) => a.key === item.key).snooze, 'until_it_changes');
  assert.equal((await status('inbox')).attention.find((a) => a.key === item.key).snoozed, true);
  const dir = join(ws, 'Workflow', 'inbox', 'runs', 'iteration-900', 'default');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ run_id: 'r-0900', started_at: '2026-10-07T11:00:00Z',
    finished_at: '2026-10-07T11:05:00Z', status: 'failed', trigger: 'schedule:daily', error: 'gmail: token refresh failed: invalid_grant' }));
  writeFileSync(join(dir, 'route_selection.json'), JSON.stringify({ route: 'triage' }));
  const back = (await status('inbox')).attention.find((a) => a.key === item.key);
  assert.equal(back.snoozed, false, JSON.stringify(back));
  assert.match(back.text, /r-0900/);
});

test('/api/health says what the turns run on; /docs/<page>.md serves the reference page the banner links to, nothing else', opts, async () => {
  const health = (await request(`${server.url}api/health`)).body;
  assert.equal(health.turns.thinks_with, 'rules');
  assert.equal(health.turns.has_builder, false);
  assert.equal(health.turns.builder, undefined);
  const page = await request(`${server.url}docs/models.md`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /^text\/plain/);
  assert.match(page.text, /^# What thinks for Pulse's turns, and the Builder/);
  for (const path of ['docs/models.txt', 'docs/nosuch.md', 'docs/.hidden.md', 'docs/%2e%2e/README.md', 'docs/..%2fREADME.md']) {
    const refused = await request(`${server.url}${path}`);
    assert.ok([400, 404].includes(refused.status), `${path}: ${refused.status} ${refused.text.slice(0, 80)}`);
    assert.doesNotMatch(refused.text, /^# /m, path);
  }
});
