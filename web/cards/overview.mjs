// The first screen: the workflows (on the server, or copied into this
// browser) with their status, key number, worst alarm, the worst other item
// that needs attention (an expired login, a spike, a late schedule: the
// core's attention items), pending decisions and last recorded check, one page at a time (data/overview.mjs): worst first
// when one page holds them all, else by name with "Show more" and a name
// filter. One click (or the address) opens one.
import { html } from 'htm/preact';
import { useState, useEffect } from 'preact/hooks';
import { Card, EmptyState, plural } from './card.mjs';
import { statusWord, formatNumber, formatTime } from '../format.mjs';
import { routeHash, needsAttention } from '../data/route.mjs';
import { shownOrder, OVERVIEW_PAGE } from '../data/overview.mjs';

function OverviewRow({ r, nowMs }) {
  const href = routeHash({ open: { kind: r.kind, name: r.name } });
  return html`<li class=${`overview-row status-${r.status}`} data-name=${r.name} data-goal-status=${r.status} data-rank=${r.rank}>
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
      ${r.worstAlarm ? html`<p class="overview-alarm"><span class="alarm-icon" aria-hidden="true">!</span>${r.worstAlarm}${r.alarms > 1 ? html` <span class="muted">(+${plural(r.alarms - 1, 'more alarm')})</span>` : null}</p>` : null}
      ${r.attention && r.attention.item ? html`<p class=${`overview-attention severity-${r.attention.item.severity}`} data-kind=${r.attention.item.kind}>
        <span class="severity-icon" aria-hidden="true">${r.attention.item.severity === 'critical' ? '!' : '•'}</span>
        <span><span class="sr-only">${r.attention.item.severity}: </span>${r.attention.item.text}${r.attention.more
          ? html` <a class="muted-link" href=${routeHash({ open: { kind: r.kind, name: r.name }, view: 'needs-you' })}>+${plural(r.attention.more, 'more item')}</a>` : null}</span></p>` : null}`}
  </li>`;
}

// The name filter: applied a moment after typing stops, or on Enter.
function NameFilter({ q, onQuery, noun }) {
  const [draft, setDraft] = useState(q);
  useEffect(() => {
    if (draft === q) return undefined;
    const timer = setTimeout(() => onQuery(draft), 300);
    return () => clearTimeout(timer);
  }, [draft]);
  return html`<form class="overview-filter" role="search" onSubmit=${(e) => { e.preventDefault(); onQuery(draft); }}>
    <label for="overview-q">Filter ${noun} by name</label>
    <input id="overview-q" type="search" value=${draft} autocomplete="off" spellcheck="false"
      onInput=${(e) => setDraft(e.target.value)} />
  </form>`;
}

// A few workflows are read at a glance; the filter comes with more.
const FILTER_FROM = 10;

function subtitleOf(pages, mode, list) {
  const noun = (n) => plural(n, mode === 'server' ? 'workflow' : 'copy', mode === 'server' ? 'workflows' : 'copies');
  const matching = pages.q ? `${noun(pages.total)} matching “${pages.q}”` : noun(pages.total);
  if (!pages.complete) return `${matching}, by name · showing ${list.length.toLocaleString('en-GB')}`;
  const bad = list.filter(needsAttention).length;
  return `${matching}, worst first${bad ? ` · ${bad} need${bad === 1 ? 's' : ''} attention` : ''}`;
}

function emptyText(pages, mode) {
  if (pages.q) return `No ${mode === 'server' ? 'workflow' : 'copy'} name contains “${pages.q}”.`;
  return mode === 'server' ? 'This server has no workflows under Workflow/.'
    : "No copies yet: choose a workflow's db.sqlite or its folder (Open a copy) to see it here.";
}

export function OverviewCard({ pages, mode, error, nowMs }) {
  const title = mode === 'server' ? 'Workflows on this server' : 'Copies in this browser';
  const list = shownOrder(pages.rows || [], pages.complete);
  const left = Math.max(0, pages.total - list.length);
  const waiting = (pages.loading || !pages.ready) && !list.length;
  return html`<${Card} id="overview" title=${title} subtitle=${!waiting && (list.length || pages.q) ? subtitleOf(pages, mode, list) : ''}>
    ${error || pages.error ? html`<p class="card-error" role="alert">${error || pages.error}</p>` : null}
    ${pages.q || pages.total > FILTER_FROM
      ? html`<${NameFilter} q=${pages.q} onQuery=${pages.setQ} noun=${mode === 'server' ? 'workflows' : 'copies'} />` : null}
    ${waiting ? html`<p class="muted">Loading…</p>`
      : !list.length ? html`<${EmptyState}>${emptyText(pages, mode)}<//>`
        : html`<ol class="overview" aria-busy=${pages.loading ? 'true' : 'false'}>${list.map((r) => html`<${OverviewRow} key=${r.name} r=${r} nowMs=${nowMs} />`)}</ol>`}
    ${pages.next ? html`<div class="overview-more">
      <button type="button" id="overview-more" disabled=${pages.loading} onClick=${pages.more}>
        ${pages.loading ? 'Loading…' : `Show ${Math.min(left, OVERVIEW_PAGE).toLocaleString('en-GB')} more`}</button>
      <span class="muted">${left.toLocaleString('en-GB')} more after ${list[list.length - 1].name}</span></div>` : null}
  <//>`;
}
