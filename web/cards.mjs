// The Pulse tab's cards: components from the agreed JSON shapes (COMMON.md,
// CONTRACT.md) to DOM. They hold no data of their own and call nothing; the
// page (app.mjs) fetches and passes the documents and the action callbacks,
// so each card renders the same in Node (preact-render-to-string, unit
// tests) and in the browser.
import { html } from 'htm/preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import {
  statusWord, formatTime, formatDay, formatNumber, formatSpan, ago, parseTime,
} from './format.mjs';

// ---------- small pieces ----------

function Card({ id, title, subtitle, children, actions }) {
  return html`<section class="card" id=${id} aria-labelledby=${`${id}-title`}>
    <header class="card-head">
      <h2 id=${`${id}-title`}>${title}</h2>
      ${subtitle ? html`<span class="card-sub">${subtitle}</span>` : null}
      ${actions ? html`<div class="card-actions">${actions}</div>` : null}
    </header>
    ${children}
  </section>`;
}

// A card whose document could not be read: the error in one line.
export function CardError({ id, title, error }) {
  const missing = /unknown method "([^"]+)"/.exec(error || '');
  return html`<${Card} id=${id} title=${title}>
    ${missing
      ? html`<p class="muted">Not available: this Pulse core has no <code>${missing[1]}</code> method.</p>`
      : html`<p class="card-error" role="alert">${error}</p>`}
  <//>`;
}

export function CardLoading({ id, title }) {
  return html`<${Card} id=${id} title=${title}><p class="muted">Loading…</p><//>`;
}

function optionLabel(o) {
  if (o === null || o === undefined) return '';
  if (typeof o === 'string') return o;
  return o.label || o.text || o.name || o.id || JSON.stringify(o);
}

function optionValue(o) {
  if (typeof o === 'string') return o;
  return o && (o.id || o.value || o.label || o.text || o.name);
}

// ---------- goal status ----------

export function GoalStatusCard({ check, nowMs }) {
  if (!check) return null;
  const status = check.status || 'unknown';
  const m = check.metric || {};
  const alarms = Array.isArray(check.alarms) ? check.alarms : [];
  const outside = Array.isArray(check.outside_run_readings) ? check.outside_run_readings : [];
  const hasNumber = m.value !== undefined && m.value !== null;
  return html`<section class=${`card goal-card status-${status}`} id="goal-status" aria-labelledby="goal-status-title">
    <header class="goal-head">
      <h2 id="goal-status-title">Goal status</h2>
      <span class="status-badge" data-status=${status}>${statusWord(status)}</span>
      ${check.quiet ? html`<span class="quiet-tag" title="Only the pause, already reported by an earlier recorded check">quiet</span>` : null}
    </header>
    ${status === 'no_goal'
      ? html`<p class="muted">This workflow has no primary goal metric (goal.primary_metric in workflow.json).</p>`
      : html`<div class="goal-body">
        <div class="key-number">
          <span class="key-value">${hasNumber ? formatNumber(m.value) : '—'}</span>
          <span class="key-label">${m.name || 'metric'}${m.target !== undefined && m.target !== null ? html` of <strong>${formatNumber(m.target)}</strong> target` : null}</span>
        </div>
        <dl class="goal-facts">
          <div><dt>Last measured</dt><dd>${m.last_measured_at ? html`${formatTime(m.last_measured_at, nowMs)} <span class="muted">(${ago(m.last_measured_at, nowMs)})</span>` : 'never'}</dd></div>
          <div><dt>Last measured by a run</dt><dd>${m.last_measured_by_run_at ? html`${formatTime(m.last_measured_by_run_at, nowMs)} <span class="muted">(${ago(m.last_measured_by_run_at, nowMs)})</span>` : 'never'}</dd></div>
          <div><dt>Checked</dt><dd>${formatTime(check.checked_at, nowMs)} UTC</dd></div>
        </dl>
      </div>`}
    ${alarms.length
      ? html`<ul class="alarms" aria-label="Alarms">
        ${alarms.map((a) => html`<li class="alarm" data-kind=${a.kind}><span class="alarm-icon" aria-hidden="true">!</span>${a.message}</li>`)}
      </ul>`
      : status !== 'no_goal' ? html`<p class="no-alarms">No alarms.</p>` : null}
    ${outside.length
      ? html`<p class="outside-note">Readings from outside a run (not counted as the workflow measuring): ${outside.map((r, i) => html`${i ? ', ' : ''}${formatTime(r.at, nowMs)} (${(r.source || '').replace(/_/g, ' ')})`)}</p>`
      : null}
  </section>`;
}

