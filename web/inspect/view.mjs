// Inspect: any copy's database, browsed, queried and exported in this
// browser, offline, read-only. The tables and views with their rows and
// schema; a table a page at a time (keyset), sorted by any column, filtered
// per column, with the top values of a column; a SQL console with named
// starting points; CSV and JSON exports. Everything runs in Inspect's own
// worker (client.mjs); the view's state is the address's query, so a reload
// or a shared link opens the same view.
import { html } from 'htm/preact';
import { useState, useEffect, useRef, useMemo } from 'preact/hooks';
import { InspectClient } from './client.mjs';
import { FILTER_OPS, viewFromQuery, queryFromView, jsonCell, jsonSummary } from './sql.mjs';
import { STARTING_POINTS, startingSql } from './starting-points.mjs';
import { plural, TableScroll } from '../cards/card.mjs';
import { formatBytes } from '../format.mjs';

const OP_LABEL = new Map(FILTER_OPS.map(([op, label]) => [op, label]));
const OP_VALUE = new Map(FILTER_OPS.map(([op, , value]) => [op, value]));

let styled = false;
function useStyles() {
  if (styled || typeof document === 'undefined') return;
  styled = true;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = new URL('./inspect.css', import.meta.url).href;
  document.head.appendChild(link);
}

const errorText = (e) => (e && e.message) || String(e);

// "1,204 rows", "≈ 1.0M rows (estimated)", "≈ 180k rows, counting…".
export function rowsText(o) {
  if (o.rows === undefined || o.rows === null) return o.type === 'view' ? 'view' : o.counting ? 'counting…' : '';
  if (!o.estimated) return plural(o.rows, 'row');
  const n = o.rows >= 1e6 ? `${(o.rows / 1e6).toFixed(1)}M` : o.rows >= 1e4 ? `${Math.round(o.rows / 1e3)}k`
    : o.rows >= 1e3 ? `${(o.rows / 1e3).toFixed(1)}k` : String(o.rows);
  return o.counting ? `≈ ${n} rows, counting…` : `≈ ${n} rows (estimated)`;
}

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// ---- Cells ----

function LongText({ text }) {
  const [open, setOpen] = useState(false);
  if (text.length <= 200 || open) return html`<span class="cell-text">${text}</span>`;
  return html`<span class="cell-text">${text.slice(0, 200)}</span><button type="button" class="link-button"
    aria-label=${`Show all ${text.length} characters`} onClick=${() => setOpen(true)}>…more</button>`;
}

function JsonValue({ value }) {
  const [open, setOpen] = useState(false);
  return html`<button type="button" class="json-toggle" aria-expanded=${open} onClick=${() => setOpen(!open)}
      title=${open ? 'Fold' : 'Expand'}>${jsonSummary(value)}</button>
    ${open ? html`<pre class="json-open">${JSON.stringify(value, null, 2)}</pre>` : null}`;
}

