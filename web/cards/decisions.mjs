// The decision cards: what needs the owner (with the answer form) and the
// decision log.
import { html } from 'htm/preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Card, EmptyState, plural, optionLabel, optionValue } from './card.mjs';
import { formatTime, formatDay, formatSpan, parseTime } from '../format.mjs';
import { AttentionList } from './attention.mjs';

// ---------- needs you ----------

function recommendationText(rec) {
  if (!rec) return '';
  if (rec.option !== undefined && rec.option !== null && rec.option !== '') return optionLabel(rec.option);
  return rec.text || rec.answer || '';
}

function ChangeForm({ decision, onSubmit, onCancel, busy }) {
  const options = Array.isArray(decision.options) ? decision.options : [];
  const picked = decision.recommendation ? recommendationText(decision.recommendation) : '';
  const [choice, setChoice] = useState(options.length ? String(optionValue(options[0])) : '__text');
  const [text, setText] = useState('');
  const [note, setNote] = useState('');
  const first = useRef(null);
  // Focus moves into the form as it appears (keyboard users land in it).
  useLayoutEffect(() => { if (first.current) first.current.focus(); }, []);
  const submit = (e) => {
    e.preventDefault();
    if (choice === '__text') {
      if (!text.trim()) return;
      onSubmit({ text: text.trim(), note: note.trim() || undefined });
    } else {
      onSubmit({ option: choice, note: note.trim() || undefined });
    }
  };
  const onKeyDown = (e) => { if (e.key === 'Escape') { e.preventDefault(); onCancel(); } };
  return html`<form class="change-form" onSubmit=${submit} onKeyDown=${onKeyDown} aria-label=${`Change the answer to: ${decision.question}`}>
    <fieldset>
      <legend>Your answer</legend>
      ${options.map((o, i) => html`<label class="radio">
        <input type="radio" name=${`opt-${decision.id}`} value=${String(optionValue(o))} ref=${i === 0 ? first : null}
          checked=${choice === String(optionValue(o))} onChange=${() => setChoice(String(optionValue(o)))} />
        ${optionLabel(o)}${picked && optionLabel(o) === picked ? html` <span class="tag rec-tag">Pulse recommends</span>` : null}</label>`)}
      <label class="radio">
        <input type="radio" name=${`opt-${decision.id}`} value="__text" ref=${options.length ? null : first}
          checked=${choice === '__text'} onChange=${() => setChoice('__text')} />
        Something else</label>
      ${choice === '__text' ? html`<label class="field">Answer<input type="text" value=${text} onInput=${(e) => setText(e.target.value)} required /></label>` : null}
      <label class="field">Note (optional)<input type="text" value=${note} onInput=${(e) => setNote(e.target.value)} /></label>
    </fieldset>
    <div class="row">
      <button type="submit" class="primary" disabled=${busy}>Send answer</button>
      <button type="button" onClick=${onCancel}>Cancel</button>
    </div>
  </form>`;
}

function waitingText(ms) {
  if (Number.isNaN(ms) || ms < 60000) return 'Raised just now';
  return `Waiting ${formatSpan(ms)}`;
}

function raisedBy(who) {
  const w = String(who);
  if (w.toLowerCase() === 'pulse') return 'Pulse';
  if (w.toLowerCase() === 'owner') return 'you';
  return w;
}

// How long Dismiss can be taken back before it is sent.
export const DISMISS_UNDO_MS = 6000;

