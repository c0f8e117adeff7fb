// Every one of Pulse's own tools carried out the same way over the session
// tool route, MCP and the command line (`pulse tool`), never answered
// "executed: false"; a refusal followed by create_decision_request ends as a
// pending decision carrying the refused call; MCP offers the whole catalog;
// --platform forwards allowed platform calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, startServer, makeTempDir, makeWorkspace, pulse, mcp, SUBSTACK_CONFIG, setNow } from './helpers.mjs';

const NOW = '2026-10-07T12:00:00Z';
const AUTO = { ...SUBSTACK_CONFIG, pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change: 'auto', answer: 'recommend' } } };
const ASK = { ...SUBSTACK_CONFIG, pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change: 'ask', answer: 'recommend' } } };

function openSession(ws, workflow, turn) {
  const r = pulse(['session', 'open', '--workspace', ws, '--workflow', workflow, '--turn', turn, '--now', NOW]);
  assert.equal(r.status, 0, r.stderr);
  return r.json;
}

// The calls of the table, in order (later ones rely on earlier ones: the
// focus area fa-1 exists, the owner confirmed it). `owner` runs between
// calls, as the owner, on the command line.
const STEPS = [
  { tool: 'get_pulse_state', args: { view: 'goal_status' }, check: (r) => assert.ok(r.goal_lead && r.goal_lead.memory && r.goal_lead.focus_areas) },
  { tool: 'record_pulse_goal_check', args: { verdict: 'not_measured' }, check: (r) => assert.equal(r.recorded, true) },
  { tool: 'create_decision_request', args: { question: 'Resume the paused schedules?', options: ['Yes', 'No'], why: 'no run for 7 days' },
    check: (r) => { assert.equal(r.decision_id, 1); assert.equal(r.status, 'pending'); } },
  { tool: 'record_pulse_recommendation', args: { decision_id: 1, option: 'Yes', why: 'growth needs runs', confidence: 'medium' },
    check: (r) => assert.equal(r.decision_id, 1) },
  { tool: 'record_pulse_goal_memory', args: { section: 'lessons', text: 'growth runs never measure subscribers' },
    check: (r) => assert.match(r.text, /growth runs never measure subscribers/) },
  { tool: 'record_pulse_goal_memory', args: { action: 'consolidate' }, check: (r) => assert.equal(r.action, 'consolidate') },
  { tool: 'record_pulse_focus_area', args: { action: 'propose', title: 'Weekly growth experiment', end_date: '2026-11-01', check: 'subscribers +30 a week' },
    check: (r) => { assert.equal(r.id, 'fa-1'); assert.equal(r.focus_area.status, 'proposed'); },
    owner: ['focus', 'confirm', '--id', 'fa-1'] },
  { tool: 'record_pulse_focus_area', args: { action: 'track', id: 'fa-1', note: '+12 subscribers this week' },
    check: (r) => assert.equal(r.focus_area.tracking[0].note, '+12 subscribers this week') },
  { tool: 'record_pulse_focus_area', args: { action: 'confirm', id: 'fa-1' }, error: /must be one of propose, track, close/ },
  { tool: 'record_pulse_focus_area', args: { action: 'close', id: 'fa-1', lesson: 'weekly experiments beat monthly ones' },
    check: (r) => { assert.equal(r.focus_area.status, 'done'); assert.equal(r.lesson_in_memory, true); } },
  { tool: 'record_pulse_qa_request', args: { what: 'check the growth_funnel step records subscribers', why: 'no reading for 20 days' },
    check: (r) => { assert.equal(r.request_id, 1); assert.equal(r.status, 'pending'); } },
  { tool: 'record_pulse_fast_request', args: { why: 'the owner resumed the schedules' }, check: (r) => assert.equal(r.coalesced, false) },
  { tool: 'record_pulse_fast_request', args: { why: 'and again' }, check: (r) => assert.equal(r.coalesced, true) },
  { tool: 'ask_builder', args: { kind: 'question', message: 'Why was growth_funnel paused?' },
    check: (r) => { assert.equal(r.status, 'no_builder_chat'); assert.ok(r.ask_id); } },
  { tool: 'ask_builder', args: { kind: 'fix', message: 'Add a step that records subscribers', title: 'Measure subscribers', why: 'unmeasured for 20 days' },
    check: (r) => { assert.equal(r.status, 'decision'); assert.equal(r.decision_id, 2); } },
  { tool: 'ask_builder', args: { kind: 'fix', message: 'Edit soul.md to lower the target' }, error: /soul\.md/ },
  { tool: 'record_pulse_decision_outcome', args: { id: 1, result: 'runs resumed' }, error: /is pending/ },
];

