// The schedules and what each does after a run: three checkboxes per
// schedule (back up, publish, notify) and the "After a manual run" row for
// full runs from a chat. Beside them, the latest Workflow Review as an input
// to the run (the pre-run check's state), not as a Pulse job.
import { html } from 'htm/preact';
import { Card } from './card.mjs';
import { formatTime } from '../format.mjs';

const OPTIONS = [['backup', 'Back up'], ['publish', 'Publish'], ['notify', 'Notify']];

// A schedule watched as Healthchecks watches a job (the goal status
// document's `schedules`): its next expected run and whether it is late.
const STATE_WORDS = { on_time: 'on time', late: 'late', paused: 'paused', new: 'no run yet', invalid: 'invalid cron' };

function watchLine(w, nowMs) {
  if (!w) return null;
  const t = (v) => (v ? `${formatTime(v, nowMs)} ${w.time_zone || 'UTC'}` : '—');
  if (w.state === 'invalid') return html`<span class="card-error">${w.problem}</span>`;
  return html`<span class=${`schedule-state schedule-${w.state}`}>${STATE_WORDS[w.state] || w.state}</span>
    ${w.state === 'late' ? html` <span>expected ${t(w.expected_at)}${w.missed > 1 ? `, ${w.missed} runs missed` : ''};</span>` : null}
    ${w.state !== 'paused' ? html` <span>next ${t(w.next_expected_at)}</span>` : null}
    ${w.last_run_at ? html`<span class="muted"> · last run ${t(w.last_run_at)}</span>` : null}`;
}

function Row({ id, label, detail, after, busy, readOnly, onChange, watch }) {
  const flip = (key) => onChange(id, { ...after, [key]: !after[key] });
  return html`<tr data-schedule=${id}>
    <th scope="row">${label}${detail ? html`<span class="meta"> ${detail}</span>` : null}
      ${watch !== undefined ? html`<div class="schedule-watch">${watch}</div>` : null}</th>
    ${OPTIONS.map(([key, word]) => html`<td>
      <label class="check"><input type="checkbox" name=${`${id}-${key}`} checked=${!!after[key]}
        disabled=${busy || !!readOnly} onChange=${() => flip(key)} /><span class="sr-only">${word} after ${label}</span></label>
    </td>`)}
  </tr>`;
}

function reviewWords(r, nowMs) {
  if (!r || !r.available) return 'Workflow Review: its record is in the workflow folder (shown when served).';
  if (!r.has_plan) return 'Workflow Review: no plan files (planning/plan.json), nothing to review.';
  const cur = r.current;
  if (cur && cur.outcome === 'clean') return `Workflow Review: clean for this plan revision (${formatTime(cur.finished_at, nowMs)} UTC).`;
  if (cur && cur.outcome === 'broken') {
    return `Workflow Review: broken — ${cur.broken.map((b) => `${b.step}: ${b.reason}`).join('; ')}. Runs touching these steps stop.`;
  }
  if (cur && cur.outcome === 'running') return 'Workflow Review: reviewing the workflow before the next run…';
  if (cur && cur.outcome === 'unfinished') return `Workflow Review: did not finish (${cur.summary}); runs go.`;
  if (cur && cur.outcome === 'unrecorded') return `Workflow Review: could not record its result (${cur.summary}); runs stop until a review is recorded.`;
  const due = (r.due || []).map((d) => d.detail).join('; ');
  return `Workflow Review: due before the next run — ${due}.`;
}

// The Workflow Review's own conversation (one turn per review: what it was
// told, its reply, the outcome), apart from Pulse's conversation.
function ReviewConversation({ conv }) {
  const turns = (conv && conv.turns) || [];
  if (!turns.length) return null;
  const n = conv.total || turns.length;
  return html`<details class="review-conversation">
    <summary>${conv.title || 'Workflow Review'} conversation: ${n} review${n === 1 ? '' : 's'} (its own, not Pulse's)</summary>
    <ol>
      ${turns.map((t) => html`<li key=${t.id} class="review-turn" data-review-turn=${t.id} data-outcome=${t.outcome || t.state}>
        <p class="meta">${formatTime(t.started_at)} UTC · ${t.session} · ${t.outcome || t.state}</p>
        <pre class="review-told">${t.text}</pre>
        ${t.reply ? html`<p class="review-reply">${t.reply}</p>` : null}
        ${t.error ? html`<p class="card-error">${t.error}</p>` : null}
      </li>`)}
    </ol>
  </details>`;
}

export function SchedulesCard({ fold, doc, busy, readOnly, error, onChange, check, nowMs }) {
  const watches = check && Array.isArray(check.schedules) ? check.schedules : [];
  const late = watches.filter((w) => w.state === 'late').length;
  const after = (doc && doc.after_run) || { schedules: [], after_manual_run: {} };
  const review = doc && doc.workflow_review;
  const state = review && review.current ? review.current.outcome : review && review.due && review.due.length ? 'due' : '';
  return html`<${Card} fold=${fold} id="schedules" title="Schedules and after-run options"
      subtitle=${`${after.schedules.length} schedule${after.schedules.length === 1 ? '' : 's'}${late ? ` · ${late} late` : ''} · times in UTC`}>
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
    ${readOnly ? html`<p class="muted">${readOnly}</p>` : null}
    <p class=${`review-input review-${state || 'none'}`} data-review=${state}>${reviewWords(review, nowMs)}</p>
    <${ReviewConversation} conv=${doc && doc.review_conversation} />
    <table class="after-run">
      <thead><tr><th scope="col">Run</th>${OPTIONS.map(([, word]) => html`<th scope="col">${word}</th>`)}</tr></thead>
      <tbody>
        ${after.schedules.map((s) => html`<${Row} key=${s.id} id=${s.id} label=${s.id}
          detail=${`${s.cron}${s.enabled ? '' : ' (paused)'}`} after=${s.after_run} busy=${busy} readOnly=${readOnly} onChange=${onChange}
          watch=${watchLine(watches.find((w) => w.id === s.id), nowMs)} />`)}
        <${Row} id="manual" label="After a manual run" detail="full runs from a chat" after=${after.after_manual_run}
          busy=${busy} readOnly=${readOnly} onChange=${onChange} />
      </tbody>
    </table>
  <//>`;
}