function PendingDecision({ d, nowMs, onAnswer, busy, readOnly }) {
  const [changing, setChanging] = useState(false);
  // Dismiss waits DISMISS_UNDO_MS with an Undo before it is sent.
  const [dismissing, setDismissing] = useState(false);
  const timer = useRef(0);
  const changeButton = useRef(null);
  const undoButton = useRef(null);
  const dismissButton = useRef(null);
  useEffect(() => () => clearTimeout(timer.current), []);
  useEffect(() => { if (dismissing && undoButton.current) undoButton.current.focus(); }, [dismissing]);
  const dismiss = () => {
    setDismissing(true);
    timer.current = setTimeout(() => { setDismissing(false); onAnswer(d, { dismiss: true }); }, DISMISS_UNDO_MS);
  };
  const undo = () => {
    clearTimeout(timer.current);
    setDismissing(false);
    requestAnimationFrame(() => dismissButton.current && dismissButton.current.focus());
  };
  // Cancel or Escape: the focus goes back to Change….
  const closeChange = () => { setChanging(false); requestAnimationFrame(() => changeButton.current && changeButton.current.focus()); };
  const rec = d.recommendation;
  const options = Array.isArray(d.options) ? d.options : [];
  return html`<li class="decision" data-id=${d.id}>
    <p class="question">${d.question}</p>
    <p class="meta">
      <span>${waitingText(typeof d.waited_seconds === 'number' ? d.waited_seconds * 1000 : nowMs - parseTime(d.created_at))}</span>
      ${d.blocks ? html`<span>Blocks: <strong>${Array.isArray(d.blocks) ? d.blocks.join(', ') : d.blocks}</strong></span>` : null}
      ${d.raised_by ? html`<span>Raised by ${raisedBy(d.raised_by)}</span>` : null}
    </p>
    ${options.length ? html`<p class="options">Options: ${options.map((o) => html`<span class=${`option ${rec && optionLabel(o) === recommendationText(rec) ? 'option-rec' : ''}`}>${optionLabel(o)}</span> `)}</p>` : null}
    ${d.why ? html`<p class="why">${d.why}</p>` : null}
    ${d.context && d.context.refused_call ? html`<p class="refused-call muted">Pulse asks instead of <code>${d.context.refused_call.tool}</code>,
      which its autonomy held: ${d.context.refused_call.reason}</p>` : null}
    ${rec
      ? html`<div class="recommendation">
        <p><span class="rec-label">Pulse recommends</span> <strong class="rec-answer">${recommendationText(rec)}</strong>
          ${rec.confidence ? html` <span class=${`tag conf-${rec.confidence}`}>${rec.confidence} confidence</span>` : null}</p>
        ${rec.why ? html`<p class="why">${rec.why}</p>` : null}
        ${rec.evidence ? html`<p class="evidence">Evidence: ${typeof rec.evidence === 'string' ? rec.evidence : JSON.stringify(rec.evidence)}</p>` : null}
        ${rec.safe_default_by ? html`<p class="muted">Safe default applies ${formatTime(rec.safe_default_by, nowMs)} UTC unless you answer.</p>` : null}
      </div>`
      : html`<p class="muted">No recommendation from Pulse yet.</p>`}
    ${dismissing
      ? html`<p class="row dismiss-pending" role="status">This question will be dismissed, with no answer.
          <button type="button" ref=${undoButton} class="primary" onClick=${undo}>Undo</button></p>`
      : changing
      ? html`<${ChangeForm} decision=${d} busy=${busy}
          onCancel=${closeChange}
          onSubmit=${(a) => { setChanging(false); onAnswer(d, a); }} />`
      : html`<div class="row">
        <button type="button" class="primary" disabled=${busy || !rec || readOnly}
          title=${rec ? '' : 'Nothing to accept yet'}
          onClick=${() => onAnswer(d, { accept: true })}>Accept${rec ? html`<span class="sr-only">: ${recommendationText(rec)}</span>` : null}</button>
        <button type="button" ref=${changeButton} disabled=${busy || readOnly} onClick=${() => setChanging(true)}>Change…</button>
        <button type="button" ref=${dismissButton} disabled=${busy || readOnly} onClick=${dismiss}>Dismiss</button>
      </div>
      <p class="what-happens muted">${rec
        ? html`<strong>Accept</strong> answers “${recommendationText(rec)}”, carried out within the autonomy levels;`
        : html`<strong>Change…</strong> gives your own answer;`} <strong>Dismiss</strong> closes it unanswered, with an undo.</p>`}
  </li>`;
}

// "What needs you": the workflow's first card. Each attention item that is
// not a goal alarm (those are in the goal card right after it) with its
// cause and a snooze, then the decisions waiting for the owner with Accept,
// Change… and Dismiss.
export function NeedsYouCard({ doc, nowMs, onAnswer, busyId, readOnly, check, linkFor, snooze }) {
  const pending = (doc && Array.isArray(doc.decisions) ? doc.decisions : []).filter((d) => d.status === 'pending');
  pending.sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
  // A waiting decision is shown below itself, not twice.
  const items = (check && Array.isArray(check.attention) ? check.attention : [])
    .filter((i) => i.kind !== 'goal_alarm' && i.kind !== 'decision_waiting');
  const open = items.filter((i) => !i.snoozed).length;
  const sub = [open ? plural(open, 'item') : '', pending.length ? `${plural(pending.length, 'decision')} waiting` : '']
    .filter(Boolean).join(' · ');
  return html`<${Card} id="needs-you" title="What needs you" subtitle=${sub}>
    ${readOnly ? html`<p class="muted">${readOnly}</p>` : null}
    <${AttentionList} items=${items} check=${check} nowMs=${nowMs} linkFor=${linkFor || (() => '#')}
      onSnooze=${snooze && snooze.onSnooze} onUnsnooze=${snooze && snooze.onUnsnooze} busyKey=${snooze && snooze.busyKey}
      readOnly=${!!readOnly || !snooze} />
    ${pending.length === 0
      ? html`<${EmptyState}>${items.length ? 'No decision waits for you: Pulse has no open question.' : 'Nothing waits for you: Pulse has no open question.'}<//>`
      : html`${items.length ? html`<h3 class="needs-you-sub">Decisions waiting</h3>` : null}<ul class="decisions">
      ${pending.map((d) => html`<${PendingDecision} key=${d.id} d=${d} nowMs=${nowMs} onAnswer=${onAnswer} busy=${busyId === d.id} readOnly=${!!readOnly} />`)}
    </ul>`}
  <//>`;
}

