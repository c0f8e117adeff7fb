// GET /metrics says what the workspace holds: against a real `pulse serve`
// (tick off, clock fixed by --now-file) on workflows whose numbers are known,
// every per-workflow gauge has its exact value (goal status, the metric's
// value and target, seconds since measured by a run, alarms and attention
// items by kind, pending decisions, focus areas open, agents running and
// stuck), and the counters move with what the server does (guard decisions
// by rule and outcome, a turn by kind and outcome with its duration, the
// agent-log events it recorded). A client outside loopback gets 403 unless
// --metrics-public; past --metrics-max-workflows the rest are counted.
// (The real Prometheus is in metrics_prometheus.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { missingOf, skipUnless } from '../strict.mjs';
import {
  buildHealthy, buildSubstack, HEALTHY_CONFIG, makeTempDir, makeWorkspace, pulse, request, setNow, startServer,
  SUBSTACK_CONFIG, waitFor,
} from './helpers.mjs';

// The value of one series, or undefined when it is not there.
function sample(text, name, labels = {}) {
  const want = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}="${v}"`).join(',');
  const line = text.split('\n').find((l) => l.startsWith(want ? `${name}{${want}} ` : `${name} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const scrape = async (s) => {
  const r = await request(`${s.url}metrics`);
  assert.equal(r.status, 200, r.text);
  return r.text;
};

