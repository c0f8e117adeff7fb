// Pulse's notifications through the outbox, against the real `pulse serve`
// and the loopback Slack stand-in: each message's delivery per target
// (webhook and Slack channel), a `ratelimited` answer retried after
// Retry-After, `channel_not_found` given up with its reason, a revoked
// token's `invalid_auth` shown on the message, "needs you" from Pulse's
// decision tool, and the recovery message when the goal is measured again.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import {
  SUBSTACK_CONFIG, addRun, buildSubstack, makeTempDir, observe, pulse, request, setNow, startServer, waitFor,
} from './helpers.mjs';
import { SIGNING_SECRET, startSlackStandIn } from './slack_standin.mjs';

const outbox = async (s, wf) => (await request(`${s.url}api/workflows/${wf}/outbox`)).body.messages;
const find = async (s, wf, pred) => (await outbox(s, wf)).find(pred);

test('Slack delivery: states per target, retries with backoff, errors shown, recovery', { timeout: 240000 }, async () => {
  const tmp = makeTempDir('pulse-slack-delivery-');
  const slack = await startSlackStandIn({ channels: ['#growth'] });
  slack.state.rateLimitNext = 1;
  slack.state.rateLimitChannel = '#growth';
  slack.state.retryAfter = 45;
  const hooked = [];
  const hook = createServer((req, res) => { let b = ''; req.on('data', (d) => { b += d; }); req.on('end', () => { hooked.push(JSON.parse(b)); res.end('ok'); }); });
  await new Promise((r) => hook.listen(0, '127.0.0.1', r));
  const ws = join(tmp.dir, 'ws');
  const notify = { slack_channel: '#growth', webhook_url: `http://127.0.0.1:${hook.address().port}/hook` };
  buildSubstack(ws, 'substack', { ...SUBSTACK_CONFIG, pulse: { ...SUBSTACK_CONFIG.pulse, notify } });
  buildSubstack(ws, 'podcast', { ...SUBSTACK_CONFIG, pulse: { ...SUBSTACK_CONFIG.pulse, notify: { slack_channel: '#nowhere' } } });
  mkdirSync(join(ws, '.pulse'), { recursive: true });
  const slackJson = join(ws, '.pulse', 'slack.json');
  writeFileSync(slackJson, JSON.stringify({ signing_secret: SIGNING_SECRET, bot_token: 'xoxb-1111-2222-standin', api_base_url: slack.base }));
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile]);
  try {
    // The goal check's summary: the webhook takes it, Slack says ratelimited.
    const summary = await waitFor(() => find(s, 'substack', (m) => m.kind === 'pulse_summary' && m.delivery === 'retrying'),
      { what: 'the summary retrying' });
    const [toHook, toSlack] = summary.deliveries;
    assert.equal(toHook.target, 'webhook');
    assert.equal(toHook.state, 'delivered');
    assert.equal(toSlack.target, 'slack:#growth');
    assert.equal(toSlack.state, 'retrying');
    assert.match(toSlack.error, /ratelimited \(retry after 45 s\)/);
    assert.equal(toSlack.attempts, 1);
    // The deliverer's clock moves on from the fixed now (MovingClockEnv): on a
    // loaded machine the attempt may come a second or two after the start.
    const attemptedAt = Date.parse(toSlack.last_attempt_at);
    assert.ok(attemptedAt >= Date.parse('2026-10-07T12:00:00Z') && attemptedAt <= Date.parse('2026-10-07T12:00:30Z'), toSlack.last_attempt_at);
    assert.equal(Date.parse(toSlack.next_attempt_at) - attemptedAt, 45000, 'Retry-After decides the wait');
    assert.equal(summary.delivered_at, '');
    assert.equal(hooked[0].message.kind, 'pulse_summary');
    // A channel that does not exist: given up at once, with Slack's reason.
    const lost = await waitFor(() => find(s, 'podcast', (m) => m.kind === 'pulse_summary' && m.delivery === 'failed'),
      { what: 'channel_not_found' });
    assert.match(lost.deliveries[0].error, /channel_not_found/);
    assert.equal(lost.deliveries[0].next_attempt_at, null);
    // GET /metrics counts deliveries by the state they entered: three planned
    // (the webhook, #growth, #nowhere), the webhook delivered, #growth
    // retrying, #nowhere failed.
    const metrics = (await request(`${s.url}metrics`)).text;
    const entered = (state) => Number(metrics.match(new RegExp(`^pulse_deliveries_total\\{state="${state}"\\} (\\d+)$`, 'm'))?.[1]);
    assert.ok(entered('queued') >= 3, metrics);
    for (const state of ['delivered', 'retrying', 'failed']) assert.ok(entered(state) >= 1, `${state}: ${entered(state)}`);
    // The command line shows the same states.
    const cli = pulse(['outbox', 'list', '--workspace', ws, '--workflow', 'substack', '--json']);
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(cli.json.messages.find((m) => m.id === summary.id).deliveries[1].state, 'retrying');
    const text = pulse(['outbox', 'list', '--workspace', ws, '--workflow', 'podcast']);
    assert.match(text.stdout, /slack:#nowhere failed \(Slack: channel_not_found .*\), 1 attempt/);

    // Not retried before its time; after it, delivered.
    const postsBefore = slack.state.calls.filter((c) => c.method === 'chat.postMessage' && c.fields.channel === '#growth').length;
    setNow(nowFile, '2026-10-07T12:00:30Z');
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(slack.state.calls.filter((c) => c.method === 'chat.postMessage' && c.fields.channel === '#growth').length, postsBefore);
    setNow(nowFile, '2026-10-07T12:01:00Z');
    const delivered = await waitFor(() => find(s, 'substack', (m) => m.id === summary.id && m.delivery === 'delivered'),
      { what: 'the retry delivered' });
    assert.equal(delivered.deliveries[1].attempts, 2);
    assert.equal(delivered.delivered_at, '2026-10-07T12:01:00Z');
    const post = slack.posts().find((c) => c.fields.channel === '#growth');
    assert.match(post.fields.text, /^Substack Pulse: not measured/);
    assert.equal(post.fields.thread_ts, undefined);

    // The goal measured again by a run: one recovery message, to the same channels.
    addRun(ws, 'substack', { run_id: 'r-0100', started_at: '2026-10-07T11:30:00Z', finished_at: '2026-10-07T12:00:20Z', status: 'completed' }, 'growth_funnel');
    observe(ws, 'substack', 'subscribers', 450, '2026-10-07T12:00:10Z', 'workflow_run', 'r-0100');
    const recovery = await waitFor(() => find(s, 'substack', (m) => m.kind === 'pulse_recovery' && m.delivery === 'delivered'),
      { what: 'the recovery message delivered' });
    assert.match(recovery.text, /^Substack Pulse: the goal is measured again — subscribers 450 of 1000/);
    assert.match(recovery.text, /had not been measured by a run since 2026-10-07/);
    const recoveryPost = slack.posts().find((c) => /measured again/.test(c.fields.text));
    assert.equal(recoveryPost.fields.channel, '#growth');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await outbox(s, 'substack')).filter((m) => m.kind === 'pulse_recovery').length, 1, 'said once');

    // A revoked token: Slack answers invalid_auth; shown on the message, not retried.
    writeFileSync(slackJson, JSON.stringify({ signing_secret: SIGNING_SECRET, bot_token: 'xoxb-revoked', api_base_url: slack.base }));
    const session = pulse(['session', 'open', '--workspace', ws, '--workflow', 'substack', '--turn', 'goal_work']);
    assert.equal(session.status, 0, session.stderr);
    const { session: sid, token } = JSON.parse(session.stdout);
    const made = await request(`${s.url}s/${sid}/tools/custom/create_decision_request`, {
      method: 'POST', token, body: { question: 'Resume the daily schedule?', options: ['Resume', 'Keep paused'] } });
    assert.equal(made.status, 200, made.text);
    const needsYou = await waitFor(() => find(s, 'substack', (m) => m.kind === 'needs_you' && m.deliveries.some((d) => d.state === 'failed')),
      { what: 'needs_you failed with invalid_auth' });
    assert.match(needsYou.text, /^Substack Pulse needs you: Resume the daily schedule\?/);
    const failed = needsYou.deliveries.find((d) => d.target === 'slack:#growth');
    assert.match(failed.error, /invalid_auth .*bot_token/);
    assert.equal(needsYou.deliveries.find((d) => d.target === 'webhook').state, 'delivered');
    assert.equal(needsYou.delivery, 'failed');
  } finally {
    await s.stop();
    await slack.close();
    await new Promise((r) => hook.close(r));
    tmp.cleanup();
  }
});
