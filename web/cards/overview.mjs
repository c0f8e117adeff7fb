// The first screen: every workflow (on the server, or copied into this
// browser) with its status, key number, worst alarm, pending decisions and
// last recorded check, worst first. One click (or the address) opens one.
import { html } from 'htm/preact';
import { Card, EmptyState, plural } from './card.mjs';
import { statusWord, formatNumber, formatTime } from '../format.mjs';
import { routeHash } from '../data/route.mjs';

function OverviewRow({ r, nowMs }) {
  const href = routeHash({ open: { kind: r.kind, name: r.name } });
  return html`<li class=${`overview-row status-${r.status}`} data-name=${r.name} data-goal-status=${r.status}>
    <div class="overview-main">
      <a class="overview-name" href=${href}>${r.name}</a>
      ${r.workflow && r.workflow !== r.name ? html`<span class="muted"> workflow ${r.workflow}</span>` : null}
      <span class="status-dot" data-status=${r.status}>${r.status === 'error' ? 'Cannot be read' : statusWord(r.status)}</span>
    </div>
    ${r.error
      ? html`<p class="card-error">${r.error}</p>`
      : html`<dl class="overview-facts">
        <div><dt>${r.metric || 'Key number'}</dt><dd>${r.value !== undefined && r.value !== null ? formatNumber(r.value) : '—'}${r.target !== undefined && r.target !== null ? html` <span class="muted">of ${formatNumber(r.target)}</span>` : null}</dd></div>
        <div><dt>Needs you</dt><dd>${r.pending === null ? '—' : r.pending ? html`<a href=${routeHash({ open: { kind: r.kind, name: r.name }, view: 'needs-you' })}>${plural(r.pending, 'decision')}</a>` : 'nothing'}</dd></div>
        <div><dt>Last recorded check</dt><dd>${r.lastCheck ? `${formatTime(r.lastCheck, nowMs)} UTC` : 'never'}</dd></div>
      </dl>
      ${r.worstAlarm ? html`<p class="overview-alarm"><span class="alarm-icon" aria-hidden="true">!</span>${r.worstAlarm}${r.alarms > 1 ? html` <span class="muted">(+${plural(r.alarms - 1, 'more alarm')})</span>` : null}</p>` : null}`}
  </li>`;
}

export function OverviewCard({ rows, mode, loading, error, nowMs }) {
  const title = mode === 'server' ? 'Workflows on this server' : 'Copies in this browser';
  const list = rows || [];
  const bad = list.filter((r) => r.status !== 'on_track' && r.status !== 'no_goal').length;
  return html`<${Card} id="overview" title=${title}
    subtitle=${list.length ? `${plural(list.length, mode === 'server' ? 'workflow' : 'copy', mode === 'server' ? 'workflows' : 'copies')}, worst first${bad ? ` · ${bad} need${bad === 1 ? 's' : ''} attention` : ''}` : ''}>
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
    ${loading && !list.length ? html`<p class="muted">Loading…</p>`
      : !list.length ? html`<${EmptyState}>${mode === 'server' ? 'This server has no workflows under Workflow/.' : "No copies yet: choose a workflow's db.sqlite or its folder (Open a copy) to see it here."}<//>`
        : html`<ol class="overview">${list.map((r) => html`<${OverviewRow} key=${r.name} r=${r} nowMs=${nowMs} />`)}</ol>`}
  <//>`;
}