// ---------- decision log ----------

export function answerText(answer, decision) {
  if (!answer) return '';
  const kind = answer.kind || (answer.accept || answer.accepted ? 'accepted' : answer.dismiss || answer.dismissed ? 'dismissed' : '');
  if (kind === 'dismissed') return 'Dismissed';
  const what = answer.chosen || (answer.option !== undefined && answer.option !== null && answer.option !== ''
    ? optionLabel(answer.option) : (answer.text || (kind === 'accepted' && decision ? recommendationText(decision.recommendation) : '')));
  if (kind === 'accepted') return `Accepted Pulse's recommendation: ${what}`;
  if (kind === 'applied_by_pulse') return `Applied by Pulse (safe default): ${what}`;
  if (kind === 'changed') return `Changed from Pulse's recommendation to: ${what}`;
  return `Answered: ${what}`;
}

// Dismissed: closed with no answer (by status, or an answer of that kind).
const dismissed = (d) => d.status === 'dismissed' || !!(d.answer && (d.answer.kind === 'dismissed' || d.answer.dismissed));

function answeredAt(d) {
  const a = d.answer || {};
  return a.answered_at || a.at || a.created_at || d.answered_at || d.updated_at || '';
}

// "Record result": what came of an answer, in the owner's words.
function OutcomeForm({ d, onOutcome, busy }) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const field = useRef(null);
  const opener = useRef(null);
  const closed = useRef(false);
  useLayoutEffect(() => {
    if (open && field.current) field.current.focus();
    // Cancel or Escape: the focus goes back to Record result.
    if (!open && closed.current && opener.current) opener.current.focus();
  }, [open]);
  const close = () => { closed.current = true; setOpen(false); };
  if (!open) return html`<button type="button" class="small-button" ref=${opener} disabled=${busy} onClick=${() => setOpen(true)}>Record result</button>`;
  const submit = async (e) => {
    e.preventDefault();
    if (!text.trim()) return;
    if (await onOutcome(d, text.trim())) setOpen(false);
  };
  return html`<form class="outcome-form row" onSubmit=${submit} onKeyDown=${(e) => { if (e.key === 'Escape') { e.preventDefault(); close(); } }}>
    <label class="sr-only" for=${`outcome-${d.id}`}>What came of it</label>
    <input id=${`outcome-${d.id}`} type="text" ref=${field} placeholder="What came of it" value=${text} onInput=${(e) => setText(e.target.value)} />
    <button type="submit" class="primary" disabled=${busy}>Save result</button>
    <button type="button" onClick=${close}>Cancel</button>
  </form>`;
}

export function DecisionLogCard({ fold, doc, nowMs, onOutcome, busyId, readOnly }) {
  const all = doc && Array.isArray(doc.decisions) ? doc.decisions : [];
  const answered = all.filter((d) => d.status !== 'pending');
  answered.sort((a, b) => String(answeredAt(b)).localeCompare(String(answeredAt(a))));
  const due = new Set((doc && Array.isArray(doc.outcomes_due) ? doc.outcomes_due : []).map((o) => (typeof o === 'object' ? o.id : o)));
  return html`<${Card} fold=${fold} id="decision-log" title="Decision log" subtitle=${answered.length ? `${plural(answered.length, 'answer')}, newest first` : ''}>
    ${answered.length === 0 ? html`<${EmptyState}>No answered decisions yet: your answers and what came of them are kept here.<//>` : html`<ol class="log">
      ${answered.map((d) => {
        const a = d.answer || {};
        const o = d.outcome;
        return html`<li class="log-entry" data-id=${d.id}>
          <p class="question">${d.question}</p>
          <p class="answer">${answerText(a, d) || d.status}
            ${answeredAt(d) ? html` <span class="muted">· ${formatTime(answeredAt(d), nowMs)} UTC</span>` : null}
            ${a.note ? html` <span class="muted">· “${a.note}”</span>` : null}</p>
          ${o && (o.result || o.text)
            ? html`<p class="outcome">Result: ${o.result || o.text}${o.at || o.recorded_at ? html` <span class="muted">(${formatDay(o.at || o.recorded_at)})</span>` : null}</p>`
            : dismissed(d) ? html`<p class="outcome muted">Dismissed: no answer, so no result to record.</p>`
            : html`<div class="outcome-row"><p class=${`outcome ${due.has(d.id) ? 'due' : 'muted'}`}>${due.has(d.id)
                ? 'Result due: answered over a day ago, no outcome recorded yet.' : 'No result recorded yet.'}</p>
              ${onOutcome && !readOnly && !dismissed(d) ? html`<${OutcomeForm} d=${d} onOutcome=${onOutcome} busy=${busyId === d.id} />` : null}</div>`}
        </li>`;
      })}
    </ol>`}
  <//>`;
}
