// Slack against the real `pulse serve` and a loopback Slack stand-in
// (slack_standin.mjs): the url_verification challenge; signed requests only
// (good, bad, stale, replayed, retried); routing by `<slug>-pulse` and the
// `-goal` alias, with one reply for an unknown slug or two slugs; a bound
// thread answered after a restart with its earlier lines replayed; the
// access check both ways; and replies posted with chat.postMessage in the
// same thread.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import {
  HEALTHY_CONFIG, SUBSTACK_CONFIG, buildHealthy, buildSubstack, makeTempDir, request, setNow, startServer, waitFor,
} from './helpers.mjs';
import { BOT_TOKEN, SIGNING_SECRET, messageEvent, slackHeaders, startSlackStandIn } from './slack_standin.mjs';

const USERS = {
  U_ANA: { name: 'ana', email: 'ana@example.com' },   // owner of substack
  U_BO: { name: 'bo', email: 'Bo@Example.com' },      // editor of substack
  U_CY: { name: 'cy', email: 'cy@example.com' },      // an account without access
  U_ZED: { name: 'zed', email: 'zed@elsewhere.org' }, // no account at all
};

export function slackWorkspace(dir, slackBase, { substackNotify, digestNotify } = {}) {
  const ws = join(dir, 'ws');
  const access = [{ account: 'ana', role: 'owner' }, { account: 'bo', role: 'editor' }];
  buildSubstack(ws, 'substack', { ...SUBSTACK_CONFIG, slug: 'substack', access,
    pulse: { ...SUBSTACK_CONFIG.pulse, notify: substackNotify || {} } });
  buildHealthy(ws, 'weekly', { ...HEALTHY_CONFIG, slug: 'digest', access: [{ account: 'ana', role: 'owner' }],
    pulse: { ...HEALTHY_CONFIG.pulse, notify: digestNotify || {} } });
  mkdirSync(join(ws, '.pulse'), { recursive: true });
  writeFileSync(join(ws, '.pulse', 'slack.json'),
    JSON.stringify({ signing_secret: SIGNING_SECRET, bot_token: BOT_TOKEN, api_base_url: slackBase }));
  writeFileSync(join(ws, '.pulse', 'accounts.json'), JSON.stringify([
    { account: 'ana', emails: ['ana@example.com'] }, { account: 'bo', emails: ['bo@example.com'] },
    { account: 'cy', emails: ['cy@example.com'] }]));
  return ws;
}

export async function sendSlack(s, doc, opts = {}) {
  const raw = typeof doc === 'string' ? doc : JSON.stringify(doc);
  return request(`${s.url}slack/events`, { method: 'POST', raw, headers: { ...slackHeaders(raw, opts), ...(opts.headers || {}) } });
}

const conversationTurns = async (s, wf = 'substack') =>
  ((await request(`${s.url}api/workflows/${wf}/conversation`)).body.turns || []).filter((t) => t.turn === 'ask_pulse');