// One leg: {ok, doc} for a carried-out call or {ok: false, error} for a
// Status error (bad arguments, a rule) or a guard refusal (its reason).
const LEGS = {
  async route(s, ws, wf, session, step) {
    const r = await request(`${s.url}s/${session.session}/tools/custom/${step.tool}`, { method: 'POST', token: session.token, body: step.args });
    if (r.status === 200) return { ok: true, doc: r.body };
    return { ok: false, error: r.body.error || r.body.reason };
  },
  async mcp(s, ws, wf, session, step) {
    const r = await mcp(s.url, session.token, 'tools/call', { name: step.tool, arguments: step.args }, 7);
    const res = r.body.result;
    if (!res.isError) return { ok: true, doc: res.structuredContent };
    return { ok: false, error: res.structuredContent.error || res.structuredContent.reason };
  },
  async cli(s, ws, wf, session, step) {
    const r = pulse(['tool', '--workspace', ws, '--workflow', wf, '--now', NOW, '--token', session.token, '--tool', step.tool,
      '--args', JSON.stringify(step.args)]);
    if (r.status === 0) return { ok: true, doc: r.json };
    if (r.json && r.json.refused) return { ok: false, error: r.json.reason };
    return { ok: false, error: r.stderr.trim().replace(/^pulse: /, '') };
  },
};