export function Cell({ v }) {
  if (v === null || v === undefined) return html`<span class="null">NULL</span>`;
  if (v instanceof Uint8Array) {
    const hex = [...v.subarray(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
    return html`<span class="blob">x'${hex}${v.length > 16 ? '…' : ''}' (${plural(v.length, 'byte')})</span>`;
  }
  if (typeof v === 'object' && v.cut !== undefined) {
    return html`<span class="cell-text">${v.cut}</span> <span class="muted">… ${plural(v.length, 'character')} in all (export to read them)</span>`;
  }
  if (typeof v === 'number') return html`<span class="num">${String(v)}</span>`;
  const parsed = jsonCell(v);
  if (parsed !== undefined) return html`<${JsonValue} value=${parsed} />`;
  return html`<${LongText} text=${String(v)} />`;
}

function ResultTable({ columns, rows, label, sortable, view, setSort, info }) {
  const header = (c) => {
    const ci = info && info.get(c);
    const type = ci ? html`<span class="col-type">${ci.type || 'any'}${ci.pk ? ' · key' : ''}${ci.indexed ? ' · indexed' : ''}</span>` : null;
    if (!sortable) return html`<th scope="col"><span class="col-name">${c}</span>${type}</th>`;
    const sorted = view.sort === c;
    const sort = sorted ? (view.dir === 'desc' ? 'descending' : 'ascending') : undefined;
    return html`<th scope="col" aria-sort=${sort}><button type="button" class="sort-button"
        onClick=${() => setSort(c, sorted && view.dir === 'asc' ? 'desc' : 'asc')}
        aria-label=${`Sort by ${c}${sorted && view.dir === 'asc' ? ', descending' : ''}`}>
        <span class="col-name">${c}</span>${sorted ? html` <span aria-hidden="true">${view.dir === 'desc' ? '▼' : '▲'}</span>` : null}</button>${type}</th>`;
  };
  return html`<${TableScroll} label=${label}>
    <table class="inspect-table">
      <thead><tr>${columns.map(header)}</tr></thead>
      <tbody>${rows.map((r, i) => html`<tr key=${i}>${r.map((v) => html`<td><${Cell} v=${v} /></td>`)}</tr>`)}</tbody>
    </table>
  <//>`;
}

// ---- The tables and views ----

function ObjectList({ objects, current, onPick }) {
  return html`<nav class="inspect-objects" aria-label="Tables and views">
    <h3>Tables and views</h3>
    <ul>${objects.map((o) => html`<li key=${o.name}>
      <button type="button" class=${o.name === current ? 'current' : ''} aria-current=${o.name === current ? 'true' : undefined}
        onClick=${() => onPick(o.name)}>
        <span class="obj-name">${o.name}</span>
        <span class="obj-rows muted">${o.type === 'view' ? 'view' : rowsText(o)}</span>
      </button></li>`)}
    </ul>
  </nav>`;
}

function Schema({ obj }) {
  return html`<details class="inspect-schema">
    <summary>Schema of ${obj.name}</summary>
    <pre>${obj.sql}</pre>
    ${obj.indexes.length ? html`<p class="muted">Indexes: ${obj.indexes.map((i) => `${i.name} (${i.columns.join(', ')})${i.unique ? ' unique' : ''}${i.partial ? ' partial' : ''}`).join('; ')}</p>` : null}
  </details>`;
}

// ---- Filters and facets ----

function FilterForm({ obj, onAdd }) {
  const [col, setCol] = useState(obj.columns[0]);
  const [op, setOp] = useState('eq');
  const [value, setValue] = useState('');
  useEffect(() => setCol(obj.columns[0]), [obj.name]);
  const info = obj.columnInfo.find((c) => c.name === col);
  const scans = obj.type === 'view' || op === 'contains' || (info && !info.indexed);
  return html`<form class="inspect-filter" onSubmit=${(e) => {
      e.preventDefault();
      onAdd({ col, op, value });
      setValue('');
    }}>
    <label for="filter-col">Filter</label>
    <select id="filter-col" value=${col} onChange=${(e) => setCol(e.target.value)}>
      ${obj.columns.map((c) => html`<option value=${c}>${c}</option>`)}
    </select>
    <label class="sr-only" for="filter-op">Operator</label>
    <select id="filter-op" value=${op} onChange=${(e) => setOp(e.target.value)}>
      ${FILTER_OPS.map(([o, label]) => html`<option value=${o}>${label}</option>`)}
    </select>
    ${OP_VALUE.get(op) ? html`<label class="sr-only" for="filter-value">Value</label>
      <input id="filter-value" type="text" value=${value} onInput=${(e) => setValue(e.target.value)} size="14" />` : null}
    <button type="submit">Add filter</button>
    ${scans ? html`<span class="scan-hint" id="filter-scan-hint">${obj.type === 'view'
      ? 'A view: a filter is applied to every row it gives.'
      : op === 'contains'
        ? `"contains" reads every row of ${obj.name}: no index helps it.`
        : `No index on ${col}: this filter reads every row of ${obj.name}.`}</span>` : null}
  </form>`;
}

function Facet({ obj, view, facet, onFacet, onFilter }) {
  const [col, setCol] = useState(view.facet || obj.columns[0]);
  useEffect(() => setCol(view.facet || obj.columns[0]), [obj.name, view.facet]);
  return html`<div class="inspect-facet">
    <form class="row" onSubmit=${(e) => { e.preventDefault(); onFacet(col); }}>
      <label for="facet-col">Top values of</label>
      <select id="facet-col" value=${col} onChange=${(e) => setCol(e.target.value)}>
        ${obj.columns.map((c) => html`<option value=${c}>${c}</option>`)}
      </select>
      <button type="submit">Show top values</button>
      ${view.facet ? html`<button type="button" onClick=${() => onFacet('')}>Hide</button>` : null}
    </form>
    ${facet && facet.error ? html`<p class="card-error" role="alert">${facet.error}</p>` : null}
    ${facet && facet.values ? html`<div class="facet-values" id="facet-values" aria-label=${`Top values of ${facet.col}`} role="group">
      <p class="muted">${facet.more ? 'The 10 most frequent' : 'Every'} value of <strong>${facet.col}</strong>${view.filters.length ? ' among the rows the filters keep' : ''}${' '}(${facet.ms} ms${facet.scan ? ', a full read: no index on it' : ''}). Pick one to filter on it.</p>
      <ul>${facet.values.map((f) => html`<li><button type="button" class="facet-value"
          onClick=${() => onFilter(f.value === null ? { col: facet.col, op: 'null', value: '' } : { col: facet.col, op: 'eq', value: String(f.value) })}>
          <span class="facet-name">${f.value === null ? 'NULL' : String(f.value) || '(empty)'}</span> <span class="facet-n">${f.n.toLocaleString('en-GB')}</span></button></li>`)}
      </ul></div>` : null}
  </div>`;
}

// ---- A table, a page at a time ----

// First, Previous, Next, Last: by the page's keys (a table), by position (a view).
function Pager({ page, moved }) {
  return html`<nav class="pager row" aria-label="Pages">
    <button type="button" disabled=${!page.hasPrev} onClick=${() => moved({})}>First</button>
    <button type="button" disabled=${!page.hasPrev} onClick=${() => (page.keyset
      ? moved({ before: page.first }) : moved({ offset: Math.max(0, page.offset - 100) }))}>Previous</button>
    <button type="button" disabled=${!page.hasNext} onClick=${() => (page.keyset
      ? moved({ after: page.last }) : moved({ offset: page.offset + 100 }))}>Next</button>
    ${page.keyset ? html`<button type="button" disabled=${!page.hasNext} onClick=${() => moved({ last: true })}>Last</button>` : null}
  </nav>`;
}

function TableView({ client, obj, view, setView, busy }) {
  const [page, setPage] = useState(null);
  const [error, setError] = useState('');
  const [facet, setFacet] = useState(null);
  const [count, setCount] = useState(null);
  const [note, setNote] = useState('');
  const viewKey = queryFromView({ ...view, sql: '', tab: 'table', facet: '' });
  useEffect(() => {
    let live = true;
    setError('');
    client.request('page', { view }).then((p) => live && setPage(p)).catch((e) => live && setError(errorText(e)));
    return () => { live = false; };
  }, [viewKey]);
  const filterKey = JSON.stringify(view.filters);
  useEffect(() => { setCount(null); }, [obj.name, filterKey]);
  useEffect(() => {
    let live = true;
    if (!view.facet) { setFacet(null); return undefined; }
    setFacet({ col: view.facet });
    client.request('facet', { table: obj.name, col: view.facet, filters: view.filters })
      .then((f) => live && setFacet(f)).catch((e) => live && setFacet({ col: view.facet, error: errorText(e) }));
    return () => { live = false; };
  }, [obj.name, view.facet, filterKey]);

  const moved = (patch) => setView({ ...view, after: null, before: null, last: false, offset: 0, ...patch });
  const info = useMemo(() => new Map(obj.columnInfo.map((c) => [c.name, c])), [obj.name]);
  const exportAs = async (format) => {
    setNote(`Exporting ${obj.name} as ${format.toUpperCase()}…`);
    try {
      const out = await client.request('export', { table: obj.name, view, format });
      download(out.blob, `${obj.name}.${format}`);
      setNote(`Exported ${plural(out.rows, 'row')} of ${obj.name} as ${format.toUpperCase()} (${formatBytes(out.blob.size)}).`);
    } catch (e) {
      setNote(e.cancelled ? 'Export cancelled.' : `Not exported: ${errorText(e)}`);
    }
  };
  const countRows = () => {
    setCount({ running: true });
    client.request('count', { table: obj.name, filters: view.filters })
      .then((c) => setCount(c)).catch((e) => setCount({ error: e.cancelled ? 'Count cancelled.' : errorText(e) }));
  };
  const from = page && page.keyset === false ? page.offset : null;
  return html`<div class="inspect-table-view" id="inspect-table-view">
    <div class="inspect-head">
      <h3 id="inspect-table-title">${obj.name}</h3>
      <span class="muted">${obj.type === 'view' ? 'view' : rowsText(obj)} · ${plural(obj.columns.length, 'column')}</span>
    </div>
    <${Schema} obj=${obj} />
    <${FilterForm} obj=${obj} onAdd=${(f) => moved({ filters: [...view.filters, f] })} />
    ${view.filters.length ? html`<ul class="filter-chips" aria-label="Filters">${view.filters.map((f, i) => html`<li>
        <span>${f.col} ${OP_LABEL.get(f.op)}${OP_VALUE.get(f.op) ? html` <code>${f.value}</code>` : null}</span>
        <button type="button" aria-label=${`Remove the filter ${f.col} ${OP_LABEL.get(f.op)} ${f.value || ''}`.trim()}
          onClick=${() => moved({ filters: view.filters.filter((_, k) => k !== i) })}>×</button></li>`)}
      </ul>` : null}
    ${page && page.scan && view.filters.length ? html`<p class="scan-note" role="note">No index serves these filters: each page reads
      ${obj.rows ? `the ${rowsText({ ...obj, counting: false }).replace(' (estimated)', '')} of ${obj.name}` : `every row of ${obj.name}`} until it has ${plural(100, 'match', 'matches')}.</p>` : null}
    ${page && page.sort && view.sort ? html`<p class="scan-note" role="note">No index on ${view.sort}: every row is read and sorted for each page.</p>` : null}
    <${Facet} obj=${obj} view=${view} facet=${facet} onFacet=${(c) => setView({ ...view, facet: c })}
      onFilter=${(f) => moved({ filters: [...view.filters, f] })} />
    <div class="row inspect-actions">
      <button type="button" onClick=${countRows} disabled=${count && count.running}>Count rows</button>
      ${count && count.count !== undefined ? html`<span id="row-count">${plural(count.count, 'row')}${view.filters.length ? ' match' : ''} (${count.ms} ms)</span>` : null}
      ${count && count.error ? html`<span class="card-error">${count.error}</span>` : null}
      <span class="spacer"></span>
      <span class="muted">Export ${view.filters.length ? 'the filtered rows' : 'the table'}:</span>
      <button type="button" onClick=${() => exportAs('csv')} aria-label=${`Export ${obj.name} as CSV`}>CSV</button>
      <button type="button" onClick=${() => exportAs('json')} aria-label=${`Export ${obj.name} as JSON`}>JSON</button>
    </div>
    <div role="status" class="inspect-note">${note}</div>
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
    ${page ? html`
      <p class="muted page-line" id="page-line">${page.rows.length === 0 ? 'No rows.' : `${plural(page.rows.length, 'row')}${from !== null ? ` from row ${(from + 1).toLocaleString('en-GB')}` : ''}`}${' '}· ${page.ms} ms${page.keyset === false ? ' · a view, paged by position' : ''}${busy ? ' · working…' : ''}</p>
      <${ResultTable} columns=${page.columns} rows=${page.rows} label=${`Rows of ${obj.name}`} sortable=${true} view=${view}
        info=${info} setSort=${(sort, dir) => moved({ sort, dir })} />
      <${Pager} page=${page} moved=${moved} />` : error ? null : html`<p class="muted">Reading ${obj.name}…</p>`}
  </div>`;
}

// ---- The SQL console ----

function PlanTree({ plan }) {
  const depth = new Map();
  return html`<pre class="plan" id="query-plan">${plan.map((p) => {
    const d = (depth.get(p.parent) ?? -1) + 1;
    depth.set(p.id, d);
    return `${'  '.repeat(d)}${p.detail}\n`;
  }).join('')}</pre>`;
}

function SqlConsole({ client, objects, view, setView, busy }) {
  const [draft, setDraft] = useState(view.sql);
  const [result, setResult] = useState(null);
  const [running, setRunning] = useState(false);
  const [note, setNote] = useState('');
  const ranFor = useRef('');
  // What the box holds now: typed text reaches `draft` on the next render,
  // and Ctrl+Enter can come before it.
  const box = useRef(null);
  useEffect(() => setDraft(view.sql), [view.sql]);
  const run = async (sql, explain = false) => {
    setView({ ...view, sql, tab: 'sql' });
    ranFor.current = sql;
    setRunning(true);
    setResult(null);
    setNote('');
    const t0 = performance.now();
    try {
      const r = await client.request('query', { sql, explain });
      setResult({ ...r, explain });
    } catch (e) {
      setResult(e.cancelled
        ? { cancelled: true, ms: Math.round(performance.now() - t0) }
        : { error: errorText(e), line: e.line, column: e.column, refused: !!e.refused });
    } finally {
      setRunning(false);
    }
  };
  // A view opened from its address runs its query once.
  useEffect(() => { if (view.sql && ranFor.current !== view.sql) run(view.sql); }, []);
  const names = new Set(objects.map((o) => o.name));
  const exportAs = async (format) => {
    setNote(`Exporting the result as ${format.toUpperCase()}…`);
    try {
      // The query whose result is shown, not what the box holds now.
      const out = await client.request('export', { sql: ranFor.current, format });
      download(out.blob, `query.${format}`);
      setNote(`Exported ${plural(out.rows, 'row')} as ${format.toUpperCase()} (${formatBytes(out.blob.size)}).`);
    } catch (e) {
      setNote(e.cancelled ? 'Export cancelled.' : `Not exported: ${errorText(e)}`);
    }
  };
  return html`<div class="inspect-sql" id="inspect-sql-view">
    <div class="starting-points" role="group" aria-label="Starting points">
      <span class="muted">Starting points:</span>
      ${STARTING_POINTS.filter((s) => s.tables.every((t) => names.has(t))).map((s) => html`<button type="button"
        onClick=${async () => { const sql = await startingSql(s, (q) => client.request('query', { sql: q })); setDraft(sql); run(sql); }}>${s.label}</button>`)}
    </div>
    <form onSubmit=${(e) => { e.preventDefault(); run(box.current ? box.current.value : draft); }}>
      <label for="inspect-sql">SQL (read-only: one SELECT, run in this browser)</label>
      <textarea id="inspect-sql" ref=${box} rows="6" spellcheck="false" value=${draft} onInput=${(e) => setDraft(e.target.value)}
        onKeyDown=${(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(e.currentTarget.value); } }}
        aria-describedby="inspect-sql-help"></textarea>
      <p id="inspect-sql-help" class="muted">Ctrl+Enter runs it. Writes, ATTACH and pragmas that change state are refused; at most 10,000 rows are shown (all are counted and exported).</p>
      <div class="row">
        <button type="submit" class="primary" disabled=${running}>Run</button>
        <button type="button" disabled=${running} onClick=${() => run(box.current ? box.current.value : draft, true)}>Explain query plan</button>
        ${running || busy ? html`<button type="button" class="danger" id="inspect-cancel" onClick=${() => client.cancel()}>Cancel</button>` : null}
        <span class="spacer"></span>
        ${result && result.columns ? html`<span class="muted">Export the result:</span>
          <button type="button" onClick=${() => exportAs('csv')}>CSV</button>
          <button type="button" onClick=${() => exportAs('json')}>JSON</button>` : null}
      </div>
    </form>
    <div role="status" class="inspect-note" id="query-status">${running ? 'Running…' : result && result.cancelled
      ? `Cancelled after ${(result.ms / 1000).toFixed(1)} s.`
      : result && result.columns ? `${result.truncated ? `${result.rows.length.toLocaleString('en-GB')} of ${plural(result.total, 'row')} shown` : plural(result.total, 'row')} · ${result.ms} ms`
        : result && result.plan ? `Query plan · ${result.ms} ms` : ''}${note ? ` ${note}` : ''}</div>
    ${result && result.error ? html`<p class="card-error query-error" role="alert" id="query-error">${result.error}${result.line
      ? ` (line ${result.line}, column ${result.column})` : ''}</p>` : null}
    ${result && result.plan ? html`<${PlanTree} plan=${result.plan} />` : null}
    ${result && result.columns ? html`<${ResultTable} columns=${result.columns} rows=${result.rows} label="Query result" sortable=${false} />` : null}
  </div>`;
}

// ---- The whole view ----

export function InspectView({ name, client, query, setQuery, size }) {
  useStyles();
  const [objects, setObjects] = useState(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [view, setViewState] = useState(() => viewFromQuery(query));
  useEffect(() => client.onBusy(setBusy), [client]);
  // Back/forward (or a link) changed the address: the view follows it.
  useEffect(() => {
    if (queryFromView(view) !== queryFromView(viewFromQuery(query))) setViewState(viewFromQuery(query));
  }, [query]);
  useEffect(() => {
    let live = true;
    // The list at once (rows from each table's b-tree), then the exact rows
    // of those under a million, one table a request.
    (async () => {
      const o = await client.request('objects');
      if (!live) return;
      setObjects(o);
      for (const t of o.objects.filter((x) => x.counting)) {
        const got = await client.request('exactRows', { name: t.name }).catch((e) => (e.cancelled ? null : Promise.reject(e)));
        if (!live) return;
        // Cancelled: the table keeps its estimate.
        setObjects((cur) => ({ ...cur, objects: cur.objects.map((x) => (x.name === t.name ? { ...x, ...(got || {}), counting: false } : x)) }));
      }
    })().catch((e) => live && setError(errorText(e)));
    return () => { live = false; };
  }, [client]);
  const setView = (v, push = false) => {
    setViewState(v);
    setQuery(queryFromView(v), push);
  };
  const list = objects ? objects.objects : [];
  const current = list.find((o) => o.name === view.table) || null;
  const pick = (t) => setView({ ...viewFromQuery(''), table: t, sql: view.sql }, true);
  return html`<section class="card inspect" id="inspect" aria-labelledby="inspect-title">
    <header class="card-head">
      <h2 id="inspect-title">Inspect ${name}</h2>
      <span class="card-sub">read-only · in this browser · works offline${size ? ` · ${formatBytes(size)}` : ''}</span>
    </header>
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
    ${!objects && !error ? html`<p class="muted" id="inspect-loading">Opening ${name} for reading…</p>` : null}
    ${objects ? html`<div class="inspect-layout">
      <${ObjectList} objects=${list} current=${view.tab === 'table' ? view.table : ''} onPick=${pick} />
      <div class="inspect-main">
        <div class="inspect-tabs" role="group" aria-label="Inspect view">
          <button type="button" aria-pressed=${view.tab === 'table'} onClick=${() => setView({ ...view, tab: 'table' }, true)}>Table</button>
          <button type="button" aria-pressed=${view.tab === 'sql'} onClick=${() => setView({ ...view, tab: 'sql' }, true)}>SQL</button>
          <span class="muted">${plural(list.filter((o) => o.type === 'table').length, 'table')}, ${plural(list.filter((o) => o.type === 'view').length, 'view')} · listed in ${objects.ms} ms</span>
        </div>
        ${view.tab === 'sql'
          ? html`<${SqlConsole} client=${client} objects=${list} view=${view} setView=${setView} busy=${busy} />`
          : current
            ? html`<${TableView} key=${current.name} client=${client} obj=${current} view=${view} setView=${setView} busy=${busy} />`
            : html`<p class="muted">${view.table ? `No table or view named ${view.table} in this database.` : 'Pick a table or view on the left, or write a query under SQL.'}</p>`}
        ${busy && view.tab === 'table' ? html`<button type="button" class="danger" id="inspect-cancel-read" onClick=${() => client.cancel()}>Cancel</button>` : null}
      </div>
    </div>` : null}
  </section>`;
}

// The client for a copy in this browser: its File comes from the Pulse
// worker's pool (pulse-worker.mjs fileOf), read on Inspect's own worker.
export function copyClient(store, name) {
  return new InspectClient(() => store.client.fileOf(name));
}
