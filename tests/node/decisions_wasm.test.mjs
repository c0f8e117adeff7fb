// Decisions and goal memory in the real WASM module, on a database alone (the
// browser's case: no workflow folder, no files; goal memory is the database
// copy in pulse_goal_memory).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPulseModule, pulseReply } from './helpers.mjs';

const SQLITE_OPEN_READWRITE_CREATE = 0x2 | 0x4;
const T = (s) => Date.parse(s) / 1000;

async function openMemoryDb() {
  const M = await loadPulseModule();
  const pp = M._malloc(4);
  const rc = M.ccall('sqlite3_open_v2', 'number', ['string', 'number', 'number', 'number'], [':memory:', pp, SQLITE_OPEN_READWRITE_CREATE, 0]);
  assert.equal(rc, 0);
  const db = M.getValue(pp, 'i32');
  M._free(pp);
  const call = (method, args, now) => pulseReply(M, db, method, args ?? {}, now ?? NaN);
  const exec = (sql) => assert.equal(M.ccall('sqlite3_exec', 'number', ['number', 'string', 'number', 'number', 'number'], [db, sql, 0, 0, 0]), 0, sql);
  const close = () => M.ccall('sqlite3_close_v2', 'number', ['number'], [db]);
  return { call, exec, close };
}

function ok(out) {
  assert.ok(!out.error, out.error);
  return out.result;
}

test('the decision calls work through the facade (Module.Pulse) with only the database', async (t) => {
  const { call, close } = await openMemoryDb();
  t.after(close);
  const now = T('2026-10-07T09:00:00Z');
  const { id } = ok(call('decision.create', { question: 'Which route next?', options: ['growth_funnel', 'publish_review'], blocks: 'schedule' }, now));
  ok(call('decision.recommend', { id, option: 'growth_funnel', why: 'no reading for 20 days', confidence: 'medium', session: 'schedule-goallead--ab12-g1' }, now));

  const refused = call('decision.answer', { id, accept: true, session: 'schedule-goallead--ab12-g1' }, now);
  assert.equal(refused.code, 'refused');
  assert.match(refused.error, /only the owner answers/);
  let list = ok(call('decision.list', { status: 'pending' }, now));
  assert.equal(list.decisions.length, 1);
  assert.equal(list.decisions[0].recommendation.option, 'growth_funnel');

  const answered = ok(call('decision.answer', { id, accept: true, note: 'go' }, now + 3600));
  assert.equal(answered.answer.by, 'owner');
  assert.equal(answered.recommendation.status, 'accepted');

  // Goal memory lives in the database copy.
  const shown = ok(call('memory.show', {}, now));
  assert.equal(shown.storage, 'database');
  assert.match(shown.text, /- 2026-10-07 \[owner answer\] "Which route next\?" → growth_funnel \(note: go\); accepted Pulse's recommendation/);

  list = ok(call('decision.list', {}, now + 3600 + 86401));
  assert.deepEqual(list.outcomes_due.map((d) => d.id), [id]);
  ok(call('decision.outcome', { id, result: 'measured on 9 Oct' }, now + 2 * 86400));
  assert.deepEqual(ok(call('decision.list', {}, now + 3 * 86400)).outcomes_due, []);

  // The owner's edit from the Pulse tab: refused on a stale hash, saved on the current one.
  const stale = call('memory.save', { text: 'x\n', base_hash: 'fnv1a64:0000000000000000' }, now);
  assert.equal(stale.code, 'conflict');
  const current = ok(call('memory.show', {}, now));
  const saved = ok(call('memory.save', { text: current.text + 'owner note\n', base_hash: current.hash }, now));
  assert.match(saved.text, /owner note\n$/);
  const added = ok(call('memory.add', { section: 'lessons', source: 'pulse_inference', text: 'readings come from growth runs' }, now));
  assert.match(added.text, /owner note/);
  assert.match(added.text, /## Lessons\n- 2026-10-07 \[Pulse inference\] readings come from growth runs/);

  const bad = call('decision.recommend', { id: 99, option: 'x', why: 'w', confidence: 'low' }, now);
  assert.equal(bad.code, 'not_found');
});

test('answer=act from the stored configuration snapshot applies due defaults in the browser too', async (t) => {
  const { call, exec, close } = await openMemoryDb();
  t.after(close);
  ok(call('pulse.version', {}, NaN));
  ok(call('decision.list', {}, NaN));  // creates the schema
  exec(`INSERT INTO pulse_workflow_config(id, workflow, config_json, soul_md, updated_at) VALUES(1, 'substack',
        '{"pulse": {"autonomy": {"change": "auto", "answer": "act"}}}', '', '2026-10-07T00:00:00Z')`);
  const now = T('2026-10-07T09:00:00Z');
  const { id } = ok(call('decision.create', { question: 'Pause drafts?', options: ['yes', 'no'] }, now));
  ok(call('decision.recommend', { id, option: 'yes', why: 'w', confidence: 'high', safe_default_by: '2026-10-08T09:00:00Z' }, now));
  assert.equal(ok(call('decision.apply_due_defaults', {}, now)).applied.length, 0);
  const out = ok(call('decision.apply_due_defaults', {}, T('2026-10-08T09:00:00Z')));
  assert.equal(out.applied.length, 1);
  assert.equal(out.applied[0].answer.applied_by_pulse, true);
  assert.match(ok(call('memory.show', {}, now)).text, /Pulse applied its safe default/);
});
