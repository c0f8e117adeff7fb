// The background agent log card: the rows agent_log.show gives, grouped by
// session or Pulse run, with the filters the dashboard applies.
import { html } from 'htm/preact';
import { Card } from './card.mjs';
import { formatTime, formatSpan, parseTime } from '../format.mjs';

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

function rowState(r) {
  if (r.stuck) return 'stuck';
  if (r.status === 'running') return 'running';
  return r.status || 'unknown';
}

export function AgentLogCard({ doc, nowMs, filters, onFilter, sessions, runs }) {
  const rows = doc && Array.isArray(doc.rows) ? doc.rows : [];
  const f = filters || {};
  const matching = f.stuckOnly ? rows.filter((r) => r.stuck) : rows;
  // A page shows at most the newest MAX_AGENT_ROWS rows (still oldest first).
  const shown = matching.length > MAX_AGENT_ROWS ? matching.slice(matching.length - MAX_AGENT_ROWS) : matching;
  const groups = groupAgentRows(shown, f.groupBy === 'run' ? 'run' : 'session');
  const set = (k) => (e) => onFilter({ ...f, [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value });
  const counts = { running: rows.filter((r) => r.status === 'running' && !r.stuck).length, stuck: rows.filter((r) => r.stuck).length };
  return html`<${Card} id="agent-log" title="Background agent log"
    subtitle=${`${rows.length} rows${counts.running ? ` · ${counts.running} running` : ''}${counts.stuck ? ` · ${counts.stuck} stuck` : ''}`}>
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
      <label>Stuck after
        <input type="number" min="1" class="narrow" aria-label="Stuck after (minutes)" value=${f.stuckAfter || (doc && doc.stuck_after_minutes) || ''} onChange=${set('stuckAfter')} /> min</label>
    </form>
    ${shown.length < matching.length ? html`<p class="muted">Showing the newest ${MAX_AGENT_ROWS} of ${matching.length} rows: narrow the period or filter by session or Pulse run.</p>` : null}
    ${groups.length === 0 ? html`<p class="muted">No agent rows${rows.length ? ' match' : ' in this period'}.</p>` : groups.map(([key, list]) => html`
      <div class="agent-group">
        <h3>${f.groupBy === 'run' ? (key ? html`Pulse run <code>${key}</code>` : 'No Pulse run') : html`Session <code>${key}</code>`}
          <span class="muted"> · ${list.length} agent${list.length === 1 ? '' : 's'}</span></h3>
        <table class="agents">
          <thead><tr><th>Started (UTC)</th><th>Agent</th><th>Kind</th><th>State</th><th>Duration</th><th>Result / error</th>
            <th>${f.groupBy === 'run' ? 'Session' : 'Pulse run'}</th></tr></thead>
          <tbody>
            ${list.map((r) => {
              const state = rowState(r);
              return html`<tr class=${`agent-row state-${state}`}>
                <td>${formatTime(r.started_at || r.updated_at, nowMs)}</td>
                <td><strong>${r.name || r.agent_id}</strong>${r.name ? html`<br /><code class="muted">${r.agent_id}</code>` : null}
                  ${r.parent_execution_id ? html`<br /><span class="muted">parent ${r.parent_execution_id}</span>` : null}</td>
                <td>${r.kind}</td>
                <td><span class=${`state-badge state-${state}`}>${state === 'stuck' ? `stuck (running ${formatSpan(nowMs - parseTime(r.started_at || r.updated_at))})` : state}</span></td>
                <td>${r.duration || (r.completed_at ? formatSpan(parseTime(r.completed_at) - parseTime(r.started_at)) : '')}</td>
                <td class="result">${r.error ? html`<span class="failed">${r.error}</span>` : r.result}</td>
                <td><code>${f.groupBy === 'run' ? r.session_id : (r.pulse_run_id || '')}</code></td>
              </tr>`;
            })}
          </tbody>
        </table>
      </div>`)}
  <//>`;
}