// ---------- readings chart ----------

// The chart's data, aligned for uPlot: x in seconds; series = readings by a
// workflow run, readings from outside a run (points only), and the target
// line: the straight line from the baseline to the target at the deadline
// that the status rule measures against (flat at the target without a
// deadline). The x range runs from the baseline (or first reading) to now,
// so the readings get the width; the line is drawn across that range at its
// expected values.
export function chartSeries(doc, nowMs) {
  const readings = (doc && Array.isArray(doc.readings) ? doc.readings : [])
    .map((r) => ({ t: Math.floor(parseTime(r.at) / 1000), v: Number(r.value), byRun: !!r.by_run, source: r.source }))
    .filter((r) => !Number.isNaN(r.t) && !Number.isNaN(r.v))
    .sort((a, b) => a.t - b.t);
  const num = (v) => (v === undefined || v === null || v === '' ? null : Number(v));
  const target = doc ? num(doc.target) : null;
  const baseline = doc && num(doc.baseline) !== null ? num(doc.baseline) : (readings[0] ? readings[0].v : null);
  const baselineAt = doc && doc.baseline_at ? Math.floor(parseTime(doc.baseline_at) / 1000) : (readings[0] ? readings[0].t : NaN);
  const deadline = doc && doc.deadline ? Math.floor(parseTime(doc.deadline) / 1000) : NaN;
  const nowS = Math.floor(nowMs / 1000);
  const first = readings.length ? readings[0].t : nowS;
  const last = readings.length ? readings[readings.length - 1].t : nowS;
  const start = Math.min(first, Number.isNaN(baselineAt) ? first : baselineAt);
  const until = Math.max(last, Number.isNaN(nowS) ? last : nowS);
  // A little room after the last point, so it is not cut at the edge.
  const end = until + Math.max(3600, Math.round((until - start) * 0.03));
  const sloped = target !== null && baseline !== null && !Number.isNaN(baselineAt) && !Number.isNaN(deadline) && deadline > baselineAt;
  const lineAt = (t) => (sloped ? baseline + ((target - baseline) * (t - baselineAt)) / (deadline - baselineAt) : target);
  const times = new Set(readings.map((r) => r.t));
  times.add(start);
  times.add(end);
  const xs = [...times].sort((a, b) => a - b);
  const index = new Map(xs.map((t, i) => [t, i]));
  const byRun = xs.map(() => null);
  const outside = xs.map(() => null);
  const line = xs.map(() => null);
  for (const r of readings) (r.byRun ? byRun : outside)[index.get(r.t)] = r.v;
  if (target !== null) {
    line[index.get(start)] = Math.round(lineAt(start) * 100) / 100;
    line[index.get(end)] = Math.round(lineAt(end) * 100) / 100;
  }
  return { xs, byRun, outside, line, readings, target, hasDeadline: sloped, expectedNow: target !== null ? lineAt(until) : null };
}

