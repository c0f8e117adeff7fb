// The goal cards: the goal status, the readings chart and runs by route.
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import { Card, EmptyState, TableScroll, plural } from './card.mjs';
import {
  statusWord, formatTime, formatDay, formatNumber, formatSpan, ago, parseTime,
} from '../format.mjs';

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
  const lastByRun = readings.filter((r) => r.byRun).pop();
  const values = readings.map((r) => r.v).concat(target !== null ? [target, lineAt(start), lineAt(end)] : []);
  return {
    xs, byRun, outside, line, readings, target, hasDeadline: sloped, expectedNow: target !== null ? lineAt(until) : null,
    now: nowS, lastByRun: lastByRun ? lastByRun.t : null,
    yMin: values.length ? Math.min(...values) : 0, yMax: values.length ? Math.max(...values) : 1,
  };
}

// The now line and the span with no reading by a workflow run since the
// last one (the not-measured alarm), drawn under the series.
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
    // The target itself, level across the chart: the number the goal is
    // about, whatever the line to it has reached by now.
    if (series.target !== null) {
      const yT = u.valToPos(series.target, 'y', true);
      if (yT >= top && yT <= top + height) {
        ctx.strokeStyle = '#047857';
        ctx.lineWidth = devicePixelRatio;
        ctx.setLineDash([2 * devicePixelRatio, 3 * devicePixelRatio]);
        ctx.beginPath();
        ctx.moveTo(left, yT);
        ctx.lineTo(left + width, yT);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.fillStyle = '#047857';
        ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
        ctx.textAlign = 'left';
        ctx.fillText(`target ${formatNumber(series.target)}`, left + 4 * devicePixelRatio, yT - 4 * devicePixelRatio);
      }
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
      ctx.fillStyle = '#b91c1c';
      ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
      ctx.textAlign = 'right';
      ctx.fillText('now', xNow - 4 * devicePixelRatio, top + 12 * devicePixelRatio);
    }
    ctx.restore();
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
    hooks: { drawClear: [drawMarks(series)], draw: [(u) => describeChart(u, series)] },
  };
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
      const width = Math.max(260, el.clientWidth || 600);
      plot = new UPlot(chartOptions(series, metric, width), [series.xs, series.byRun, series.outside, series.line], el);
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
  return html`<div class="chart" ref=${ref} role="img"
    aria-label=${`${metric} readings against the target line, with the time since the last reading by a run shaded`}></div>
    <${ChartLegend} series=${series} metric=${metric} />`;
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
      ? html`<${EmptyState}>No readings recorded yet: a workflow run records one with pulse observe.<//>`
      : html`<${UPlotChart} series=${series} metric=${metric} />
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

export function RunsByRouteCard({ doc }) {
  const routes = doc && Array.isArray(doc.routes) ? doc.routes : [];
  const max = Math.max(1, ...routes.map((r) => Number(r.runs) || 0));
  return html`<${Card} id="routes" title="Runs by route" subtitle=${doc && doc.since ? `since ${formatDay(doc.since)}` : ''}>
    ${routes.length === 0 ? html`<${EmptyState}>No runs recorded yet: pulse finalize-run records each finished run.<//>` : html`<${TableScroll} label="Runs by route"><table class="routes">
      <thead><tr><th>Route</th><th class="num">Runs</th><th class="num">Completed</th><th class="num">Failed</th><th class="bar-col"><span class="sr-only">Share</span></th></tr></thead>
      <tbody>
        ${routes.map((r) => html`<tr class=${r.primary ? 'primary-route' : ''}>
          <td>${r.route || html`<span class="muted">(no route)</span>`}${r.primary ? html` <span class="tag goal-tag">goal route</span>` : null}</td>
          <td class="num">${r.runs}</td><td class="num">${r.completed}</td>
          <td class=${`num ${r.failed ? 'failed' : ''}`}>${r.failed}</td>
          <td class="bar-col"><span class="bar" style=${`width:${Math.round(((Number(r.runs) || 0) / max) * 100)}%`}></span></td>
        </tr>`)}
      </tbody>
    </table><//>`}
  <//>`;
}
