// The messages card: what Pulse has said to the owner (the workflow's
// outbox: the goal check's summary, replies, "needs you", the recovery
// message) and what became of each delivery (webhook, Slack channel, Slack
// thread): queued, delivered, failed with the reason and its retry time.
// In served mode the owner can ask for a goal check now.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { Card, EmptyState, plural } from './card.mjs';
import { formatTime } from '../format.mjs';

function deliveryState(m, local) {
  if (m.delivered_at) return { cls: 'delivered', text: `Delivered ${formatTime(m.delivered_at)} UTC` };
  if (m.delivery_error) {
    return { cls: 'failed', text: `Not delivered (${plural(m.attempts, 'attempt')}): ${m.delivery_error}` };
  }
  if (local) return { cls: 'waiting', text: 'Not delivered when this copy was made' };
  return { cls: 'waiting', text: m.attempts ? `Not delivered yet (${plural(m.attempts, 'attempt')})` : 'Waiting to be delivered' };
}

const KIND_WORDS = {
  pulse_summary: 'Goal check summary', pulse_reply: 'Reply from Pulse', needs_you: 'Pulse needs you',
  pulse_recovery: 'The goal is measured again',
};

// "slack:#growth" -> "Slack #growth"; "slack:C1/1700.1" -> "Slack C1 (thread)".
function targetWords(t) {
  if (t === 'webhook') return 'Webhook';
  if (t.startsWith('slack:')) {
    const [channel, thread] = t.slice(6).split('/');
    return `Slack ${channel}${thread ? ' (thread)' : ''}`;
  }
  return t;
}

// One target's delivery state: queued, delivered, failed with the reason
// and when it is retried, failed for good, or kept in the tab.
function deliveryLine(d, local) {
  const who = targetWords(d.target);
  const tries = plural(d.attempts, 'attempt');
  switch (d.state) {
    case 'delivered': return { cls: 'delivered', text: `${who}: delivered ${formatTime(d.delivered_at)} UTC` };
    // The words of `pulse outbox list`: retrying at a time (the last try's
    // error), or failed for good after its tries.
    case 'retrying': return { cls: 'retrying', text: `${who}: retrying at ${formatTime(d.next_attempt_at)} UTC (the last try failed: ${d.error}) · ${tries}` };
    case 'failed': return { cls: 'failed', text: `${who}: failed, not retried — ${d.error} (${tries})` };
    case 'not_sent': return { cls: 'waiting', text: 'Kept here in the Pulse tab (no channel for this message)' };
    default: return { cls: 'waiting', text: local ? `${who}: queued when this copy was made` : `${who}: queued` };
  }
}

const settled = (m) => (Array.isArray(m.deliveries) && m.deliveries.length
  ? m.deliveries.every((d) => d.state === 'delivered' || d.state === 'not_sent')
  : Boolean(m.delivered_at));

function Message({ m, local }) {
  const lines = Array.isArray(m.deliveries) && m.deliveries.length
    ? m.deliveries.map((d) => deliveryLine(d, local)) : [deliveryState(m, local)];
  return html`<li class="message" data-id=${m.id} data-delivery=${m.delivery || ''}>
    <p class="message-head"><strong>${m.title || KIND_WORDS[m.kind] || String(m.kind || '').replace(/_/g, ' ')}</strong>
      <span class="muted"> · ${formatTime(m.created_at)} UTC</span></p>
    ${lines.map((state) => html`<p class=${`delivery delivery-${state.cls}`}>${state.text}</p>`)}
    <details class="message-text"><summary>Show the message</summary><div class="pre-text">${m.text}</div></details>
  </li>`;
}

// Paused schedules, from the goal check's alarms.
const schedulesPaused = (check) => !!(check && Array.isArray(check.alarms)
  && check.alarms.some((a) => a.kind === 'schedules_paused' || a.schedules_paused));

// The owner's actions the API allows (a goal check now) and where the one it
// does not (resuming schedules) is done.
function OwnerActionsNote({ local, canAct, paused }) {
  const resume = paused
    ? ' The schedules are paused: Pulse\'s API cannot resume them (no route changes a schedule); resume them in the workflow\'s schedule settings on the platform, or answer Pulse\'s question in Needs you.'
    : '';
  if (local) return html`<p class="muted small owner-actions">Check now runs on the server (pulse serve), not on a copy.${resume}</p>`;
  if (!canAct) return html`<p class="muted small owner-actions">Check now needs the owner token.${resume}</p>`;
  return resume ? html`<p class="muted small owner-actions">${resume.trim()}</p>` : null;
}

export function MessagesCard({ fold, doc, local, canAct, onCheckNow, check, note, setNote }) {
  const [busy, setBusy] = useState(false);
  const messages = doc && Array.isArray(doc.messages) ? [...doc.messages].reverse() : [];
  const undelivered = messages.filter((m) => !settled(m)).length;
  const checkNow = async () => {
    setBusy(true);
    setNote('');
    try { setNote(await onCheckNow()); } catch (err) { setNote(`Not started: ${err.message || err}`); } finally { setBusy(false); }
  };
  const actions = local ? null : html`<button type="button" id="check-now" disabled=${!canAct || busy} onClick=${checkNow}
    title=${canAct ? 'Ask the server to run the goal check now' : 'Needs the owner token'}>Check now</button>`;
  return html`<${Card} fold=${fold} id="messages" title="Messages to you"
    subtitle=${messages.length ? `${plural(messages.length, 'message')}${undelivered ? ` · ${undelivered} not delivered` : ''}, newest first` : ''}
    actions=${actions}>
    ${note ? html`<p class="notice-inline" role="status">${note}</p>` : null}
    <${OwnerActionsNote} local=${local} canAct=${canAct} paused=${schedulesPaused(check)} />
    ${messages.length === 0
      ? html`<${EmptyState}>Pulse has sent no message yet: its goal check writes one here when it has news for you.<//>`
      : html`<ol class="messages">${messages.slice(0, 20).map((m) => html`<${Message} key=${m.id} m=${m} local=${local} />`)}</ol>`}
  <//>`;
}