function UPlotChart({ series, metric }) {
  const ref = useRef(null);
  useEffect(() => {
    let plot = null;
    let cancelled = false;
    let observer = null;
    import('uplot').then(({ default: UPlot }) => {
      if (cancelled || !ref.current) return;
      const el = ref.current;
      const width = Math.max(280, el.clientWidth || 600);
      const opts = {
        width,
        height: 240,
        legend: { show: true, live: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true } },
        axes: [
          { stroke: '#4b5563', grid: { stroke: '#eef0f3' }, ticks: { stroke: '#d1d5db' },
            values: (u, splits) => splits.map((v) => formatDay(v * 1000).replace(/ \d{4}$/, '')) },
          { stroke: '#4b5563', grid: { stroke: '#eef0f3' }, ticks: { stroke: '#d1d5db' }, size: 56 },
        ],
        series: [
          { label: 'time', value: (u, v) => (v === null ? '—' : formatTime(v * 1000)) },
          { label: `${metric} (by a workflow run)`, stroke: '#2563eb', width: 2, spanGaps: true,
            points: { show: true, size: 7, fill: '#2563eb', stroke: '#2563eb' } },
          { label: 'reading from outside a run', stroke: '#d97706', width: 0, paths: () => null,
            points: { show: true, size: 11, width: 2.5, fill: '#ffffff', stroke: '#d97706' } },
          { label: series.hasDeadline ? 'target line (baseline → target at the deadline)' : 'target', stroke: '#059669',
            width: 1.5, dash: [6, 5], spanGaps: true, points: { show: false } },
        ],
      };
      plot = new UPlot(opts, [series.xs, series.byRun, series.outside, series.line], el);
      if (typeof ResizeObserver !== 'undefined') {
        observer = new ResizeObserver(() => {
          const w = Math.max(280, el.clientWidth);
          if (plot && Math.abs(plot.width - w) > 4) plot.setSize({ width: w, height: 240 });
        });
        observer.observe(el);
      }
    });
    return () => {
      cancelled = true;
      if (observer) observer.disconnect();
      if (plot) plot.destroy();
    };
  }, [series, metric]);
  return html`<div class="chart" ref=${ref} role="img"
    aria-label=${`${metric} readings against the target line`}></div>`;
}

export function ReadingsCard({ doc, nowMs }) {
  const series = chartSeries(doc, nowMs);
  const metric = (doc && doc.metric) || 'metric';
  const sub = doc && doc.target !== undefined && doc.target !== null
    ? `target ${formatNumber(doc.target)}${doc.deadline ? ` by ${formatDay(doc.deadline)}` : ''}${doc.baseline !== undefined && doc.baseline !== null ? ` · baseline ${formatNumber(doc.baseline)}${doc.baseline_at ? ` on ${formatDay(doc.baseline_at)}` : ''}` : ''}`
    : '';
  const expected = series.hasDeadline && series.expectedNow !== null ? ` · the line is at ${formatNumber(Math.round(series.expectedNow))} now` : '';
  return html`<${Card} id="readings" title=${`${metric}: readings`} subtitle=${sub + expected}>
    ${series.readings.length === 0
      ? html`<p class="muted">No readings recorded yet.</p>`
      : html`<${UPlotChart} series=${series} metric=${metric} />
        <details class="readings-table">
          <summary>${series.readings.length} readings as a table</summary>
          <table>
            <thead><tr><th>When (UTC)</th><th class="num">Value</th><th>Source</th><th>By a run</th></tr></thead>
            <tbody>
              ${series.readings.map((r) => html`<tr class=${r.byRun ? '' : 'outside-row'}>
                <td>${formatTime(r.t * 1000, nowMs)}</td><td class="num">${formatNumber(r.v)}</td>
                <td>${(r.source || '').replace(/_/g, ' ')}</td><td>${r.byRun ? 'yes' : html`<strong>no — outside a run</strong>`}</td>
              </tr>`)}
            </tbody>
          </table>
        </details>`}
  <//>`;
}

// ---------- runs by route ----------

