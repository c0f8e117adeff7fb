// What needs the owner besides the decisions: the attention items the core
// gives each workflow (core/attention/attention.h; the `attention` of the
// goal status document), each with its severity, its sentence, its cause
// (the runs behind an expired login, a spike, a late schedule's expected and
// next run) and a link to the card that shows more, and the owner's snooze:
// until it changes, for a day or a week, or until a date. A snoozed item
// stays listed, marked so; it no longer counts as needing attention.
import { html } from 'htm/preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { formatTime } from '../format.mjs';
import { CARD_TITLES } from '../data/route.mjs';

const list = (v) => (Array.isArray(v) ? v : []);

// The card an item's link names ("#/w/inbox/run-health" → "run-health").
export const cardOf = (item) => String(item.link || '').split('/').pop() || '';

// The cause behind an item, from the goal status document it came with.
function Cause({ item, check, nowMs }) {
  const f = (check && check.facts) || {};
  if (item.kind === 'needs_reauth') {
    return html`<div class="attention-cause" id="needs-reauth">
      <p>Re-connect what these runs use, then run them again:</p>
      <ul class="reauth-list">${list(f.login_hints).map((h) => html`<li data-pattern=${h.pattern}>
        <strong class="id">run ${h.run_id}</strong> <span class="muted">(${formatTime(h.at, nowMs)} UTC)</span>:${' '}<code>${h.matched}</code> in its ${h.where === 'error' ? 'error' : 'CONCERNS: lines'}
        <div class="reauth-line">${h.line}</div></li>`)}</ul></div>`;
  }
  if (item.kind === 'error_rate_spike') {
    const runs = list(f.run_health && f.run_health.failed_runs);
    return runs.length ? html`<ul class="attention-cause fact-list">${runs.slice(0, 6).map((r) => html`<li>
      <strong class="id">${r.run_id}</strong> ${r.status}${r.route ? ` on ${r.route}` : ''}${r.error ? html`: <span class="muted">${r.error}</span>` : null}</li>`)}</ul>` : null;
  }
  if (item.kind === 'schedule_late') {
    const id = String(item.key || '').split(':').slice(1).join(':');
    const s = list(check && check.schedules).find((x) => x.id === id);
    return s ? html`<p class="attention-cause muted" data-schedule=${s.id}>Last run started ${s.last_run_at ? `${formatTime(s.last_run_at, nowMs)} UTC` : 'never'};
      expected ${s.expected_at ? `${formatTime(s.expected_at, nowMs)} UTC` : '—'}; next ${s.next_expected_at ? `${formatTime(s.next_expected_at, nowMs)} UTC` : '—'} (times in ${s.time_zone}).</p>` : null;
  }
  return null;
}

const DAY = 86400;

// The snooze choices; `until` in seconds since the epoch, or null for
// "until it changes".
function SnoozeForm({ item, nowMs, onSnooze, onClose, busy }) {
  const [choice, setChoice] = useState('change');
  const [date, setDate] = useState('');
  const [error, setError] = useState('');
  const first = useRef(null);
  useLayoutEffect(() => { if (first.current) first.current.focus(); }, []);
  const nowS = Math.floor(nowMs / 1000);
  const submit = (e) => {
    e.preventDefault();
    let until = null;
    if (choice === 'day') until = nowS + DAY;
    if (choice === 'week') until = nowS + 7 * DAY;
    if (choice === 'date') {
      const ms = Date.parse(`${date}T00:00:00Z`);
      if (!date || Number.isNaN(ms) || ms / 1000 <= nowS) { setError('Choose a day after today.'); return; }
      until = ms / 1000;
    }
    onSnooze(item, until);
  };
  const name = `snooze-${item.key}`;
  const radio = (value, label, ref) => html`<label class="radio"><input type="radio" name=${name} value=${value} ref=${ref}
    checked=${choice === value} onChange=${() => setChoice(value)} /> ${label}</label>`;
  return html`<form class="snooze-form" aria-label=${`Snooze: ${item.text}`} onSubmit=${submit}
    onKeyDown=${(e) => { if (e.key === 'Escape') { e.preventDefault(); onClose(); } }}>
    <fieldset><legend>Snooze until</legend>
      ${radio('change', 'it changes (acknowledge)', first)}
      ${radio('day', 'tomorrow, this time')}
      ${radio('week', 'a week from now')}
      ${radio('date', 'a day:')}
      ${choice === 'date' ? html`<label class="field">Day (UTC)<input type="date" value=${date} onInput=${(e) => setDate(e.target.value)} /></label>` : null}
    </fieldset>
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
    <div class="row"><button type="submit" class="primary" disabled=${busy}>Snooze</button>
      <button type="button" onClick=${onClose}>Cancel</button></div>
  </form>`;
}

