// The background agent log card: the rows agent_log.show gives, grouped by
// session or Pulse run, with the filters the dashboard applies.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { Card, EmptyState, plural } from './card.mjs';
import { formatTime, formatSpan, formatDuration, parseDurationText, parseTime } from '../format.mjs';

// ---------- background agent log ----------

export function groupAgentRows(rows, by) {
  const groups = new Map();
  for (const r of rows) {
    const key = by === 'run' ? (r.pulse_run_id || '') : (r.session_id || '');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  for (const list of groups.values()) list.sort((a, b) => String(a.started_at || a.updated_at).localeCompare(String(b.started_at || b.updated_at)));
  // Groups in order of their first row: the log reads oldest first.
  return [...groups.entries()].sort((a, b) => String(a[1][0].started_at || a[1][0].updated_at)
    .localeCompare(String(b[1][0].started_at || b[1][0].updated_at)));
}

export const MAX_AGENT_ROWS = 500;

// A group's heading in words, the raw id beside it.
export function sessionTitle(id) {
  if (!id) return 'No session';
  const lead = /^schedule-goallead--.*-g(\d+)$/.exec(id);
  if (lead) return `Pulse's goal lead, generation ${lead[1]}`;
  // A Pulse turn's session opened outside the conversation (pulse session open).
  if (/^schedule-goallead--.*-o\d+$/.test(id)) return 'A Pulse session opened for an agent';
  if (/^schedule-/.test(id)) return 'A scheduled session';
  if (/^builder-/.test(id)) return 'A Builder chat';
  if (/^run-/.test(id)) return 'A workflow run';
  return 'Session';
}

// The agent's own measure when it gave one, else the row's two times.
function duration(r) {
  const parsed = parseDurationText(r.duration);
  if (parsed !== null) return formatDuration(parsed);
  if (r.completed_at && r.started_at) {
    const ms = parseTime(r.completed_at) - parseTime(r.started_at);
    if (!Number.isNaN(ms) && ms >= 0) return formatDuration(ms);
  }
  return r.duration || '';
}

// Multi-line results keep their lines; a long one shows its first lines
// and opens on demand.
function ResultText({ text }) {
  const t = String(text || '');
  const lines = t.split('\n');
  if (lines.length <= 3 && t.length <= 240) return html`<span class="pre-text">${t}</span>`;
  const head = lines.slice(0, 2).join('\n').slice(0, 200);
  return html`<details class="result-more"><summary><span class="pre-text">${head}</span> <span class="more">…more</span></summary>
    <div class="pre-text">${t}</div></details>`;
}

// A turn kind ("workflow_review") may break after its underscores, never
// inside a word.
function breakAfterUnderscores(kind) {
  const parts = String(kind || '').split('_');
  return parts.map((p, i) => (i < parts.length - 1 ? html`${p}_<wbr />` : p));
}

function AgentRow({ r, nowMs, byRun }) {
  const state = rowState(r);
  return html`<tr class=${`agent-row state-${state}`}>
    <td data-label="Started">${formatTime(r.started_at || r.updated_at, nowMs)}</td>
    <td data-label="Agent"><strong>${r.name || r.agent_id}</strong>${r.name ? html`<br /><code class="muted id" title=${r.agent_id}>${r.agent_id}</code>` : null}
      ${r.parent_execution_id ? html`<br /><span class="muted">parent <code class="id">${r.parent_execution_id}</code></span>` : null}</td>
    <td data-label="Kind" class="kind">${breakAfterUnderscores(r.kind)}</td>
    <td data-label="State"><span class=${`state-badge state-${state}`}>${state === 'stuck' ? `stuck (running ${formatSpan(nowMs - parseTime(r.started_at || r.updated_at))})` : state}</span></td>
    <td data-label="Duration">${duration(r)}${r.tokens ? html`<br /><span class="muted tokens">${r.tokens.in.toLocaleString('en')} in / ${r.tokens.out.toLocaleString('en')} out tokens</span>` : null}</td>
    <td data-label="Result" class="result">${r.error ? html`<span class="failed"><${ResultText} text=${r.error} /></span>` : html`<${ResultText} text=${r.result} />`}</td>
    <td data-label=${byRun ? 'Session' : 'Pulse run'}><code class="id" title=${byRun ? r.session_id : (r.pulse_run_id || '')}>${byRun ? r.session_id : (r.pulse_run_id || '')}</code></td>
  </tr>`;
}

function rowState(r) {
  if (r.stuck) return 'stuck';
  if (r.status === 'running') return 'running';
  return r.status || 'unknown';
}

const PERIOD_WORDS = { '24h': 'in the last 24 hours', '7d': 'in the last 7 days', '30d': 'in the last 30 days', all: 'at all' };

// Why nothing is shown: the filters, or nothing ran.
function emptyText(readCount, f) {
  const period = PERIOD_WORDS[f.period || '7d'] || '';
  const narrowed = f.status || f.session || f.run || f.stuckOnly;
  if (narrowed && readCount) return `None of the ${plural(readCount, 'row')} read match these filters.`;
  if (narrowed) return `No agent rows ${period} match these filters: choose "all" in Status, Session or Pulse run, or a longer period.`;
  return `No background agent ran ${period}.`;
}

// "Stuck after N min": a whole number of minutes from 1; anything else is
// refused in words and the filter stays as it was.
function StuckAfter({ value, onApply }) {
  const [draft, setDraft] = useState(String(value || ''));
  const [error, setError] = useState('');
  useEffect(() => { setDraft(String(value || '')); }, [value]);
  const apply = (text) => {
    const t = String(text).trim();
    if (t === '') { setError(''); onApply(''); return; }
    if (!/^\d{1,6}$/.test(t) || Number(t) < 1) {
      setError(`Stuck after: "${t}" is not a whole number of minutes from 1; the filter is unchanged.`);
      return;
    }
    setError('');
    onApply(String(Number(t)));
  };
  return html`<label>Stuck after
    <input type="number" min="1" step="1" class="narrow" aria-label="Stuck after (minutes)" aria-invalid=${error ? 'true' : 'false'}
      aria-describedby=${error ? 'stuck-after-error' : undefined} value=${draft}
      onInput=${(e) => setDraft(e.target.value)} onChange=${(e) => apply(e.target.value)} /> min</label>
    ${error ? html`<span class="card-error" id="stuck-after-error" role="alert">${error}</span>` : null}`;
}

export function AgentLogCard({ fold, doc, nowMs, filters, onFilter, sessions, runs, onOlder }) {
  const rows = doc && Array.isArray(doc.rows) ? doc.rows : [];
  const f = filters || {};
  const matching = f.stuckOnly ? rows.filter((r) => r.stuck) : rows;
  // The core reads a page at a time (newest first); a log read in one piece
  // (an older source) still shows at most the newest MAX_AGENT_ROWS.
  const shown = matching.length > MAX_AGENT_ROWS && !(doc && 'next_cursor' in doc)
    ? matching.slice(matching.length - MAX_AGENT_ROWS) : matching;
  const more = !!(doc && doc.next_cursor);
  const groups = groupAgentRows(shown, f.groupBy === 'run' ? 'run' : 'session');
  // Each change is a patch: the owner of the filters merges it into the
  // latest ones (two quick changes must not undo each other).
  const set = (k) => (e) => onFilter({ [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value });
  const counts = { running: rows.filter((r) => r.status === 'running' && !r.stuck).length, stuck: rows.filter((r) => r.stuck).length };
  return html`<${Card} fold=${fold} id="agent-log" title="Background agent log"
    subtitle=${`${more ? 'newest ' : ''}${plural(rows.length, 'row')}${counts.running ? ` · ${counts.running} running` : ''}${counts.stuck ? ` · ${counts.stuck} stuck` : ''}`}>
    <form class="filters" onSubmit=${(e) => e.preventDefault()} aria-label="Agent log filters">
      <label>Period
        <select value=${f.period || '7d'} aria-label="Period" onChange=${set('period')}>
          <option value="24h">last 24 hours</option><option value="7d">last 7 days</option>
          <option value="30d">last 30 days</option><option value="all">all</option>
        </select></label>
      <label>Group by
        <select value=${f.groupBy || 'session'} aria-label="Group by" onChange=${set('groupBy')}>
          <option value="session">session</option><option value="run">Pulse run</option>
        </select></label>
      <label>Session
        <select value=${f.session || ''} aria-label="Session" onChange=${set('session')}>
          <option value="">all</option>
          ${(sessions || []).map((s) => html`<option value=${s}>${s}</option>`)}
        </select></label>
      <label>Pulse run
        <select value=${f.run || ''} aria-label="Pulse run" onChange=${set('run')}>
          <option value="">all</option>
          ${(runs || []).map((s) => html`<option value=${s}>${s}</option>`)}
        </select></label>
      <label>Status
        <select value=${f.status || ''} aria-label="Status" onChange=${set('status')}>
          <option value="">all</option><option value="running">running</option>
          <option value="completed">completed</option><option value="failed">failed</option><option value="cancelled">cancelled</option>
        </select></label>
      <label class="check"><input type="checkbox" checked=${!!f.stuckOnly} onChange=${set('stuckOnly')} /> stuck only</label>
      <${StuckAfter} value=${f.stuckAfter || (doc && doc.stuck_after_minutes) || ''} onApply=${(v) => onFilter({ stuckAfter: v })} />
    </form>
    ${shown.length < matching.length ? html`<p class="muted">Showing the newest ${MAX_AGENT_ROWS} of ${matching.length} rows: narrow the period or filter by session or Pulse run.</p>` : null}
    ${more ? html`<p class="muted agent-more">Showing the newest ${plural(rows.length, 'row')}; older rows match too.
      <button type="button" class="small-button" onClick=${onOlder}>Show older</button></p>` : null}
    ${groups.length === 0 ? html`<${EmptyState}>${emptyText(rows.length, f)}<//>` : groups.map(([key, list]) => html`
      <div class="agent-group">
        <h3>${f.groupBy === 'run' ? (key ? html`Pulse run <code class="id">${key}</code>` : 'Not part of a Pulse run')
          : html`${sessionTitle(key)} ${key ? html`<code class="id muted">${key}</code>` : null}`}
          <span class="muted"> · ${plural(list.length, 'agent')}</span></h3>
        <table class="agents reflow">
          <thead><tr><th>Started (UTC)</th><th>Agent</th><th>Kind</th><th>State</th><th>Duration</th><th>Result / error</th>
            <th>${f.groupBy === 'run' ? 'Session' : 'Pulse run'}</th></tr></thead>
          <tbody>${list.map((r) => html`<${AgentRow} r=${r} nowMs=${nowMs} byRun=${f.groupBy === 'run'} />`)}</tbody>
        </table>
      </div>`)}
  <//>`;
}
