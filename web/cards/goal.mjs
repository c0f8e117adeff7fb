// The goal cards: the goal status, the readings chart and runs by route.
import { html } from 'htm/preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Card, EmptyState, plural } from './card.mjs';
import { SnoozeControl, SnoozedTag } from './attention.mjs';
import {
  statusWord, formatTime, formatDay, formatNumber, formatSpan, ago, parseTime,
} from '../format.mjs';

// ---------- goal status ----------

// The goal alarms are attention items too (kind goal_alarm): each can be
// snoozed here, where it is listed.
export function GoalStatusCard({ check, nowMs, snooze }) {
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
        ${alarms.map((a) => {
          const item = (Array.isArray(check.attention) ? check.attention : []).find((i) => i.key === `goal_alarm:${a.kind}`);
          return html`<li class=${`alarm${item && item.snoozed ? ' snoozed' : ''}`} data-kind=${a.kind}>
            <span class="alarm-icon" aria-hidden="true">!</span>
            <div class="alarm-body"><span class="alarm-text">${a.message}</span> <${SnoozedTag} item=${item} nowMs=${nowMs} />
              ${snooze && item ? html`<${SnoozeControl} item=${item} nowMs=${nowMs} ...${snooze} busy=${snooze.busyKey === item.key} />` : null}</div></li>`;
        })}
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
// The time ranges the chart offers (`range`: '30d', '90d' or 'all').
export const CHART_RANGES = [['30d', '30 d', 30], ['90d', '90 d', 90], ['all', 'All', 0]];

export function chartSeries(doc, nowMs, range = 'all') {
  const days = (CHART_RANGES.find(([k]) => k === range) || [])[2] || 0;
  const from = days ? Math.floor(nowMs / 1000) - days * 86400 : -Infinity;
  const readings = (doc && Array.isArray(doc.readings) ? doc.readings : [])
    .map((r) => ({ t: Math.floor(parseTime(r.at) / 1000), v: Number(r.value), byRun: !!r.by_run, source: r.source }))
    .filter((r) => !Number.isNaN(r.t) && !Number.isNaN(r.v) && r.t >= from)
    .sort((a, b) => a.t - b.t);
  const num = (v) => (v === undefined || v === null || v === '' ? null : Number(v));
  const target = doc ? num(doc.target) : null;
  const baseline = doc && num(doc.baseline) !== null ? num(doc.baseline) : (readings[0] ? readings[0].v : null);
  const baselineAt = doc && doc.baseline_at ? Math.floor(parseTime(doc.baseline_at) / 1000) : (readings[0] ? readings[0].t : NaN);
  const deadline = doc && doc.deadline ? Math.floor(parseTime(doc.deadline) / 1000) : NaN;
  const nowS = Math.floor(nowMs / 1000);
  const first = readings.length ? readings[0].t : nowS;
  const last = readings.length ? readings[readings.length - 1].t : nowS;
  const start = days ? Math.floor(nowMs / 1000) - days * 86400 : Math.min(first, Number.isNaN(baselineAt) ? first : baselineAt);
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
  const lastByRun = readings.filter((r) => r.byRun).pop();
  const values = readings.map((r) => r.v).concat(target !== null ? [target, lineAt(start), lineAt(end)] : []);
  return {
    xs, byRun, outside, line, readings, target, hasDeadline: sloped, expectedNow: target !== null ? lineAt(until) : null,
    now: nowS, lastByRun: lastByRun ? lastByRun.t : null, start, end,
    yMin: values.length ? Math.min(...values) : 0, yMax: values.length ? Math.max(...values) : 1,
  };
}

// The now line, the span with no reading by a workflow run since the last
// one (the not-measured alarm) and the ticks of the time-axis marks, drawn
// under the series (their labels are drawn over everything: drawLabels).
function drawMarks(series) {
  return (u) => {
    const { ctx } = u;
    const { left, top, width, height } = u.bbox;
    const xNow = u.valToPos(series.now, 'x', true);
    ctx.save();
    if (series.lastByRun !== null && series.now > series.lastByRun) {
      const x0 = Math.max(left, u.valToPos(series.lastByRun, 'x', true));
      ctx.fillStyle = 'rgba(234, 88, 12, 0.12)';
      ctx.fillRect(x0, top, Math.max(0, Math.min(xNow, left + width) - x0), height);
    }
    if (xNow >= left && xNow <= left + width) {
      ctx.strokeStyle = '#b91c1c';
      ctx.lineWidth = 1.5 * devicePixelRatio;
      ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
      ctx.beginPath();
      ctx.moveTo(xNow, top);
      ctx.lineTo(xNow, top + height);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    // Plan changes, owner answers and decisions on the time axis.
    for (const m of series.marks || []) {
      const x = u.valToPos(m.t, 'x', true);
      if (x < left || x > left + width) continue;
      ctx.strokeStyle = MARK_COLORS[m.kind];
      ctx.lineWidth = devicePixelRatio;
      ctx.setLineDash([]);
      ctx.beginPath();
      ctx.moveTo(x, top + height - 10 * devicePixelRatio);
      ctx.lineTo(x, top + height);
      ctx.stroke();
    }
    ctx.restore();
  };
}

// A label on a white box at (x, yBase), kept inside the plot; its box in
// canvas pixels.
function boxedLabel(ctx, text, color, x, yBase, { left, top, width, height }) {
  const dpr = devicePixelRatio;
  ctx.font = `600 ${11 * dpr}px system-ui, sans-serif`;
  ctx.textAlign = 'left';
  const w = ctx.measureText(text).width;
  const bx = Math.min(Math.max(left, x - 3 * dpr), left + width - w - 6 * dpr);
  const by = Math.min(Math.max(top, yBase - 11 * dpr), top + height - 14 * dpr);
  ctx.fillStyle = 'rgba(255, 255, 255, 0.94)';
  ctx.fillRect(bx, by, w + 6 * dpr, 14 * dpr);
  ctx.fillStyle = color;
  ctx.fillText(text, bx + 3 * dpr, by + 11 * dpr);
  return { text, x: Math.round(bx), y: Math.round(by), w: Math.round(w + 6 * dpr), h: Math.round(14 * dpr) };
}

// Drawn last, over the grid and the series: the target level with its label
// and the "now" label, so no gridline strikes them through and neither is
// cut at the plot's edge (the boxes go to the chart's data-labels).
function drawLabels(series) {
  return (u) => {
    const { ctx } = u;
    const plot = u.bbox;
    const { left, top, width, height } = plot;
    const dpr = devicePixelRatio;
    const boxes = [];
    ctx.save();
    if (series.target !== null) {
      const yT = u.valToPos(series.target, 'y', true);
      if (yT >= top && yT <= top + height) {
        ctx.strokeStyle = '#047857';
        ctx.lineWidth = dpr;
        ctx.setLineDash([2 * dpr, 3 * dpr]);
        ctx.beginPath();
        ctx.moveTo(left, yT);
        ctx.lineTo(left + width, yT);
        ctx.stroke();
        ctx.setLineDash([]);
        // Above the line, or below it when above would leave the plot.
        const yText = yT - 17 * dpr < top ? yT + 15 * dpr : yT - 5 * dpr;
        boxes.push({ kind: 'target', ...boxedLabel(ctx, `target ${formatNumber(series.target)}`, '#047857', left + 5 * dpr, yText, plot) });
      }
    }
    const xNow = u.valToPos(series.now, 'x', true);
    if (xNow >= left && xNow <= left + width) {
      // Left of the line, or right of it near the left edge; clear of the target's label.
      ctx.font = `600 ${11 * dpr}px system-ui, sans-serif`;
      const w = ctx.measureText('now').width;
      const x = xNow - w - 6 * dpr >= left ? xNow - w - 4 * dpr : xNow + 4 * dpr;
      let y = top + 14 * dpr;
      const t = boxes[0];
      if (t && x < t.x + t.w && x + w + 6 * dpr > t.x && y - 11 * dpr < t.y + t.h && y + 3 * dpr > t.y) y = t.y + t.h + 14 * dpr;
      boxes.push({ kind: 'now', ...boxedLabel(ctx, 'now', '#b91c1c', x, y, plot) });
    }
    ctx.restore();
    const el = u.root.parentNode;
    if (el) el.dataset.labels = JSON.stringify(boxes);
  };
}

// A legend of what is drawn, in the marks' own shapes (uPlot's shows
// every series as the same square).
function ChartLegend({ series, metric }) {
  const gapDays = series.lastByRun !== null ? Math.floor((series.now - series.lastByRun) / 86400) : null;
  return html`<ul class="chart-legend" aria-label="Legend">
    <li><span class="key key-run" aria-hidden="true"></span>${metric}, read by a workflow run</li>
    ${series.readings.some((r) => !r.byRun) ? html`<li><span class="key key-outside" aria-hidden="true"></span>read outside a run (not counted)</li>` : null}
    ${series.target !== null && series.hasDeadline ? html`<li><span class="key key-target" aria-hidden="true"></span>where the status rule expects it (baseline → target at the deadline)</li>` : null}
    ${series.target !== null ? html`<li><span class="key key-level" aria-hidden="true"></span>target ${formatNumber(series.target)}</li>` : null}
    <li><span class="key key-now" aria-hidden="true"></span>now</li>
    ${(series.marks || []).length ? html`<li><span class="key key-mark" aria-hidden="true"></span>plan changes, decisions and your answers (▲ on the time axis)</li>` : null}
    ${gapDays !== null && gapDays >= 1 ? html`<li><span class="key key-gap" aria-hidden="true"></span>no reading by a run for ${gapDays === 1 ? '1 day' : `${gapDays} days`}</li>` : null}
  </ul>`;
}

// What was drawn, for a reader of the page (and its tests): the axes'
// titles and the value range shown against the target.
function describeChart(u, series) {
  const el = u.root.parentNode;
  if (!el) return;
  el.dataset.axes = u.axes.map((a) => a.label || '').join('|');
  el.dataset.yMax = String(u.scales.y.max);
  if (series.target !== null) el.dataset.target = String(series.target);
}

function chartOptions(series, metric, width) {
  const axis = { stroke: '#4b5563', grid: { stroke: '#eef0f3' }, ticks: { stroke: '#d1d5db' }, labelFont: '600 12px system-ui, sans-serif' };
  const pad = Math.max(1, (series.yMax - series.yMin) * 0.08);
  return {
    width,
    height: 260,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: { time: true, range: (u, min, max) => [min, Math.max(max, series.now)] },
      // The target (and the line to it) always in view, not only the readings.
      y: { range: () => [Math.max(0, series.yMin - pad), series.yMax + pad] },
    },
    axes: [
      { ...axis, label: 'Date (UTC)', values: (u, splits) => splits.map((v) => formatDay(v * 1000).replace(/ \d{4}$/, '')) },
      { ...axis, label: metric, size: 60 },
    ],
    series: [
      { label: 'time' },
      { label: `${metric} (by a workflow run)`, stroke: '#2563eb', width: 2, spanGaps: true,
        points: { show: true, size: 7, fill: '#2563eb', stroke: '#2563eb' } },
      { label: 'reading from outside a run', stroke: '#d97706', width: 0, paths: () => null,
        points: { show: true, size: 11, width: 2.5, fill: '#ffffff', stroke: '#d97706' } },
      { label: 'target line', stroke: '#059669', width: 1.5, dash: [6, 5], spanGaps: true, points: { show: false } },
    ],
    hooks: { drawClear: [drawMarks(series)], draw: [drawLabels(series), (u) => describeChart(u, series)] },
  };
}

// What the chart marks on its time axis, oldest first: the plan changes
// (the readings document's), the decisions Pulse raised and the owner's
// answers (the decision list's), each with the words a marker names.
const MARK_COLORS = { plan_change: '#6d28d9', decision: '#0369a1', owner_answer: '#047857' };
const MARK_WORDS = { plan_change: 'Plan change', decision: 'Pulse asked', owner_answer: 'You answered' };

export function chartMarks(doc, decisions) {
  const out = [];
  const t = (at) => Math.floor(parseTime(at) / 1000);
  for (const c of (doc && Array.isArray(doc.plan_changes) ? doc.plan_changes : [])) {
    out.push({ t: t(c.at), kind: 'plan_change', label: `${c.tool}${c.reason ? `: ${c.reason}` : ''}` });
  }
  for (const d of (decisions && Array.isArray(decisions.decisions) ? decisions.decisions : [])) {
    if (d.created_at) out.push({ t: t(d.created_at), kind: 'decision', label: d.question });
    const a = d.answer || {};
    const at = a.answered_at || d.answered_at;
    if (at && d.status !== 'pending') out.push({ t: t(at), kind: 'owner_answer', label: `${d.question} → ${answerWords(a, d)}` });
  }
  return out.filter((m) => !Number.isNaN(m.t)).sort((a, b) => a.t - b.t);
}

function answerWords(a, d) {
  if (d.status === 'dismissed' || a.kind === 'dismissed') return 'dismissed';
  return a.chosen || a.option || a.text || d.status;
}

function UPlotChart({ series, metric, nowMs }) {
  const ref = useRef(null);
  const [marks, setMarks] = useState([]);
  useEffect(() => {
    let plot = null;
    let cancelled = false;
    let observer = null;
    // The markers as buttons over the plot, where the canvas drew them: after
    // each draw, when the scales are laid out (unchanged places keep the
    // buttons, and the focus on one, as they are).
    let placed = '';
    const place = (u) => {
      if (cancelled) return;
      const { over } = u;
      const at = (series.marks || []).map((m) => ({ ...m, x: over.offsetLeft + u.valToPos(m.t, 'x'), y: over.offsetTop + over.clientHeight }))
        .filter((m) => m.x >= over.offsetLeft && m.x <= over.offsetLeft + over.clientWidth);
      const key = JSON.stringify(at.map((m) => [m.kind, m.t, Math.round(m.x), Math.round(m.y)]));
      if (key !== placed) { placed = key; setMarks(at); }
    };
    import('uplot').then(({ default: UPlot }) => {
      if (cancelled || !ref.current) return;
      const el = ref.current;
      const width = Math.max(260, el.clientWidth || 600);
      const options = chartOptions(series, metric, width);
      options.hooks.draw.push(place);
      plot = new UPlot(options, [series.xs, series.byRun, series.outside, series.line], el);
      if (typeof ResizeObserver !== 'undefined') {
        observer = new ResizeObserver(() => {
          const w = Math.max(260, el.clientWidth);
          if (plot && Math.abs(plot.width - w) > 4) plot.setSize({ width: w, height: 260 });
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
  return html`<div class="chart-wrap">
      <div class="chart" ref=${ref} role="img"
        aria-label=${`${metric} readings against the target line, with the time since the last reading by a run shaded`}></div>
      <div class="chart-marks">${marks.map((m, i) => html`<button type="button"
          class=${`chart-mark mark-${m.kind}${m.x > (ref.current ? ref.current.clientWidth : 0) - 140 ? ' tip-left' : m.x < 140 ? ' tip-right' : ''}`}
          style=${`left:${Math.round(m.x)}px;top:${Math.round(m.y)}px`} data-kind=${m.kind}
          aria-label=${`${MARK_WORDS[m.kind]}, ${formatTime(m.t * 1000, nowMs)} UTC: ${m.label}`}>
          <span class="mark-tip" role="tooltip"><strong>${MARK_WORDS[m.kind]}</strong>, ${formatTime(m.t * 1000, nowMs)} UTC: ${m.label}</span>
        </button>`)}</div>
    </div>
    <${ChartLegend} series=${series} metric=${metric} />`;
}

export function ReadingsCard({ fold, doc, nowMs, decisions, range = 'all', onRange }) {
  // The same series while its inputs are the same, so the plot (and the
  // focus on a mark) outlives the dashboard's other updates.
  const series = useMemo(() => {
    const s = chartSeries(doc, nowMs, range);
    s.marks = chartMarks(doc, decisions).filter((m) => m.t >= s.start && m.t <= s.end);
    return s;
  }, [doc, nowMs, range, decisions]);
  const metric = (doc && doc.metric) || 'metric';
  const sub = doc && doc.target !== undefined && doc.target !== null
    ? `target ${formatNumber(doc.target)}${doc.deadline ? ` by ${formatDay(doc.deadline)}` : ''}${doc.baseline !== undefined && doc.baseline !== null ? ` · baseline ${formatNumber(doc.baseline)}${doc.baseline_at ? ` on ${formatDay(doc.baseline_at)}` : ''}` : ''}`
    : '';
  const expected = series.hasDeadline && series.expectedNow !== null ? ` · the line is at ${formatNumber(Math.round(series.expectedNow))} now` : '';
  const all = doc && Array.isArray(doc.readings) ? doc.readings.length : 0;
  return html`<${Card} fold=${fold} id="readings" title=${`${metric}: readings`} subtitle=${sub + expected}>
    ${all ? html`<div class="chart-range" role="group" aria-label="Time range">${CHART_RANGES.map(([key, label]) => html`<button type="button"
      class="small-button" aria-pressed=${range === key ? 'true' : 'false'} onClick=${() => onRange && onRange(key)}>${label}</button>`)}</div>` : null}
    ${series.readings.length === 0
      ? html`<${EmptyState}>${all ? `No reading in the last ${range === '30d' ? '30' : '90'} days: choose a longer range.` : 'No readings recorded yet: a workflow run records one with pulse observe.'}<//>`
      : html`<${UPlotChart} series=${series} metric=${metric} nowMs=${nowMs} />
        <details class="readings-table">
          <summary>${plural(series.readings.length, 'reading')} as a table</summary>
          <table class="reflow">
            <thead><tr><th>When (UTC)</th><th class="num">Value</th><th>Source</th><th>By a run</th></tr></thead>
            <tbody>
              ${series.readings.map((r) => html`<tr class=${r.byRun ? '' : 'outside-row'}>
                <td data-label="When">${formatTime(r.t * 1000, nowMs)}</td><td data-label="Value" class="num">${formatNumber(r.v)}</td>
                <td data-label="Source">${(r.source || '').replace(/_/g, ' ')}</td><td data-label="By a run">${r.byRun ? 'yes' : html`<strong>no — outside a run</strong>`}</td>
              </tr>`)}
            </tbody>
          </table>
        </details>`}
  <//>`;
}

// ---------- runs by route ----------

export function RunsByRouteCard({ doc, fold }) {
  const routes = doc && Array.isArray(doc.routes) ? doc.routes : [];
  const max = Math.max(1, ...routes.map((r) => Number(r.runs) || 0));
  const runs = routes.reduce((n, r) => n + (Number(r.runs) || 0), 0);
  const failed = routes.reduce((n, r) => n + (Number(r.failed) || 0), 0);
  return html`<${Card} id="routes" title="Runs by route" fold=${fold}
    subtitle=${routes.length ? `${plural(routes.length, 'route')}, ${plural(runs, 'run')}, ${failed} failed${doc && doc.since ? ` since ${formatDay(doc.since)}` : ''}` : ''}>
    ${routes.length === 0 ? html`<${EmptyState}>No runs recorded yet: pulse finalize-run records each finished run.<//>` : html`<table class="routes reflow">
      <thead><tr><th>Route</th><th class="num">Runs</th><th class="num">Completed</th><th class="num">Failed</th><th class="bar-col"><span class="sr-only">Share</span></th></tr></thead>
      <tbody>
        ${routes.map((r) => html`<tr class=${r.primary ? 'primary-route' : ''}>
          <td data-label="Route">${r.route || html`<span class="muted">(no route)</span>`}${r.primary ? html` <span class="tag goal-tag">goal route</span>` : null}</td>
          <td class="num" data-label="Runs">${r.runs}</td><td class="num" data-label="Completed">${r.completed}</td>
          <td class=${`num ${r.failed ? 'failed' : ''}`} data-label="Failed">${r.failed}</td>
          <td class="bar-col" data-label="Share"><span class="bar" style=${`width:${Math.round(((Number(r.runs) || 0) / max) * 100)}%`}></span></td>
        </tr>`)}
      </tbody>
    </table>`}
  <//>`;
}