// Session ids, workflow names and the memory file's hash differ per leg.
function normalize(doc, wf, session) {
  return JSON.parse(JSON.stringify(doc).split(session.session).join('<session>').split(wf).join('<wf>')
    .replace(/"hash":"[^"]*"/g, '"hash":"<h>"'));
}

test('every Pulse tool: the same result over the tool route, MCP and the CLI; never executed: false', async () => {
  const tmp = makeTempDir('pulse-tools-table-');
  const ws = makeWorkspace(tmp.dir, { viaroute: AUTO, viamcp: AUTO, viacli: AUTO });
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, NOW);
  const s = await startServer(ws, ['--no-tick', '--now-file', nowFile]);
  try {
    const sessions = {};
    for (const [leg, wf] of [['route', 'viaroute'], ['mcp', 'viamcp'], ['cli', 'viacli']]) sessions[leg] = { wf, ...openSession(ws, wf, 'goal_work') };
    for (const step of STEPS) {
      const seen = {};
      for (const leg of Object.keys(LEGS)) {
        const { wf } = sessions[leg];
        const out = await LEGS[leg](s, ws, wf, sessions[leg], step);
        const where = `${step.tool} ${JSON.stringify(step.args)} over ${leg}`;
        if (step.error) {
          assert.equal(out.ok, false, `${where}: ${JSON.stringify(out)}`);
          assert.match(out.error, step.error, where);
          assert.doesNotMatch(out.error, /\n/, `${where}: one line`);
        } else {
          assert.equal(out.ok, true, `${where}: ${JSON.stringify(out)}`);
          assert.equal(out.doc.executed, true, `${where}: ${JSON.stringify(out.doc)}`);
          assert.equal(out.doc.allowed, true, where);
          step.check(out.doc.result);
        }
        seen[leg] = normalize(out, wf, sessions[leg]);
        if (step.owner) {
          const r = pulse([...step.owner, '--workspace', ws, '--workflow', wf, '--now', NOW]);
          assert.equal(r.status, 0, r.stderr);
        }
      }
      assert.deepEqual(seen.mcp, seen.route, `${step.tool}: MCP and the route agree`);
      assert.deepEqual(seen.cli, seen.route, `${step.tool}: the CLI and the route agree`);
    }
    // What the tools recorded is visible: QA requests listed, the decision
    // from the fix with its recommendation, the lesson in goal memory.
    for (const wf of ['viaroute', 'viamcp', 'viacli']) {
      const qa = pulse(['qa', 'list', '--workspace', ws, '--workflow', wf, '--json']);
      assert.equal(qa.status, 0, qa.stderr);
      assert.equal(qa.json.requests.length, 1);
      const listed = await request(`${s.url}api/workflows/${wf}/requests`);
      assert.deepEqual(listed.body.requests.map((r) => r.kind).sort(), ['fast', 'qa']);
      // Pulse's two ask_builder calls are asks: the question had no Builder chat, the fix became decision 2.
      const asks = (await request(`${s.url}api/workflows/${wf}/asks?direction=ask_builder`)).body.asks;
      assert.deepEqual(asks.map((a) => [a.kind, a.status]), [['fix', 'decision'], ['question', 'no_builder_chat']]);
      const decisions = await request(`${s.url}api/workflows/${wf}/decisions?status=pending`);
      const fix = decisions.body.decisions.find((d) => d.id === 2);
      assert.equal(fix.recommendation.option, 'Make this fix');
      const memory = readFileSync(join(ws, 'Workflow', wf, 'memory', 'goal.md'), 'utf8');
      assert.match(memory, /Focus area "Weekly growth experiment" \(fa-1\) closed: weekly experiments beat monthly ones/);
    }
  } finally {
    await s.stop();
  }
});

test('a refused update_step, then create_decision_request: a pending decision in Needs you with the refused call', async () => {
  const tmp = makeTempDir('pulse-refusal-decision-');
  const ws = makeWorkspace(tmp.dir, { held: ASK });
  const s = await startServer(ws, ['--no-tick']);
  try {
    const session = openSession(ws, 'held', 'goal_work');
    const refused = await request(`${s.url}s/${session.session}/tools/custom/update_step`, {
      method: 'POST', token: session.token, body: { step_id: 'draft', prompt: 'measure subscribers' } });
    assert.equal(refused.status, 403);
    assert.match(refused.body.reason, /create_decision_request/);
    const asked = await request(`${s.url}s/${session.session}/tools/custom/create_decision_request`, {
      method: 'POST', token: session.token, body: { question: 'May I change the draft step to measure subscribers?', options: ['Yes', 'No'] } });
    assert.equal(asked.status, 200, asked.text);
    assert.equal(asked.body.executed, true);
    const id = asked.body.result.decision_id;
    assert.ok(Number.isInteger(id));
    assert.equal(asked.body.result.context.refused_call.tool, 'update_step');
    const pending = await request(`${s.url}api/workflows/held/decisions?status=pending`);
    const d = pending.body.decisions.find((x) => x.id === id);
    assert.ok(d, JSON.stringify(pending.body));
    assert.equal(d.status, 'pending');
    assert.equal(d.raised_by, 'pulse');
    assert.equal(d.context.refused_call.tool, 'update_step');
    assert.equal(d.context.refused_call.reason, refused.body.reason);
    // The next request in the session, with no refusal before it, has no context.
    const plain = await request(`${s.url}s/${session.session}/tools/custom/create_decision_request`, {
      method: 'POST', token: session.token, body: { question: 'Anything else?' } });
    assert.equal(plain.body.result.context, undefined);
  } finally {
    await s.stop();
  }
});

