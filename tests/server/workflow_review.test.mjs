// Workflow Review before a run (`pulse pre-run`, POST /api/workflows/<wf>/pre-run):
// the due set in code (no review when clean), one review per plan revision
// recorded in planning/workflow_review.json, a break that stops only the
// runs touching its step, plan.json that is not JSON as a due item, a corrupt
// record rebuilt, a hanging review ended at its timeout (the run goes) and a
// chat's run told through the outbox when the review is done; and the
// review's own conversation, apart from Pulse's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, mkdirSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, makeWorkspace, pulse, startServer, request, waitFor, runnerWritableDir } from './helpers.mjs';

const CONFIG = {
  slug: 'substack',
  contract_version: 3,
  pulse: { enabled: true },
  schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true, after_run: { backup: false, publish: false, notify: true } }],
};
const PLAN = { steps: [{ id: 'research' }, { id: 'write_article', depends_on: ['research'] }, { id: 'growth_funnel' }] };

function setup(prefix) {
  const tmp = makeTempDir(prefix);
  const ws = makeWorkspace(tmp.dir, { substack: CONFIG });
  const wf = join(ws, 'Workflow', 'substack');
  mkdirSync(join(wf, 'planning'), { recursive: true });
  writeFileSync(join(wf, 'planning', 'plan.json'), JSON.stringify(PLAN, null, 2));
  writeFileSync(join(wf, 'planning', 'changelog.jsonl'),
    `${JSON.stringify({ at: '2026-10-06T10:00:00Z', tool: 'update_step', reason: 'new intro', steps: ['write_article'], who: 'ana', session: 'b-1' })}\n`);
  return { tmp, ws, wf };
}

const reviews = (wf) => JSON.parse(readFileSync(join(wf, 'planning', 'workflow_review.json'), 'utf8')).reviews;
const preRun = (ws, extra = [], now = '2026-10-07T12:00:00Z') =>
  pulse(['pre-run', '--workspace', ws, '--workflow', 'substack', '--now', now, '--json', ...extra], { timeout: 60000 });

test('TestWorkflowReviewRunsOncePerPlanRevisionBeforeARun', { timeout: 120000 }, () => {
  const { ws, wf } = setup('pulse-review-once-');
  // Never reviewed: the review runs first (the built-in reviewer), then the run goes.
  let r = preRun(ws);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.json.go, true);
  assert.equal(r.json.review.outcome, 'clean');
  assert.deepEqual(r.json.review.due.map((d) => d.kind), ['no_review', 'plan_edit']);
  assert.equal(reviews(wf).length, 1);
  // The same plan revision is never reviewed twice: clean at once, no AI call.
  r = preRun(ws, [], '2026-10-07T12:05:00Z');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.json.go, true);
  assert.equal(reviews(wf).length, 1);

  // A Builder edit breaks a reference: reviewed once, and the break stops
  // only the runs that touch the broken step.
  const broken = { steps: [...PLAN.steps, { id: 'publish', depends_on: ['final_draft'] }] };
  writeFileSync(join(wf, 'planning', 'plan.json'), JSON.stringify(broken, null, 2));
  appendFileSync(join(wf, 'planning', 'changelog.jsonl'),
    `${JSON.stringify({ at: '2026-10-07T12:10:00Z', tool: 'create_step', reason: 'publish step', steps: ['publish'], who: 'ana', session: 'b-1' })}\n`);
  r = preRun(ws, [], '2026-10-07T12:11:00Z');
  assert.equal(r.status, 1, r.stdout);
  assert.equal(r.json.go, false);
  assert.match(r.json.reason, /publish: depends on "final_draft", which is not a step of the plan/);
  assert.equal(reviews(wf).length, 2);
  assert.equal(reviews(wf)[1].due.find((d) => d.kind === 'plan_edit').detail, 'plan edited: create_step (publish) by ana: publish step');
  r = preRun(ws, ['--step', 'research'], '2026-10-07T12:12:00Z');
  assert.equal(r.status, 0, r.stdout);
  assert.equal(r.json.go, true);
  r = preRun(ws, ['--step', 'publish'], '2026-10-07T12:12:00Z');
  assert.equal(r.status, 1);
  assert.match(r.json.reason, /final_draft/);
  assert.equal(reviews(wf).length, 2, 'the broken revision is not reviewed again: a run never loops');

  // plan.json that is not JSON is a due item with its reason, and the
  // reviewer's break stops every run.
  writeFileSync(join(wf, 'planning', 'plan.json'), '{"steps": [');
  r = preRun(ws, ['--step', 'research'], '2026-10-07T12:20:00Z');
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.json.reason, /plan\.json: planning\/plan\.json is not JSON/);
  assert.equal(reviews(wf)[2].due[0].kind, 'plan_not_json');

  // A silent edit (no changelog entry) is a change without a review receipt.
  writeFileSync(join(wf, 'planning', 'plan.json'), JSON.stringify(PLAN));
  r = preRun(ws, [], '2026-10-07T12:30:00Z');
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(reviews(wf)[3].due.map((d) => d.kind), ['unreceipted_change']);
});