// Snooze… (a form: until it changes, a day, a week, a date) or Unsnooze,
// for one item; the focus goes back to the button when the form closes.
export function SnoozeControl({ item, nowMs, onSnooze, onUnsnooze, busy, readOnly }) {
  const [snoozing, setSnoozing] = useState(false);
  const opener = useRef(null);
  const close = () => { setSnoozing(false); requestAnimationFrame(() => opener.current && opener.current.focus()); };
  if (readOnly || !item) return null;
  if (snoozing) {
    return html`<${SnoozeForm} item=${item} nowMs=${nowMs} busy=${busy} onClose=${close}
      onSnooze=${async (it, until) => { if (await onSnooze(it, until)) close(); }} />`;
  }
  return html`<div class="row attention-actions">${item.snoozed
    ? html`<button type="button" class="small-button" ref=${opener} disabled=${busy} onClick=${() => onUnsnooze(item)}>Unsnooze<span class="sr-only">: ${item.text}</span></button>`
    : html`<button type="button" class="small-button" ref=${opener} disabled=${busy}
        onClick=${() => setSnoozing(true)}>Snooze…<span class="sr-only"> ${item.text}</span></button>`}</div>`;
}

export function SnoozedTag({ item, nowMs }) {
  if (!item || !item.snoozed) return null;
  return html`<span class="snoozed-tag">Snoozed ${item.snoozed_until ? `until ${formatTime(item.snoozed_until, nowMs)} UTC` : 'until it changes'}</span>`;
}

function AttentionItem({ item, check, nowMs, linkFor, onSnooze, onUnsnooze, busy, readOnly }) {
  const card = cardOf(item);
  return html`<li class=${`attention-item severity-${item.severity}${item.snoozed ? ' snoozed' : ''}`} data-kind=${item.kind}
      data-key=${item.key}>
    <span class="severity-icon" aria-hidden="true">${item.severity === 'critical' ? '!' : item.severity === 'warning' ? '•' : 'i'}</span>
    <div class="attention-body">
      <p class="attention-text"><span class="sr-only">${item.severity}: </span>${item.text}</p>
      <div class="attention-meta">
        ${item.since ? html`<span>Since ${formatTime(item.since, nowMs)} UTC</span>` : null}
        ${card && CARD_TITLES[card] ? html`<a href=${linkFor(card)}>See ${CARD_TITLES[card]}</a>` : null}
        <${SnoozedTag} item=${item} nowMs=${nowMs} />
        <${SnoozeControl} item=${item} nowMs=${nowMs} onSnooze=${onSnooze} onUnsnooze=${onUnsnooze} busy=${busy} readOnly=${readOnly} />
      </div>
      ${!item.snoozed ? html`<${Cause} item=${item} check=${check} nowMs=${nowMs} />` : null}
    </div>
  </li>`;
}

// The items of one workflow (`items`: the document's attention, filtered by
// the caller). `linkFor(card)` is the address of a card of this workflow.
export function AttentionList({ items, check, nowMs, linkFor, onSnooze, onUnsnooze, busyKey, readOnly }) {
  if (!items.length) return null;
  return html`<ul class="attention-list" aria-label="Attention items">
    ${items.map((item) => html`<${AttentionItem} key=${item.key} item=${item} check=${check} nowMs=${nowMs} linkFor=${linkFor}
      onSnooze=${onSnooze} onUnsnooze=${onUnsnooze} busy=${busyKey === item.key} readOnly=${readOnly} />`)}
  </ul>`;
}