test('Slack: challenge, signatures, routing, threads across a restart, access', { timeout: 240000 }, async () => {
  const tmp = makeTempDir('pulse-slack-');
  const slack = await startSlackStandIn({ channels: ['C1', 'C2'], users: USERS });
  const ws = slackWorkspace(tmp.dir, slack.base);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const args = ['--no-tick', '--now-file', nowFile];
  let s = await startServer(ws, args);
  try {
    // The challenge: only when signed.
    const challenge = { token: 't', challenge: 'c-3eZbrw1aBm2rZgRNFdxV2595E9CY', type: 'url_verification' };
    assert.equal((await request(`${s.url}slack/events`, { method: 'POST', body: challenge })).status, 401);
    const ok = await sendSlack(s, challenge);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.challenge, challenge.challenge);

    // Bad, stale and replayed requests: 401, nothing taken in.
    const first = messageEvent({ channel: 'C1', user: 'U_ANA', text: 'substack-pulse how are subscribers doing?' });
    const raw = JSON.stringify(first);
    const bad = await sendSlack(s, raw, { secret: 'not-the-secret' });
    assert.equal(bad.status, 401);
    assert.match(bad.body.error, /does not match/);
    const stale = await sendSlack(s, raw, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    assert.equal(stale.status, 401);
    assert.match(stale.body.error, /5 minutes/);
    assert.equal((await sendSlack(s, '{"type": "event_callback", "event_id": ', {})).status, 400);
    assert.equal((await conversationTurns(s)).length, 0, 'nothing reached the conversation');
    assert.equal(slack.posts().length, 0);

    // A good one: answered at once, the turn in the background, the reply in the thread.
    const ts = Math.floor(Date.now() / 1000);
    const good = await sendSlack(s, raw, { timestamp: ts });
    assert.equal(good.status, 200, good.text);
    const replay = await sendSlack(s, raw, { timestamp: ts });
    assert.equal(replay.status, 401, 'the same signed request twice is a replay');
    assert.match(replay.body.error, /replayed/);
    // Slack's retry of the same event (signed afresh): 200, not handled twice.
    const retried = await sendSlack(s, raw, { retry: 1, timestamp: ts + 1 });
    assert.equal(retried.status, 200);
    const reply = await waitFor(() => slack.posts().find((c) => c.fields.thread_ts === first.event.ts), { what: 'the reply in the thread' });
    assert.equal(reply.fields.channel, 'C1');
    assert.match(reply.fields.text, /^Substack Pulse/);
    assert.match(reply.fields.text, /not measured/);
    assert.match(reply.type, /application\/json/);
    const infos = slack.state.calls.filter((c) => c.method === 'users.info');
    assert.equal(infos[0].fields.user, 'U_ANA');
    assert.equal(infos[0].type, 'application/x-www-form-urlencoded');
    let turns = await conversationTurns(s);
    assert.equal(turns.length, 1, 'the retry was not handled twice');
    assert.equal(turns[0].caller, 'owner');
    assert.match(turns[0].text, /ana wrote:\nsubstack-pulse how are subscribers doing\?/);
    const outbox = (await request(`${s.url}api/workflows/substack/outbox`)).body.messages;
    const stored = await waitFor(async () => (await request(`${s.url}api/workflows/substack/outbox`)).body.messages
      .find((m) => m.delivery === 'delivered'), { what: 'the reply marked delivered' });
    assert.equal(stored.deliveries[0].target, `slack:C1/${first.event.ts}`);
    assert.ok(outbox.length >= 1);

    // The -goal alias routes to the workflow whose slug it names (folder "weekly", slug "digest").
    const alias = messageEvent({ channel: 'C2', user: 'U_ANA', text: 'digest-goal are readers up?' });
    assert.equal((await sendSlack(s, alias)).status, 200);
    const aliasReply = await waitFor(() => slack.posts().find((c) => c.fields.thread_ts === alias.event.ts), { what: 'the alias reply' });
    assert.match(aliasReply.fields.text, /^Digest Pulse/);
    assert.equal((await conversationTurns(s, 'weekly')).length, 1);

    // Unknown slug and two slugs: one clear reply each, nothing in any conversation.
    const unknown = messageEvent({ channel: 'C1', user: 'U_ANA', text: 'podcast-pulse are we growing?' });
    await sendSlack(s, unknown);
    const u = await waitFor(() => slack.posts().find((c) => c.fields.thread_ts === unknown.event.ts), { what: 'the unknown-slug reply' });
    assert.match(u.fields.text, /No workflow here answers to podcast-pulse.*substack-pulse, digest-pulse/);
    const two = messageEvent({ channel: 'C1', user: 'U_ANA', text: 'substack-pulse and digest-pulse, compare notes' });
    await sendSlack(s, two);
    const t = await waitFor(() => slack.posts().find((c) => c.fields.thread_ts === two.event.ts), { what: 'the two-slugs reply' });
    assert.match(t.fields.text, /more than one workflow's Pulse \(substack-pulse, digest-pulse\)/);
    assert.equal((await conversationTurns(s)).length, 1);

    // Access: an editor is heard; an account without access and a stranger get one polite reply each.
    const bo = messageEvent({ channel: 'C1', user: 'U_BO', text: 'substack-pulse what should we try next?' });
    await sendSlack(s, bo);
    await waitFor(() => slack.posts().find((c) => c.fields.thread_ts === bo.event.ts), { what: "bo's reply" });
    turns = await conversationTurns(s);
    assert.equal(turns.length, 2);
    assert.match(turns[1].text, /bo wrote:/);
    // An editor's words are theirs, not the owner's: the turn says so and
    // frames no owner relay (the owner's own message does).
    assert.equal(turns[1].caller, 'bot');
    assert.doesNotMatch(turns[1].text, /The owner wrote|this is an owner relay/);
    assert.match(turns[1].text, /bo \(not the owner; caller bot\) wrote:/);
    assert.match(turns[1].text, /not its owner/);
    assert.match(turns[0].text, /this is an owner relay[^]*The owner wrote:/);
    for (const user of ['U_CY', 'U_ZED']) {
      const m = messageEvent({ channel: 'C1', user, text: 'substack-pulse let me in' });
      await sendSlack(s, m);
      const no = await waitFor(() => slack.posts().find((c) => c.fields.thread_ts === m.event.ts), { what: `${user}'s refusal` });
      assert.match(no.fields.text, /don't have access to the substack workflow, so Substack Pulse can't take your message/);
      // Again in the same thread: no second reply.
      const again = messageEvent({ channel: 'C1', user, text: 'hello?', thread_ts: m.event.ts });
      await sendSlack(s, again);
      const probe = messageEvent({ channel: 'C1', user: 'U_ANA', text: 'podcast-pulse ping' });
      await sendSlack(s, probe);
      await waitFor(() => slack.posts().find((c) => c.fields.thread_ts === probe.event.ts), { what: 'the queue drained' });
      assert.equal(slack.posts().filter((c) => c.fields.thread_ts === m.event.ts).length, 1);
    }
    assert.equal((await conversationTurns(s)).length, 2, 'nothing from people without access reached the conversation');

    // A DM: bound as a whole, answered in the DM.
    const dm = messageEvent({ channel: 'D1', channel_type: 'im', user: 'U_ANA', text: 'substack-pulse hi from a DM' });
    await sendSlack(s, dm);
    const dmReply = await waitFor(() => slack.posts().find((c) => c.fields.channel === 'D1'), { what: 'the DM reply' });
    assert.equal(dmReply.fields.thread_ts, undefined);

    // A restart: the thread stays bound; a plain reply in it is answered
    // there, with the thread's earlier lines replayed into the turn.
    await waitFor(async () => !(await request(`${s.url}api/workflows/substack/conversation`)).body.running, { what: 'turns done' });
    await s.stop();
    s = await startServer(ws, args);
    const plain = messageEvent({ channel: 'C1', user: 'U_ANA', text: 'and what about the failed runs?', thread_ts: first.event.ts });
    await sendSlack(s, plain);
    await waitFor(() => slack.posts().filter((c) => c.fields.thread_ts === first.event.ts).length >= 2, { what: 'the answer in the bound thread' });
    turns = await conversationTurns(s);
    const last = turns[turns.length - 1];
    assert.match(last.text, /Earlier in this Slack thread \(oldest first\):/);
    assert.match(last.text, /ana: substack-pulse how are subscribers doing\?/);
    assert.match(last.text, /Substack Pulse: .*not measured/);
    assert.match(last.text, /ana wrote:\nand what about the failed runs\?$/);
    // Chatter in a thread nobody bound stays unanswered.
    const before = slack.posts().length;
    const chatter = messageEvent({ channel: 'C2', user: 'U_ANA', text: 'lunch?' });
    await sendSlack(s, chatter);
    const dmPlain = messageEvent({ channel: 'D1', channel_type: 'im', user: 'U_ANA', text: 'still there?' });
    await sendSlack(s, dmPlain);
    await waitFor(() => slack.posts().filter((c) => c.fields.channel === 'D1').length >= 2, { what: 'the DM answered after the restart' });
    assert.equal(slack.posts().length, before + 1, 'only the DM was answered');
  } finally {
    await s.stop();
    await slack.close();
    tmp.cleanup();
  }
});
