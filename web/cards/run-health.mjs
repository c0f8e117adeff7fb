// The "Run health" card: the failed runs Pulse was woken for (its run_failed
// turns, with what it made of each), the goal check's run_health fact (failed
// runs with their error, the steps' CONCERNS: lines, open issues, each
// schedule's runs since the last check, run folders whose run.json could not
// be read) and the QA requests with what their fix runs found. For a workflow with a goal
// its Pulse owns QA and architecture, so the card says where the results go
// instead of showing Technical or Architecture cards.
import { html } from 'htm/preact';
import { Card, EmptyState, plural } from './card.mjs';
import { formatTime, formatDay } from '../format.mjs';

const list = (v) => (Array.isArray(v) ? v : []);

// The failed runs Pulse was woken for (with what it made of each), then the
// ones since the last check it was not woken for (older than a day, or a
// workflow without a goal).
function FailedRuns({ woken, runs, nowMs }) {
  const seen = new Set(woken.map((r) => r.run_id));
  const rest = runs.filter((r) => !seen.has(r.run_id));
  if (!woken.length && !rest.length) return html`<p class="muted">No failed runs.</p>`;
  const line = (r) => html`<strong class="id">${r.run_id}</strong> ${r.status}${r.route ? ` on ${r.route}` : ''}${r.goal_route ? html` <span class="tag goal-tag">the goal's route</span>` : null}
      <span class="muted"> (${formatTime(r.finished_at, nowMs)})</span>${r.error ? html`<div class="run-error">${r.error}</div>` : null}`;
  return html`<ul class="fact-list failed-runs">
    ${woken.map((r) => html`<li class="alarm" data-run=${r.run_id}><span class="alarm-icon" aria-hidden="true">!</span><div class="alarm-line">${line(r)}
      ${list(r.concerns).map((c) => html`<div class="concern">${c}</div>`)}
      <div class="pulse-outcome">Pulse: ${r.outcome || 'looking at it now'}</div></div></li>`)}
    ${rest.map((r) => html`<li class="alarm" data-run=${r.run_id}><span class="alarm-icon" aria-hidden="true">!</span><div class="alarm-line">${line(r)}</div></li>`)}
  </ul>`;
}

function Schedules({ schedules, nowMs }) {
  if (!schedules.length) return html`<p class="muted">No schedules.</p>`;
  return html`<ul class="fact-list schedule-health">
    ${schedules.map((s) => html`<li data-schedule=${s.id}><code>${s.id}</code>${s.enabled ? ':' : ' (paused):'}${' '}${plural(s.runs, 'run')}, ${s.failed} failed${s.last_status ? html`; last ${s.last_status} <span class="muted">${formatTime(s.last_finished_at, nowMs)}</span>` : ''}</li>`)}
  </ul>`;
}

function QaRequests({ requests, nowMs }) {
  if (!requests.length) return html`<p class="muted">No QA requests.</p>`;
  return html`<ul class="fact-list qa-requests">
    ${requests.map((r) => {
      const res = (r.detail && r.detail.qa_result) || null;
      return html`<li data-request=${r.id} data-status=${r.status}>
        <strong>QA ${r.id}</strong> <span class="tag">${r.status}</span> ${r.what}
        <span class="muted"> (${formatTime(r.created_at, nowMs)})</span>
        ${res ? html`<div class="qa-result">${res.status}${res.technical_review ? html` — <span>${res.technical_review}</span>` : null}${res.reason ? html` <span class="muted">(${res.reason})</span>` : null}</div>` : null}
      </li>`;
    })}
  </ul>`;
}

export function RunHealthCard({ fold, check, qa, failedRuns, nowMs }) {
  const f = check && check.facts;
  if (!f || !f.run_health) return null;
  const h = f.run_health;
  const hasGoal = check.status !== 'no_goal';
  const requests = list(qa && qa.requests);
  const unreadable = list(h.unreadable);
  return html`<${Card} fold=${fold} id="run-health" title="Run health" subtitle=${`since ${formatDay(f.since)}: ${plural(h.runs, 'run')}, ${h.failed} failed`}>
    ${hasGoal ? html`<p class="run-health-owner">This workflow's Pulse handles QA and architecture; results show in its conversation.</p>` : null}
    <h3>Failed runs</h3>
    <${FailedRuns} woken=${list(failedRuns && failedRuns.failed_runs)} runs=${list(h.failed_runs)} nowMs=${nowMs} />
    <h3>CONCERNS: lines since the last check</h3>
    ${list(h.concerns).length ? html`<ul class="fact-list concerns">${list(h.concerns).map((c) => html`<li><strong>${c.run_id}</strong>: ${c.line}</li>`)}</ul>`
      : html`<p class="muted">None.</p>`}
    ${unreadable.length ? html`<p class="card-error unreadable-runs">${unreadable.map((u) => html`<span>${u.line} </span>`)}</p>` : null}
    <h3>Schedules</h3>
    <${Schedules} schedules=${list(h.schedules)} nowMs=${nowMs} />
    <h3>QA <span class="muted">(${plural(h.open_issues, 'open issue')})</span></h3>
    ${requests.length || h.open_issues ? html`<${QaRequests} requests=${requests} nowMs=${nowMs} />`
      : html`<${EmptyState}>No QA requests: Pulse asks for one when a failure threatens the goal.<//>`}
  <//>`;
}
