// The goal check's context facts (the `facts` of the goal check document): a
// "Since the last check" card with plan changes, owner answers, spend and
// cost spikes, the error rate and run health (what to re-connect when a login
// looks expired is in "What needs you", cards/attention.mjs). Both read the same document
// from either source, so a local copy shows them offline.
import { html } from 'htm/preact';
import { Card } from './card.mjs';
import { formatTime } from '../format.mjs';

const list = (v) => (Array.isArray(v) ? v : []);
const usd = (v) => (typeof v === 'number' ? `$${v.toFixed(2)}` : '—');
const pct = (v) => (typeof v === 'number' ? `${Math.round(v * 100)}%` : '—');

function PlanChanges({ changes, nowMs }) {
  if (!changes.length) return html`<p class="muted">No plan changes.</p>`;
  return html`<ul class="fact-list plan-changes">
    ${changes.map((c) => html`<li class=${c.touches_goal ? 'touches-goal' : ''}>
      <span class="muted">${formatTime(c.at, nowMs)}</span> <code>${c.tool}</code>${c.who ? ` by ${c.who}` : ''}${c.reason ? html` — ${c.reason}` : null}
      ${c.touches_goal ? html` <span class="tag goal-tag">${c.touches_metric ? 'touches the metric' : `goal step ${list(c.goal_steps).join(', ')}`}</span> <span class="muted">Pulse asks the Builder why</span>` : null}
    </li>`)}
  </ul>`;
}

function SpendRow({ spend, spikes }) {
  if (spend.unreadable) return html`<p class="card-error">${spend.unreadable}</p>`;
  if (spend.ledger === 'missing') return html`<p class="muted">No cost ledger (costs/costs.sqlite).</p>`;
  return html`<p class="spend-line"><strong>${usd(spend.last_7_days_usd)}</strong> in the last 7 days,${' '}${usd(spend.previous_7_days_usd)} the 7 before${spend.ratio !== null && spend.ratio !== undefined ? html` (<strong>×${Math.round(Number(spend.ratio) * 100) / 100}</strong>)` : null};
    median run ${usd(spend.median_run_usd_14_days)} over ${spend.runs_14_days} runs in 14 days. <span class="muted">No budget is set.</span></p>
    ${spikes.length ? html`<ul class="fact-list cost-spikes">
      ${spikes.map((s) => html`<li class="alarm" data-kind="cost_spike"><span class="alarm-icon" aria-hidden="true">$</span>
        <div class="alarm-line">Run <strong class="id">${s.run_id}</strong> cost ${usd(s.usd)}, ${s.ratio}× the median run, on route ${s.route || 'unknown'}${s.goal_route ? html` <span class="tag goal-tag">the goal's route</span>` : ''}</div></li>`)}
    </ul>` : null}`;
}

function ErrorRate({ e, health }) {
  return html`<div class=${e.spike ? 'alarm' : ''} data-kind="error_rate">
    ${e.spike ? html`<span class="alarm-icon" aria-hidden="true">!</span>` : null}
    <p class="alarm-line">${`${e.failed} of ${e.runs} runs failed (${pct(e.share)})${e.median_daily_share !== null && e.median_daily_share !== undefined ? `; the 14-day median day: ${pct(e.median_daily_share)}` : ''}${e.spike ? ' — an error-rate spike' : ''}.`}
    ${!e.spike && e.runs < e.min_runs ? html` <span class="muted">A spike needs ${e.min_runs} runs.</span>` : null}</p></div>
    ${list(health.failed_runs).length ? html`<ul class="fact-list failed-runs">
      ${list(health.failed_runs).map((r) => html`<li><strong>${r.run_id}</strong> ${r.status}${r.route ? ` (${r.route})` : ''}${r.error ? html`: <span class="muted">${r.error}</span>` : null}</li>`)}
    </ul>` : null}
    ${list(health.concerns).length ? html`<details><summary>${list(health.concerns).length} CONCERNS: lines</summary><ul class="fact-list">
      ${list(health.concerns).map((c) => html`<li><strong>${c.run_id}</strong>: ${c.line}</li>`)}</ul></details>` : null}`;
}

// Where the window starts: the check before the latest recorded one (so the
// check just recorded does not empty it), or the 7 days before.
export function windowWords(f) {
  const since = formatTime(f.since);
  if (f.last_check_at) {
    return `since the previous check, ${since} UTC${f.latest_check_at ? ` (the latest was ${formatTime(f.latest_check_at)} UTC)` : ''}`;
  }
  return `since ${since} UTC: no earlier recorded check, so the last 7 days${f.latest_check_at ? ` before the latest check (${formatTime(f.latest_check_at)} UTC)` : ''}`;
}

export function FactsCard({ fold, check, nowMs }) {
  const f = check && check.facts;
  if (!f) return null;
  const answers = list(f.owner_answers);
  // Whole files that could not be read, and the first skipped line or row
  // of each file read in part ("unreadable: <file>:<line>: ...").
  const unreadable = list(f.unreadable);
  return html`<${Card} fold=${fold} id="goal-facts" title="Since the last check" subtitle=${windowWords(f)}>
    <h3>Plan changes</h3>
    <${PlanChanges} changes=${list(f.plan_changes)} nowMs=${nowMs} />
    <h3>Owner answers</h3>
    ${answers.length ? html`<ul class="fact-list">${answers.map((a) => html`<li>${a.question} → <strong>${a.answer}</strong></li>`)}</ul>`
      : html`<p class="muted">None.</p>`}
    <h3>Spend</h3>
    <${SpendRow} spend=${f.spend || {}} spikes=${list(f.cost_spikes)} />
    <h3>Runs</h3>
    <${ErrorRate} e=${f.error_rate || {}} health=${f.run_health || {}} />
    ${unreadable.length ? html`<ul class="facts-sources">
      ${unreadable.map((u) => html`<li class="card-error">${u}</li>`)}</ul>` : null}
  <//>`;
}