test('a corrupt workflow_review.json is rebuilt with the reason logged, never trusted', { timeout: 60000 }, () => {
  const { ws, wf } = setup('pulse-review-corrupt-');
  assert.equal(preRun(ws).status, 0);
  // A record claiming a clean review of some other revision, hand-broken.
  writeFileSync(join(wf, 'planning', 'workflow_review.json'), '{"reviews": [{"revision": "x", "outcome": "clean"');
  const r = preRun(ws, [], '2026-10-07T13:00:00Z');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /workflow_review\.json: .*rebuilt \(its records are not trusted\)/);
  const list = reviews(wf);
  assert.equal(list.length, 1, 'the rebuilt file holds the new review only');
  assert.equal(list[0].outcome, 'clean');
  assert.equal(list[0].started_at, '2026-10-07T13:00:00Z');
});

test('a workflow without plan files goes at once: nothing to review, no record written', () => {
  const tmp = makeTempDir('pulse-review-none-');
  const ws = makeWorkspace(tmp.dir, { substack: CONFIG });
  const r = preRun(ws);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.json.go, true);
  assert.equal(r.json.review, undefined);
});

// A reviewer that never answers (killed at --review-timeout), and one that
// records its receipt through the session's tool route.
const HANG = `setInterval(() => {}, 1000);`;
const CLEAN = `
import { readFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
if (input.turn.kind === 'workflow_review') {
  const r = await fetch(process.env.PULSE_TOOL_URL + 'record_workflow_review', { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.MCP_API_TOKEN },
    body: JSON.stringify({ result: 'clean', summary: 'references hold (' + input.context.due.length + ' due)' }) });
  console.log('review recorded: ' + r.status);
}
`;