test('the per-workflow gauges hold the workspace\'s numbers; the guard, turn and agent-log counters move', { timeout: 90000 }, async () => {
  const tmp = makeTempDir('pulse-metrics-');
  const ws = join(tmp.dir, 'ws');
  // Two focus areas open (one active, one proposed), one done.
  const area = (id, title, status) => ({ id, title, status, end_date: '2026-11-01', check: '', lesson: '', proposed_by: 'owner',
    created_at: '2026-10-01T00:00:00Z', updated_at: '2026-10-01T00:00:00Z', tracking: [] });
  buildHealthy(ws, 'healthy', {
    ...HEALTHY_CONFIG,
    pulse: {
      ...HEALTHY_CONFIG.pulse, focus_areas: ['Launch week'],
      focus_area_details: [area('fa-1', 'Launch week', 'active'), area('fa-2', 'Referral test', 'proposed'), area('fa-3', 'Old push', 'done')],
    },
  });
  buildSubstack(ws);
  // Two agents running in healthy, one of them past the stuck age (60 min).
  for (const [agent, at] of [['old', '2026-10-07T10:00:00Z'], ['new', '2026-10-07T11:50:00Z']]) {
    const r = pulse(['agent-log', 'started', '--workspace', ws, '--workflow', 'healthy', '--session', 'bg-1', '--agent', agent, '--at', at]);
    assert.equal(r.status, 0, r.stderr);
  }
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const s = await startServer(ws, ['--no-tick', '--now-file', nowFile]);
  try {
    let text = await waitFor(async () => {
      const t = await scrape(s);
      return sample(t, 'pulse_metrics_refreshes') >= 1 && t;
    }, { what: 'the first refresh of the gauges' });
    const h = { workflow: 'healthy' };
    const sub = { workflow: 'substack' };
    // Goal status: one series per status, 1 for the current one.
    for (const st of ['on_track', 'at_risk', 'off_track', 'not_measured', 'no_goal']) {
      assert.equal(sample(text, 'pulse_goal_status', { ...h, status: st }), st === 'on_track' ? 1 : 0, `healthy ${st}`);
      assert.equal(sample(text, 'pulse_goal_status', { ...sub, status: st }), st === 'not_measured' ? 1 : 0, `substack ${st}`);
    }
    // The primary metric: readers 150 of 200, measured by a run at 09:20 yesterday (26 h 40 min before the clock).
    assert.equal(sample(text, 'pulse_goal_metric_value', h), 150);
    assert.equal(sample(text, 'pulse_goal_metric_target', h), 200);
    assert.equal(sample(text, 'pulse_goal_seconds_since_measured_by_run', h), 26 * 3600 + 40 * 60);
    // Substack: 412 by a Builder chat; its last run reading on 17 Sep 09:20.
    assert.equal(sample(text, 'pulse_goal_metric_value', sub), 412);
    assert.equal(sample(text, 'pulse_goal_seconds_since_measured_by_run', sub), Date.parse('2026-10-07T12:00:00Z') / 1000 - Date.parse('2026-09-17T09:20:00Z') / 1000);
    // Alarms: substack's goal is not measured, healthy has none.
    const check = (await request(`${s.url}api/workflows/substack/goal-status`)).body;
    const kinds = new Set(check.alarms.map((a) => a.kind));
    assert.ok(kinds.has('not_measured'), JSON.stringify(check.alarms));
    for (const k of ['not_measured', 'goal_work_without_reading', 'goal_work_not_completed', 'no_run', 'schedules_paused']) {
      assert.equal(sample(text, 'pulse_goal_alarms', { ...sub, kind: k }), kinds.has(k) ? 1 : 0, `substack alarm ${k}`);
      assert.equal(sample(text, 'pulse_goal_alarms', { ...h, kind: k }), 0, `healthy alarm ${k}`);
    }
    // Attention items: the attention model's open items by kind, exactly as
    // the overview counts them (docs/attention.md), every kind present.
    const openByKind = (doc) => doc.attention.filter((a) => !a.snoozed)
      .reduce((m, a) => ({ ...m, [a.kind]: (m[a.kind] || 0) + 1 }), {});
    const subOpen = openByKind(check);
    const hOpen = openByKind((await request(`${s.url}api/workflows/healthy/goal-status`)).body);
    assert.ok(subOpen.goal_alarm >= 1, JSON.stringify(check.attention));
    for (const k of ['goal_alarm', 'needs_reauth', 'error_rate_spike', 'cost_spike', 'review_broken', 'delivery_failed',
      'schedule_late', 'decision_waiting']) {
      assert.equal(sample(text, 'pulse_attention_items', { ...sub, kind: k }), subOpen[k] || 0, `substack attention ${k}`);
      assert.equal(sample(text, 'pulse_attention_items', { ...h, kind: k }), hOpen[k] || 0, `healthy attention ${k}`);
    }
    // Focus areas open: the active and the proposed one.
    assert.equal(sample(text, 'pulse_focus_areas_open', h), 2);
    assert.equal(sample(text, 'pulse_focus_areas_open', sub), 0);
    // Agents: two running, the one started two hours ago stuck.
    assert.equal(sample(text, 'pulse_agents_running', h), 2);
    assert.equal(sample(text, 'pulse_agents_stuck', h), 1);
    assert.equal(sample(text, 'pulse_agents_running', sub), 0);
    assert.equal(sample(text, 'pulse_decisions_pending', h), 0);
    assert.equal(sample(text, 'pulse_attention_items', { ...h, kind: 'decision_waiting' }), 0);
    // Nothing guarded or turned yet.
    assert.doesNotMatch(text, /^pulse_guard_decisions_total\{/m);
    assert.doesNotMatch(text, /^pulse_turns_total\{/m);

    // A guarded session: one call the guard holds (run=ask), one it allows (a decision for the owner).
    const opened = pulse(['session', 'open', '--workspace', ws, '--workflow', 'healthy', '--turn', 'goal_work']);
    assert.equal(opened.status, 0, opened.stderr);
    const { session: sid, token } = opened.json;
    const held = await request(`${s.url}s/${sid}/tools/custom/trigger_schedule`, { method: 'POST', token, body: { schedule_id: 'daily' } });
    assert.equal(held.status, 403, held.text);
    const made = await request(`${s.url}s/${sid}/tools/custom/create_decision_request`, {
      method: 'POST', token, body: { question: 'Add a second weekly post?', options: ['Yes', 'No'] } });
    assert.equal(made.status, 200, made.text);
    // Counted by the rule that decided (the turn below adds its own).
    const guard = [...(await scrape(s)).matchAll(/^pulse_guard_decisions_total\{outcome="(\w+)",rule="(\w+)"\} (\d+)$/gm)]
      .map((m) => [m[1], m[2], Number(m[3])]);
    assert.deepEqual(guard, [['allowed', 'pulse_record', 1], ['refused', 'run_level', 1]]);
    // The owner closes the older agent; one message to Pulse is a turn.
    const r = pulse(['agent-log', 'completed', '--workspace', ws, '--workflow', 'healthy', '--session', 'bg-1', '--agent', 'old']);
    assert.equal(r.status, 0, r.stderr);
    const sent = await request(`${s.url}api/workflows/healthy/messages`, { method: 'POST', token: s.ownerToken, body: { text: 'How are we doing?' } });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    text = await waitFor(async () => {
      const t = await scrape(s);
      return sample(t, 'pulse_turns_total', { kind: 'ask_pulse', outcome: 'completed' }) === 1
        && sample(t, 'pulse_decisions_pending', h) >= 1 && sample(t, 'pulse_agents_stuck', h) === 0 && t;
    }, { what: 'the turn counted and the gauges refreshed' });
    assert.equal(sample(text, 'pulse_turn_duration_seconds_count', { kind: 'ask_pulse' }), 1);
    assert.ok(sample(text, 'pulse_turn_duration_seconds_sum', { kind: 'ask_pulse' }) > 0);
    // The turn's own row, started and completed by this server.
    assert.ok(sample(text, 'pulse_agent_log_events_total', { event: 'started' }) >= 1);
    assert.ok(sample(text, 'pulse_agent_log_events_total', { event: 'completed' }) >= 1);
    // The gauges follow the database: the decision made above (and any the turn made) is pending,
    // the stuck agent is done.
    const pending = (await request(`${s.url}api/workflows/healthy/call/decision.list`, { method: 'POST', body: { status: 'pending' } })).body.result.decisions.length;
    assert.equal(sample(text, 'pulse_decisions_pending', h), pending);
    // A decision made minutes ago is pending, not yet an attention item
    // (decision_waiting: waiting for over a day).
    assert.ok(pending >= 1);
    assert.equal(sample(text, 'pulse_attention_items', { ...h, kind: 'decision_waiting' }), 0);
    assert.equal(sample(text, 'pulse_agents_running', h), 1);
    // No session, run or message id in any label.
    assert.doesNotMatch(text, new RegExp(`${sid}|bg-1|${sent.body.turn.agent}|How are we`));
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

// This machine's own address outside loopback: a request from it to it
// arrives from a non-loopback address, as a Prometheus on another host's would.
const OUTSIDE = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
const skipOutside = skipUnless(import.meta.url, missingOf([
  [Boolean(OUTSIDE), 'no IPv4 address outside loopback on this machine to ask /metrics from'],
]));

test('/metrics refuses a client outside loopback unless --metrics-public; past --metrics-max-workflows the rest are counted', { skip: skipOutside, timeout: 60000 }, async () => {
  const tmp = makeTempDir('pulse-metrics-outside-');
  const ws = makeWorkspace(tmp.dir, { alpha: SUBSTACK_CONFIG, beta: SUBSTACK_CONFIG, gamma: SUBSTACK_CONFIG });
  let s = await startServer(ws, ['--no-tick', '--host', OUTSIDE]);
  try {
    assert.equal(new URL(s.url).hostname, OUTSIDE);
    const refused = await request(`${s.url}metrics`);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.error, /^\/metrics answers loopback clients only; start pulse serve with --metrics-public/);
    assert.doesNotMatch(refused.text, /pulse_/);
    // The rest of the server still answers that client.
    assert.equal((await request(`${s.url}api/health`)).status, 200);
    await s.stop();

    s = await startServer(ws, ['--no-tick', '--host', OUTSIDE, '--metrics-public', '--metrics-max-workflows', '2']);
    assert.match(s.stdout, /^pulse: metrics \S+metrics \(Prometheus\)$/m);
    const text = await waitFor(async () => {
      const t = await scrape(s);
      return sample(t, 'pulse_metrics_refreshes') >= 1 && t;
    }, { what: 'the first refresh of the gauges' });
    // The first two workflows in name order have gauges; the third is counted, not shown.
    assert.deepEqual([...text.matchAll(/^pulse_workflow_up\{workflow="([^"]+)"\} 1$/gm)].map((m) => m[1]), ['alpha', 'beta']);
    assert.doesNotMatch(text, /workflow="gamma"/);
    assert.equal(sample(text, 'pulse_workflows'), 3);
    assert.equal(sample(text, 'pulse_metrics_workflows_omitted'), 1);
    assert.ok(sample(text, 'pulse_metrics_workflows_omitted_total') >= 1);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