export function RunsByRouteCard({ doc }) {
  const routes = doc && Array.isArray(doc.routes) ? doc.routes : [];
  const max = Math.max(1, ...routes.map((r) => Number(r.runs) || 0));
  return html`<${Card} id="routes" title="Runs by route" subtitle=${doc && doc.since ? `since ${formatDay(doc.since)}` : ''}>
    ${routes.length === 0 ? html`<p class="muted">No runs recorded.</p>` : html`<table class="routes">
      <thead><tr><th>Route</th><th class="num">Runs</th><th class="num">Completed</th><th class="num">Failed</th><th class="bar-col"><span class="sr-only">Share</span></th></tr></thead>
      <tbody>
        ${routes.map((r) => html`<tr class=${r.primary ? 'primary-route' : ''}>
          <td>${r.route || html`<span class="muted">(no route)</span>`}${r.primary ? html` <span class="tag goal-tag">goal route</span>` : null}</td>
          <td class="num">${r.runs}</td><td class="num">${r.completed}</td>
          <td class=${`num ${r.failed ? 'failed' : ''}`}>${r.failed}</td>
          <td class="bar-col"><span class="bar" style=${`width:${Math.round(((Number(r.runs) || 0) / max) * 100)}%`}></span></td>
        </tr>`)}
      </tbody>
    </table>`}
  <//>`;
}

// ---------- needs you ----------

function recommendationText(rec) {
  if (!rec) return '';
  if (rec.option !== undefined && rec.option !== null && rec.option !== '') return optionLabel(rec.option);
  return rec.text || rec.answer || '';
}

function ChangeForm({ decision, onSubmit, onCancel, busy }) {
  const options = Array.isArray(decision.options) ? decision.options : [];
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
        ${optionLabel(o)}</label>`)}
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

function PendingDecision({ d, nowMs, onAnswer, busy, readOnly }) {
  const [changing, setChanging] = useState(false);
  const rec = d.recommendation;
  const options = Array.isArray(d.options) ? d.options : [];
  return html`<li class="decision" data-id=${d.id}>
    <p class="question">${d.question}</p>
    <p class="meta">
      <span>waiting ${formatSpan(typeof d.waited_seconds === 'number' ? d.waited_seconds * 1000 : nowMs - parseTime(d.created_at))}</span>
      ${d.blocks ? html`<span>blocks: <strong>${Array.isArray(d.blocks) ? d.blocks.join(', ') : d.blocks}</strong></span>` : null}
      ${d.raised_by ? html`<span>raised by ${d.raised_by}</span>` : null}
    </p>
    ${options.length ? html`<p class="options">Options: ${options.map((o, i) => html`${i ? ' · ' : ''}<span class="option">${optionLabel(o)}</span>`)}</p>` : null}
    ${rec
      ? html`<div class="recommendation">
        <p><span class="rec-label">Pulse recommends</span> <strong class="rec-answer">${recommendationText(rec)}</strong>
          ${rec.confidence ? html` <span class=${`tag conf-${rec.confidence}`}>${rec.confidence} confidence</span>` : null}</p>
        ${rec.why ? html`<p class="why">${rec.why}</p>` : null}
        ${rec.evidence ? html`<p class="evidence">Evidence: ${typeof rec.evidence === 'string' ? rec.evidence : JSON.stringify(rec.evidence)}</p>` : null}
        ${rec.safe_default_by ? html`<p class="muted">Safe default applies ${formatTime(rec.safe_default_by, nowMs)} UTC unless you answer.</p>` : null}
      </div>`
      : html`<p class="muted">No recommendation from Pulse yet.</p>`}
    ${changing
      ? html`<${ChangeForm} decision=${d} busy=${busy}
          onCancel=${() => setChanging(false)}
          onSubmit=${(a) => { setChanging(false); onAnswer(d, a); }} />`
      : html`<div class="row">
        <button type="button" class="primary" disabled=${busy || !rec || readOnly}
          title=${rec ? '' : 'Nothing to accept yet'}
          onClick=${() => onAnswer(d, { accept: true })}>Accept${rec ? html`<span class="sr-only">: ${recommendationText(rec)}</span>` : null}</button>
        <button type="button" disabled=${busy || readOnly} onClick=${() => setChanging(true)}>Change…</button>
      </div>`}
  </li>`;
}

export function NeedsYouCard({ doc, nowMs, onAnswer, busyId, readOnly }) {
  const pending = (doc && Array.isArray(doc.decisions) ? doc.decisions : []).filter((d) => d.status === 'pending');
  pending.sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
  return html`<${Card} id="needs-you" title="Needs you" subtitle=${pending.length ? `${pending.length} pending` : ''}>
    ${readOnly ? html`<p class="muted">${readOnly}</p>` : null}
    ${pending.length === 0 ? html`<p class="muted">Nothing waits for you.</p>` : html`<ul class="decisions">
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

function answeredAt(d) {
  const a = d.answer || {};
  return a.answered_at || a.at || a.created_at || d.answered_at || d.updated_at || '';
}

export function DecisionLogCard({ doc, nowMs }) {
  const all = doc && Array.isArray(doc.decisions) ? doc.decisions : [];
  const answered = all.filter((d) => d.status !== 'pending');
  answered.sort((a, b) => String(answeredAt(b)).localeCompare(String(answeredAt(a))));
  const due = new Set((doc && Array.isArray(doc.outcomes_due) ? doc.outcomes_due : []).map((o) => (typeof o === 'object' ? o.id : o)));
  return html`<${Card} id="decision-log" title="Decision log" subtitle=${answered.length ? `${answered.length} answered` : ''}>
    ${answered.length === 0 ? html`<p class="muted">No answered decisions yet.</p>` : html`<ol class="log">
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
            : due.has(d.id) ? html`<p class="outcome due">Result due: answered over a day ago, no outcome recorded yet.</p>`
              : html`<p class="outcome muted">No result yet.</p>`}
        </li>`;
      })}
    </ol>`}
  <//>`;
}