test('served: a chat\'s run returns "Reviewing the workflow before running…", a hanging review is ended at its timeout, the run goes and the chat is told', { timeout: 120000 }, async () => {
  const { tmp, ws, wf } = setup('pulse-review-chat-');
  writeFileSync(join(tmp.dir, 'hang.mjs'), HANG);
  const s = await startServer(ws, ['--no-tick', '--runner', `node ${join(tmp.dir, 'hang.mjs')}`, '--review-timeout', '1',
    '--sandbox-allow-read', join(tmp.dir, 'hang.mjs')]);
  try {
    const url = `${s.url}api/workflows/substack/pre-run`;
    assert.equal((await request(url, { method: 'POST', body: {} })).status, 401, 'the owner token is required');
    let r = await request(url, { method: 'POST', token: s.ownerToken, body: { caller: 'chat', chat_session: 'b-7' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.body.go, r.body.reason], [false, 'Reviewing the workflow before running…']);
    // One review per workflow at a time: a second chat joins the running one.
    r = await request(url, { method: 'POST', token: s.ownerToken, body: { caller: 'chat', chat_session: 'b-8' } });
    assert.equal(r.body.go, false);
    const done = await waitFor(() => {
      const list = reviews(wf);
      return list.length && list[0].outcome !== 'running' ? list : null;
    }, { timeoutMs: 60000, what: 'the review to end' });
    assert.equal(done.length, 1);
    assert.equal(done[0].outcome, 'unfinished');
    assert.match(done[0].summary, /timed out after 1 s/);
    // The run goes, and the same revision is not reviewed again.
    r = await request(url, { method: 'POST', token: s.ownerToken, body: { caller: 'chat', chat_session: 'b-7' } });
    assert.equal(r.body.go, true, r.text);
    assert.match(r.body.reason, /did not finish/);
    assert.equal(reviews(wf).length, 1);
    const outbox = (await request(`${s.url}api/workflows/substack/outbox`)).body.messages
      .filter((m) => m.kind === 'workflow_review_done');
    assert.deepEqual(outbox.map((m) => m.payload.chat_session).sort(), ['b-7', 'b-8']);
    assert.match(outbox[0].text, /Run again/);
    // The status API carries the review as an input.
    const state = (await request(`${s.url}api/workflows/substack/workflow-review`)).body;
    assert.equal(state.workflow_review.current.outcome, 'unfinished');
  } finally {
    await s.stop();
  }
});

test('served: a scheduled run waits for the review and goes once its receipt is clean', { timeout: 120000 }, async () => {
  const { tmp, ws, wf } = setup('pulse-review-sched-');
  writeFileSync(join(tmp.dir, 'clean.mjs'), CLEAN);
  const s = await startServer(ws, ['--no-tick', '--runner', `node ${join(tmp.dir, 'clean.mjs')}`, '--review-timeout', '60',
    '--sandbox-allow-read', join(tmp.dir, 'clean.mjs')]);
  const listed = async () => (await request(`${s.url}api/workflows`)).body.workflows.find((w) => w.name === 'substack');
  try {
    // The workflow list (the status API) carries the latest review: none yet.
    assert.equal((await listed()).workflow_review, null);
    const r = await request(`${s.url}api/workflows/substack/pre-run`, { method: 'POST', token: s.ownerToken,
      body: { caller: 'schedule', wait_seconds: 90 } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.go, true, r.text);
    assert.equal(r.body.review.outcome, 'clean');
    assert.equal(r.body.review.summary, 'references hold (2 due)');
    assert.equal(reviews(wf).length, 1);
    const latest = (await listed()).workflow_review;
    assert.equal(latest.outcome, 'clean');
    assert.equal(latest.revision, reviews(wf)[0].revision);
    // A receipt from a session that is not a review's is refused.
    const bad = await request(`${s.url}api/workflows/substack/pre-run`, { method: 'POST', token: s.ownerToken,
      body: { caller: 'nobody' } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /caller/);
  } finally {
    await s.stop();
  }
});

test('the tick reviews a workflow with an enabled schedule ahead, once its plan has been quiet for 10 minutes', { timeout: 120000 }, async () => {
  const { tmp, ws, wf } = setup('pulse-review-tick-');
  const nowFile = join(tmp.dir, 'now');
  // Five minutes after the last plan edit: not yet.
  writeFileSync(nowFile, '2026-10-06T10:05:00Z\n');
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile]);
  try {
    await new Promise((r) => setTimeout(r, 1500));
    assert.throws(() => reviews(wf), /ENOENT/);
    writeFileSync(nowFile, '2026-10-06T10:11:00Z\n');
    const list = await waitFor(() => { try { const l = reviews(wf); return l.length && l[0].outcome !== 'running' ? l : null; } catch { return null; } },
      { timeoutMs: 60000, what: 'the review ahead' });
    assert.equal(list[0].trigger, 'tick');
    assert.equal(list[0].outcome, 'clean');
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(reviews(wf).length, 1, 'reviewed once');
  } finally {
    await s.stop();
  }
});

// A reviewer that keeps what it was handed and answers in words, then with its receipt.
const KEEPER = `
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
if (input.turn.kind === 'workflow_review') {
  const out = process.argv[2];
  writeFileSync(out + '/review-' + readdirSync(out).length + '.json', JSON.stringify(input));
  const r = await fetch(process.env.PULSE_TOOL_URL + 'record_workflow_review', { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.MCP_API_TOKEN },
    body: JSON.stringify({ result: 'clean', summary: 'references hold' }) });
  console.log('Checked ' + input.context.due.length + ' due item(s) after ' + input.conversation.transcript.length +
    ' earlier review(s); receipt ' + r.status + '.');
}
`;

test('served: the Workflow Review has its own conversation, apart from Pulse\'s: each review a turn, the next one handed the earlier ones', { timeout: 120000 }, async () => {
  const { tmp, ws, wf } = setup('pulse-review-conv-');
  const out = runnerWritableDir(join(tmp.dir, 'out'));
  writeFileSync(join(tmp.dir, 'keeper.mjs'), KEEPER);
  const nowFile = join(tmp.dir, 'now');
  writeFileSync(nowFile, '2026-10-07T12:00:00Z\n');
  const s = await startServer(ws, ['--no-tick', '--now-file', nowFile, '--runner', `node ${join(tmp.dir, 'keeper.mjs')} ${out}`,
    '--review-timeout', '60', '--sandbox-allow-read', join(tmp.dir, 'keeper.mjs'), '--sandbox-allow-write', out]);
  const preRunServed = () => request(`${s.url}api/workflows/substack/pre-run`, { method: 'POST', token: s.ownerToken,
    body: { caller: 'schedule', wait_seconds: 90 } });
  try {
    assert.equal((await preRunServed()).body.go, true);
    appendFileSync(join(wf, 'planning', 'changelog.jsonl'),
      `${JSON.stringify({ at: '2026-10-07T12:10:00Z', tool: 'update_step', reason: 'longer research', steps: ['research'], who: 'ana', session: 'b-1' })}\n`);
    writeFileSync(nowFile, '2026-10-07T12:20:00Z\n');
    assert.equal((await preRunServed()).body.go, true);
    const records = reviews(wf);
    assert.equal(records.length, 2);

    // The run goes on the receipt; the turn ends when the reviewer exits.
    const conv = await waitFor(async () => {
      const c = (await request(`${s.url}api/workflows/substack/workflow-review`)).body.review_conversation;
      return c.turns.length === 2 && c.turns.every((t) => t.state !== 'running') ? c : null;
    }, { timeoutMs: 60000, what: 'both review turns ended' });
    assert.equal(conv.title, 'Workflow Review');
    assert.equal(conv.total, 2);
    assert.deepEqual(conv.turns.map((t) => [t.session, t.revision, t.state, t.outcome]),
      records.map((r) => [r.session, r.revision, 'completed', 'clean']));
    for (const t of conv.turns) assert.match(t.session, /^schedule-review--[0-9a-f]{16}-r\d+$/);
    assert.match(conv.turns[0].text, /^WORKFLOW REVIEW of substack, plan revision [0-9a-f]{12} \(trigger schedule\)\. Due:\n- no_review: /);
    assert.match(conv.turns[1].text, /- plan_edit: plan edited: update_step \(research\) by ana: longer research/);
    assert.equal(conv.turns[0].reply, 'Checked 2 due item(s) after 0 earlier review(s); receipt 200.');
    assert.equal(conv.turns[1].reply, 'Checked 1 due item(s) after 1 earlier review(s); receipt 200.');

    // The second review continued its own conversation, never Pulse's.
    const second = JSON.parse(readFileSync(join(out, 'review-1.json'), 'utf8'));
    assert.equal(second.conversation.conversation, 'workflow_review');
    assert.equal(second.conversation.session_id, records[1].session);
    assert.equal(second.conversation.restored_conversation_session_id, null);
    assert.deepEqual(second.conversation.transcript.map((t) => [t.session, t.text, t.reply]),
      [[conv.turns[0].session, conv.turns[0].text, conv.turns[0].reply]]);
    const pulseConv = (await request(`${s.url}api/workflows/substack/conversation`)).body;
    assert.equal((pulseConv.turns || []).filter((t) => t.turn === 'workflow_review' || /WORKFLOW REVIEW/.test(t.text)).length, 0);
    // The same record through the core method the browser's copy calls.
    const viaCall = (await request(`${s.url}api/workflows/substack/call/review.state`, { method: 'POST', body: {} })).body.result;
    assert.equal(viaCall.review_conversation.total, 2);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});


// Issue #32: a plan with more breaks than a record lists (1,000 duplicate
// step ids; 250 dangling depends_on) used to end the review "unfinished"
// (its receipt refused) and the run went. The record now summarises, and
// the run stops with the count.
test('a plan with 1,000 duplicate step ids or 250 broken references stops the run: the review records a summary', { timeout: 60000 }, () => {
  const { ws, wf } = setup('pulse-review-many-');
  writeFileSync(join(wf, 'planning', 'plan.json'), JSON.stringify({ steps: Array.from({ length: 1001 }, () => ({ id: 'same' })) }));
  let r = preRun(ws);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.equal(r.json.go, false, r.stdout);
  assert.equal(r.json.review.outcome, 'broken');
  assert.equal(r.json.review.broken.length, 51);
  assert.match(r.json.reason, /1000 breaks in 1 step; the first 50 are listed/);
  assert.ok(readFileSync(join(wf, 'planning', 'workflow_review.json')).length < 64 * 1024, 'the record stays small');
  const steps = Array.from({ length: 250 }, (_, i) => ({ id: `s${i}`, depends_on: [`gone${i}`] }));
  writeFileSync(join(wf, 'planning', 'plan.json'), JSON.stringify({ steps }));
  r = preRun(ws, ['--step', 's249'], '2026-10-07T12:30:00Z');
  assert.equal(r.json.go, false, r.stdout);
  assert.match(r.json.reason, /250 breaks in 250 steps/);
});

// A reviewer whose receipt is refused (a break with no reason) and that then
// ends without one: it reached a result it could not record, so the run
// stops with the reason instead of going unreviewed.
const UNRECORDABLE = `
import { readFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
if (input.turn.kind === 'workflow_review') {
  const r = await fetch(process.env.PULSE_TOOL_URL + 'record_workflow_review', { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.MCP_API_TOKEN },
    body: JSON.stringify({ result: 'broken', broken: [{ step: 'write_article' }] }) });
  console.log('review not recorded: ' + r.status);
}
`;

test('served: a review that cannot record its result stops the run with the reason', { timeout: 120000 }, async () => {
  const { tmp, ws, wf } = setup('pulse-review-unrecorded-');
  writeFileSync(join(tmp.dir, 'bad.mjs'), UNRECORDABLE);
  const s = await startServer(ws, ['--no-tick', '--runner', `node ${join(tmp.dir, 'bad.mjs')}`, '--review-timeout', '60',
    '--sandbox-allow-read', join(tmp.dir, 'bad.mjs')]);
  try {
    const r = await request(`${s.url}api/workflows/substack/pre-run`, { method: 'POST', token: s.ownerToken,
      body: { caller: 'schedule', wait_seconds: 90 } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.go, false, r.text);
    assert.equal(r.body.review.outcome, 'unrecorded');
    assert.match(r.body.reason, /could not record its result \(its receipt was not recorded: .*every entry needs a step and a reason\)/);
    assert.equal(reviews(wf)[0].outcome, 'unrecorded');
    // Asked again at once: still stopped, not reviewed in a loop.
    const again = await request(`${s.url}api/workflows/substack/pre-run`, { method: 'POST', token: s.ownerToken,
      body: { caller: 'schedule', wait_seconds: 5 } });
    assert.equal(again.body.go, false);
    assert.equal(reviews(wf).length, 1);
  } finally {
    await s.stop();
  }
});