test('MCP lists the whole catalog and refuses a held platform tool as a tool error with the reason', async () => {
  const tmp = makeTempDir('pulse-mcp-catalog-');
  const ws = makeWorkspace(tmp.dir, { held: ASK });
  const s = await startServer(ws, ['--no-tick']);
  try {
    const session = openSession(ws, 'held', 'goal_work');
    const list = await mcp(s.url, session.token, 'tools/list', {}, 1);
    const tools = list.body.result.tools;
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ['create_decision_request', 'record_pulse_focus_area', 'record_pulse_goal_memory', 'record_pulse_qa_request',
      'record_pulse_fast_request', 'ask_builder', 'get_pulse_state', 'update_step', 'execute_step', 'send_slack_message', 'delete_step']) {
      assert.ok(byName[name], `${name} listed`);
      assert.ok(byName[name].description, `${name} described`);
      assert.equal(byName[name].inputSchema.type, 'object');
    }
    assert.deepEqual(byName.record_pulse_focus_area.inputSchema.properties.action.enum, ['propose', 'track', 'close']);
    const held = await mcp(s.url, session.token, 'tools/call', { name: 'update_step', arguments: { step_id: 'draft' } }, 2);
    assert.equal(held.body.result.isError, true);
    assert.match(held.body.result.content[0].text, /create_decision_request/);
    assert.equal(held.body.result.structuredContent.refused, true);
  } finally {
    await s.stop();
  }
});

test('an allowed platform tool: carry_out_on_platform without --platform; forwarded and answered with it', async () => {
  const tmp = makeTempDir('pulse-platform-');
  const ws = makeWorkspace(tmp.dir, { free: AUTO });
  const script = join(tmp.dir, 'platform.mjs');
  writeFileSync(script, `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const c=JSON.parse(s);
    if (c.arguments.step_id === 'broken') { process.stderr.write('no such step: broken'); process.exit(3); }
    process.stdout.write(JSON.stringify({ran: c.tool, step: c.arguments.step_id, turn: c.turn, workflow: c.workflow}));});\n`);
  let s = await startServer(ws, ['--no-tick']);
  try {
    const session = openSession(ws, 'free', 'goal_work');
    const marked = await request(`${s.url}s/${session.session}/tools/custom/update_step`, { method: 'POST', token: session.token, body: { step_id: 'draft' } });
    assert.equal(marked.status, 200);
    assert.equal(marked.body.allowed, true);
    assert.equal(marked.body.status, 'carry_out_on_platform');
    assert.equal(marked.body.done, false);
    assert.equal(marked.body.executed, undefined, 'no "executed: false" to misread');
    assert.match(marked.body.note, /NOT carried out/);
  } finally {
    await s.stop();
  }
  s = await startServer(ws, ['--no-tick', '--platform', `node ${script}`]);
  try {
    const session = openSession(ws, 'free', 'goal_work');
    const done = await request(`${s.url}s/${session.session}/tools/custom/update_step`, { method: 'POST', token: session.token, body: { step_id: 'draft' } });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.status, 'forwarded');
    assert.equal(done.body.done, true);
    assert.deepEqual(done.body.result, { ran: 'update_step', step: 'draft', turn: 'goal_work', workflow: 'free' });
    const viaMcp = await mcp(s.url, session.token, 'tools/call', { name: 'update_step', arguments: { step_id: 'b' } }, 3);
    assert.equal(viaMcp.body.result.isError, false);
    assert.equal(viaMcp.body.result.structuredContent.result.step, 'b');
    // The platform failed it: forwarded, not done, with what the command said.
    const failed = await request(`${s.url}s/${session.session}/tools/custom/update_step`, { method: 'POST', token: session.token, body: { step_id: 'broken' } });
    assert.equal(failed.status, 200, failed.text);
    assert.equal(failed.body.status, 'forwarded');
    assert.equal(failed.body.done, false);
    assert.equal(failed.body.result.exit_code, 3);
    assert.match(failed.body.result.stderr, /no such step: broken/);
    // A Pulse tool never goes to the platform.
    const own = await request(`${s.url}s/${session.session}/tools/custom/record_pulse_qa_request`, { method: 'POST', token: session.token, body: { what: 'x' } });
    assert.equal(own.body.executed, true);
  } finally {
    await s.stop();
  }
});