// ---------- goal memory ----------

export function GoalMemoryCard({ doc, onSave, readOnly, saving, error }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const area = useRef(null);
  useLayoutEffect(() => { if (editing && area.current) area.current.focus(); }, [editing]);
  const text = doc && typeof doc.text === 'string' ? doc.text : '';
  const start = () => { setDraft(text); setEditing(true); };
  const save = async (e) => {
    e.preventDefault();
    const ok = await onSave(draft, doc);
    if (ok) setEditing(false);
  };
  return html`<${Card} id="memory" title="Goal memory"
    subtitle=${doc && Array.isArray(doc.entries) ? `${doc.entries.length} entries` : ''}
    actions=${!editing && !readOnly ? html`<button type="button" onClick=${start}>Edit</button>` : null}>
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
    ${editing
      ? html`<form class="memory-form" onSubmit=${save} onKeyDown=${(e) => { if (e.key === 'Escape') { e.preventDefault(); setEditing(false); } }}>
        <label class="sr-only" for="memory-text">Goal memory text</label>
        <textarea id="memory-text" ref=${area} rows="14" value=${draft} onInput=${(e) => setDraft(e.target.value)}></textarea>
        <div class="row">
          <button type="submit" class="primary" disabled=${saving}>Save</button>
          <button type="button" onClick=${() => setEditing(false)}>Cancel</button>
        </div>
      </form>`
      : text.trim() ? html`<div class="memory-text">${renderMemory(text)}</div>`
        : html`<p class="muted">The goal memory is empty.</p>`}
  <//>`;
}

// Goal memory is Markdown written by Pulse and the owner; headings and
// bullets are shown as such, everything else as plain paragraphs (no HTML
// from the file is ever interpreted).
export function renderMemory(text) {
  const out = [];
  let list = null;
  const flush = () => { if (list) { out.push(html`<ul>${list}</ul>`); list = null; } };
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    const h = /^(#{1,4})\s+(.*)$/.exec(line);
    const b = /^\s*[-*]\s+(.*)$/.exec(line);
    if (h) { flush(); out.push(h[1].length <= 2 ? html`<h3>${h[2]}</h3>` : html`<h4>${h[2]}</h4>`); }
    else if (b) { (list = list || []).push(html`<li>${b[1]}</li>`); }
    else if (!line.trim()) flush();
    else { flush(); out.push(html`<p>${line}</p>`); }
  }
  flush();
  return out;
}

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