test('goal memory through the tool: told to consolidate past 45 entries, consolidated to 60, the owner\'s lines kept', async () => {
  const tmp = makeTempDir('pulse-memory-tool-');
  const ws = makeWorkspace(tmp.dir, { mem: ASK });
  const s = await startServer(ws, ['--no-tick']);
  try {
    const session = openSession(ws, 'mem', 'goal_work');
    const tool = async (args) => {
      const r = await request(`${s.url}s/${session.session}/tools/custom/record_pulse_goal_memory`, { method: 'POST', token: session.token, body: args });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.executed, true);
      return r.body.result;
    };
    // The owner's two lines: an answer (copied in by code) and one written by hand.
    const d = pulse(['decision', 'create', '--workspace', ws, '--workflow', 'mem', '--question', 'Post on Sundays?', '--option', 'yes', '--option', 'no']);
    assert.equal(d.status, 0, d.stderr);
    const answered = pulse(['decision', 'answer', '--workspace', ws, '--workflow', 'mem', '--id', '1', '--option', 'yes', '--note', 'readers like it']);
    assert.equal(answered.status, 0, answered.stderr);
    const path = join(ws, 'Workflow', 'mem', 'memory', 'goal.md');
    writeFileSync(path, readFileSync(path, 'utf8').replace('## Lessons\n', '## Lessons\n- 2026-01-02 [result] the owner\'s own line, by hand\n'));
    let last;
    let viewed = false;
    for (let i = 1; last === undefined || last.entry_count < 64; i++) {
      last = await tool({ section: 'lessons', text: `lesson number ${i}`, source: 'result' });
      assert.equal(last.consolidate_due, last.entry_count > 45, `entry ${last.entry_count}: told to consolidate past 45 only`);
      if (last.entry_count === 46) {
        const view = await request(`${s.url}s/${session.session}/tools/custom/get_pulse_state`, { method: 'POST', token: session.token, body: { view: 'goal_status' } });
        assert.equal(view.body.result.goal_lead.memory.consolidate_due, true, 'the goal_status view carries the memory');
        viewed = true;
      }
    }
    assert.ok(viewed, 'the count passed 46 one entry at a time (the goal_status view was read there)');
    assert.equal(last.entry_count, 64);
    assert.equal(last.over_limit, true);
    const viaMcp = await mcp(s.url, session.token, 'tools/call', { name: 'record_pulse_goal_memory', arguments: { action: 'consolidate' } }, 9);
    assert.equal(viaMcp.body.result.isError, false, JSON.stringify(viaMcp.body));
    const done = viaMcp.body.result.structuredContent.result;
    assert.equal(done.action, 'consolidate');
    assert.equal(done.entry_count, 60);
    assert.equal(done.dropped, 4);
    assert.equal(done.over_limit, false);
    const text = readFileSync(path, 'utf8');
    assert.match(text, /the owner's own line, by hand/);
    assert.match(text, /\[owner answer\] .*Post on Sundays\?.*yes/);
    for (let i = 1; i <= 4; i++) assert.doesNotMatch(text, new RegExp(`lesson number ${i}\\n`), `the oldest of Pulse's lines went: ${i}`);
    assert.match(text, /lesson number 5\n/);
    // A smaller number than 60 is refused, nothing changed.
    const smaller = await request(`${s.url}s/${session.session}/tools/custom/record_pulse_goal_memory`, { method: 'POST', token: session.token, body: { action: 'consolidate', entries: 10 } });
    assert.equal(smaller.status, 400);
    assert.match(smaller.body.error, /entries/);
    assert.equal(readFileSync(path, 'utf8'), text);
  } finally {
    await s.stop();
  }
});
