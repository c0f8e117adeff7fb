// Inspect's engine: one read-only connection over a database File, in
// Inspect's own worker (inspect-worker.mjs). It lists the tables and views,
// reads a table a page at a time by keyset, counts, facets, runs the SQL
// console's one statement and writes exports. Every statement goes
// through the guarded connection (wasm/sqljs-guard.mjs): opened read-only,
// PRAGMA query_only, an authorizer that refuses writes, ATTACH and
// state-changing pragmas, and a progress handler that stops a statement
// when the page cancels it.
import { pageQuery, countQuery, facetQuery, planVerdict, quoteIdent, filterTerms, csvLines, jsonRows, lineColumn,
  charIndexOfByte, PAGE_ROWS } from './sql.mjs';
import { estimateRows } from './btree.mjs';

// Past this many rows a table's count is the b-tree estimate (said so):
// counting reads every leaf page.
export const EXACT_COUNT_LIMIT = 1000000;
// The SQL console shows at most this many rows (and counts the rest).
export const RESULT_ROWS = 10000;
// A text cell longer than this crosses to the page cut, with its length.
const CELL_CHARS = 262144;
const PROGRESS_STEPS = 4000;
// A filter its index holds fewer rows for than this is read through that
// index (accessFor).
export const SELECTIVE_ROWS = 10000;

export class Cancelled extends Error {
  constructor() {
    super('Cancelled');
    this.cancelled = true;
  }
}

// An error for the page: one line, with the position in the SQL when
// SQLite gives one.
function sqlError(db, e, sql) {
  if (e && e.cancelled) return e;
  const message = typeof e === 'string' ? e : (e && e.message) || String(e);
  if (/^interrupted$/.test(message)) return new Cancelled();
  const err = new Error(message.split('\n')[0]);
  if (e && e.refused) err.refused = true;
  if (sql !== undefined && db && !err.refused) {
    const offset = db.errorOffset();
    if (offset >= 0) Object.assign(err, lineColumn(sql, charIndexOfByte(sql, offset)));
  }
  return err;
}

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());
const ms = (t0) => Math.round((now() - t0) * 10) / 10;

function cellOut(v) {
  if (typeof v === 'string' && v.length > CELL_CHARS) return { cut: v.slice(0, 4096), length: v.length };
  return v;
}

// The text after the first statement of `sql`, less comments, semicolons
// and space: what a second statement would be.
function restAfter(sql, first) {
  const at = sql.indexOf(first);
  const rest = at >= 0 ? sql.slice(at + first.length) : '';
  return { at: at + first.length, text: rest.replace(/--[^\n]*|\/\*[\s\S]*?(\*\/|$)/g, '').replace(/[;\s]/g, '') };
}

export class InspectEngine {
  // api: the loaded module (initPulse); openFile(file, options): a
  // read-only {db, handle} (opfs-pool.mjs openFileDatabase bound to api);
  // isCancelled(): whether the page asked to stop the running request.
  // exactLimit: the most rows counted exactly (tests lower it).
  constructor(api, openFile, isCancelled = () => false, { exactLimit = EXACT_COUNT_LIMIT } = {}) {
    this.api = api;
    this.exactLimit = exactLimit;
    this.openFile = openFile;
    this.isCancelled = isCancelled;
    this.db = null;
    this.handle = null;
    this.objects = null;
  }

  open(file, { headerBytes = 0 } = {}) {
    this.close();
    const { db, handle } = this.openFile(file, { headerBytes });
    try {
      db.run('PRAGMA cache_size = -16384');
      db.guardReadOnly();
      db.progressHandler(PROGRESS_STEPS, () => this.isCancelled());
    } catch (e) {
      db.close();
      throw e;
    }
    this.db = db;
    this.handle = handle;
    const head = handle.readAt(0, 100);
    const dv = new DataView(head.buffer, head.byteOffset, 100);
    const pageSize = dv.getUint16(16) === 1 ? 65536 : dv.getUint16(16);
    this.pageSize = pageSize;
    return { pageSize, pages: dv.getUint32(28), bytes: file.size - headerBytes };
  }

  close() {
    if (this.db) this.db.close();
    this.db = null;
    this.handle = null;
    this.objects = null;
  }

  need() {
    if (!this.db) throw new Error('no database is open in Inspect');
    return this.db;
  }

  // Rows of `sql` with `params` as arrays (at most `limit`, then counted on
  // when `count`): {columns, rows, total}.
  rows(sql, params = [], { limit = Infinity, count = false } = {}) {
    const db = this.need();
    let stmt = null;
    try {
      stmt = db.prepare(sql, params.length ? params : undefined);
      const rows = [];
      let total = 0;
      while (stmt.step()) {
        if (total < limit) rows.push(stmt.get().map(cellOut));
        else if (!count) break;
        total++;
      }
      return { columns: stmt.getColumnNames(), rows, total };
    } catch (e) {
      throw sqlError(db, e, sql);
    } finally {
      if (stmt) stmt.free();
    }
  }

  plan(sql, params = []) {
    return this.rows(`EXPLAIN QUERY PLAN ${sql}`, params).rows.map((r) => ({ id: r[0], parent: r[1], detail: String(r[3]) }));
  }

  readPage(pgno) {
    return this.handle.readAt((pgno - 1) * this.pageSize, this.pageSize);
  }

  // The tables and views: name, type, columns (name, type, pk, notnull,
  // indexed: an index starts with it), the row identity the pages seek by,
  // the schema, and the rows from the b-tree (tableRows: exact for a
  // one-page table, else estimated, and `counting` up to EXACT_COUNT_LIMIT,
  // whose exact rows exactRows() gives next). A view's rows are not counted
  // (a view can be any query): count() does it on request.
  listObjects() {
    const t0 = now();
    const listed = this.rows("SELECT type, name, rootpage, sql FROM sqlite_schema WHERE type IN ('table', 'view')"
      + " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").rows;
    const wr = new Map(this.rows('PRAGMA table_list').rows.map((r) => [r[1], !!r[4]]));
    const out = [];
    for (const [type, name, rootpage, sql] of listed) {
      const columns = this.rows(`PRAGMA table_xinfo(${quoteIdent(name)})`).rows
        .filter((r) => !r[6] || r[6] === 2 || r[6] === 3)
        .map((r) => ({ name: r[1], type: r[2] || '', notnull: !!r[3], pk: r[5] }));
      const obj = { type, name, sql: sql || '', columns: columns.map((c) => c.name), columnInfo: columns, ids: [], indexes: [] };
      if (type === 'table') {
        const indexed = new Set();
        for (const [, idx, unique, , partial] of this.rows(`PRAGMA index_list(${quoteIdent(name)})`).rows) {
          const cols = this.rows(`PRAGMA index_info(${quoteIdent(idx)})`).rows.map((r) => r[2]);
          obj.indexes.push({ name: idx, columns: cols, unique: !!unique, partial: !!partial });
          if (!partial && cols[0]) indexed.add(cols[0]);
        }
        const pk = columns.filter((c) => c.pk).sort((a, b) => a.pk - b.pk).map((c) => c.name);
        if (wr.get(name)) {
          obj.ids = pk;
        } else {
          obj.ids = [['rowid', '_rowid_', 'oid'].find((n) => !obj.columns.includes(n)) || 'rowid'];
          // An INTEGER PRIMARY KEY is the rowid itself.
          if (pk.length === 1 && /^INTEGER$/i.test(columns.find((c) => c.name === pk[0]).type)) {
            indexed.add(pk[0]);
            columns.find((c) => c.name === pk[0]).rowid = true;
          }
        }
        if (pk[0]) indexed.add(pk[0]);
        for (const c of obj.columnInfo) c.indexed = indexed.has(c.name);
        Object.assign(obj, this.tableRows(name, rootpage));
      }
      out.push(obj);
    }
    this.objects = new Map(out.map((o) => [o.name, o]));
    return { objects: out, ms: ms(t0) };
  }

  // A table's rows for the list, from its b-tree alone: exact when the
  // tree is one page, else the estimate (estimated: true), and `counting`
  // when the estimate is under EXACT_COUNT_LIMIT, which exactRows() then
  // makes exact. COUNT(*) reads every page of the table's smallest index,
  // and in a workflow database those pages lie among the table's all over
  // the file (a 100 MB file read whole to count 180,000 rows): so the list
  // shows at once and the exact counts follow.
  tableRows(name, rootpage) {
    let est = null;
    try {
      est = estimateRows((n) => this.readPage(n), rootpage);
    } catch {
      // not a b-tree we can read (a virtual table): counted by exactRows()
      return { rows: null, estimated: true, counting: true };
    }
    if (est.exact) return { rows: est.rows, estimated: false };
    return { rows: est.rows, estimated: true, counting: est.rows <= this.exactLimit };
  }

  // The exact rows of a table the list left `counting`: {name, rows,
  // estimated, ms}. A count past EXACT_COUNT_LIMIT stops there (the table
  // keeps its estimate). The page asks for one table at a time, so a page
  // of rows asked for meanwhile waits for one count at most.
  exactRows(name) {
    const t0 = now();
    const o = this.object(name);
    if (o.counting) {
      const n = this.rows(`SELECT count(*) FROM (SELECT 1 FROM ${quoteIdent(o.name)} LIMIT ${this.exactLimit + 1})`).rows[0][0];
      o.counting = false;
      if (n <= this.exactLimit) Object.assign(o, { rows: n, estimated: false });
    }
    return { name: o.name, rows: o.rows, estimated: o.estimated, ms: ms(t0) };
  }

  object(name) {
    if (!this.objects) this.listObjects();
    const o = this.objects.get(name);
    if (!o) throw new Error(`no table or view named ${JSON.stringify(name)} in this database`);
    return o;
  }

  // How a table's filtered page is read (sql.mjs pageQuery's `access`).
  // SQLite picks between the index a filter can use and the walk in the
  // page's order from its statistics, which know a column's average
  // repeats, not its skew: on a million-row agent log `status = 'running'`
  // (200 rows) looks like a third of the table, so it walks the table in
  // rowid order until 100 match (half the file); without statistics it
  // takes the index even for `status = 'completed'` (940,000 rows) and
  // sorts them all. So the engine asks the index itself: it counts the
  // rows each filter's index holds for it, up to SELECTIVE_ROWS. Fewer: the
  // page's keys are found through that index alone (at most that many
  // entries, sorted) and only the page's rows are read. As many: matches
  // are dense enough that the walk in the page's order (the table, or the
  // sort column's index) finds 100 soon. {access, probe: {index, rows} | null}
  accessFor(obj, view) {
    if (obj.type !== 'table' || !view.filters || !view.filters.length) return { access: {}, probe: null };
    let best = null;
    for (const f of view.filters) {
      if (!['eq', 'lt', 'gt', 'null'].includes(f.op)) continue;
      const idx = obj.indexes.find((i) => !i.partial && i.columns[0] === f.col);
      if (!idx) continue;
      const { terms, params } = filterTerms([f], obj.columns);
      const sql = `SELECT count(*) FROM (SELECT 1 FROM ${quoteIdent(obj.name)} INDEXED BY ${quoteIdent(idx.name)}`
        + ` WHERE ${terms[0]} LIMIT ${SELECTIVE_ROWS})`;
      let n;
      try {
        n = this.rows(sql, params).rows[0][0];
      } catch (e) {
        if (e && e.cancelled) throw e;
        continue;
      }
      if (!best || n < best.rows) best = { index: idx.name, rows: n };
    }
    if (best && best.rows < SELECTIVE_ROWS) return { access: { indexedBy: best.index, keysFirst: true }, probe: best };
    if (!view.sort) return { access: { notIndexed: true }, probe: best };
    const byIndex = obj.indexes.find((i) => !i.partial && i.columns[0] === view.sort);
    return { access: byIndex ? { indexedBy: byIndex.name } : {}, probe: best };
  }

  // One page of a table or view (sql.mjs pageQuery): {columns, rows, first,
  // last (the keys of the first and last row, for Previous and Next),
  // hasPrev, hasNext, offset (a view's), ms, scan, sort (what the plan says
  // about the filters and the order)}.
  page(view) {
    const t0 = now();
    const obj = this.object(view.table);
    let { access, probe } = this.accessFor(obj, view);
    let q = pageQuery(obj, view, PAGE_ROWS, access);
    let got;
    try {
      got = this.readParts(q, PAGE_ROWS + 1);
    } catch (e) {
      // An index SQLite cannot use for this statement: its own plan.
      if (e.cancelled || !(access.indexedBy || access.notIndexed)) throw e;
      access = {};
      q = pageQuery(obj, view, PAGE_ROWS);
      got = this.readParts(q, PAGE_ROWS + 1);
    }
    const more = got.rows.length > PAGE_ROWS;
    let rows = got.rows.slice(0, PAGE_ROWS);
    if (q.reversed) rows = rows.reverse();
    const keys = rows.map((r) => r.slice(0, q.keyCols));
    const out = {
      columns: got.columns.slice(q.keyCols),
      rows: rows.map((r) => r.slice(q.keyCols)),
      first: keys.length ? keys[0] : null,
      last: keys.length ? keys[keys.length - 1] : null,
      keyset: obj.ids.length > 0,
    };
    if (!obj.ids.length) {
      out.offset = Math.max(0, Math.floor(Number(view.offset) || 0));
      out.hasPrev = out.offset > 0;
      out.hasNext = more;
    } else if (view.last) {
      Object.assign(out, { hasPrev: more, hasNext: false });
    } else if (view.before) {
      Object.assign(out, { hasPrev: more, hasNext: true });
    } else {
      Object.assign(out, { hasPrev: !!view.after, hasNext: more });
    }
    out.ms = ms(t0);
    if ((view.filters && view.filters.length) || view.sort) {
      const first = q.parts[0];
      const verdict = planVerdict(this.plan(first.sql, [...first.params, PAGE_ROWS + 1]).map((p) => p.detail), obj.name);
      // A walk of the table chosen because a filter's index holds many
      // matches is not a filter no index serves; keys found through an
      // index sort at most SELECTIVE_ROWS of them, not every row.
      out.scan = verdict.scan && !probe;
      out.sort = verdict.sort && !access.keysFirst;
      out.dense = !!(probe && probe.rows >= SELECTIVE_ROWS);
    }
    return out;
  }

  // The rows of a page's parts in turn, each for as many as are still
  // missing of `limit`: {columns, rows}.
  readParts(q, limit) {
    let columns = null;
    const rows = [];
    for (const part of q.parts) {
      const got = this.rows(part.sql, [...part.params, limit - rows.length]);
      columns = columns || got.columns;
      rows.push(...got.rows);
      if (rows.length >= limit) break;
    }
    return { columns, rows };
  }

  count(table, filters) {
    const t0 = now();
    const q = countQuery(this.object(table), filters);
    return { count: this.rows(q.sql, q.params).rows[0][0], ms: ms(t0) };
  }

  facet(table, col, filters, top = 10) {
    const t0 = now();
    const obj = this.object(table);
    const q = facetQuery(obj, col, filters, top);
    const got = this.rows(q.sql, q.params);
    return {
      col,
      values: got.rows.slice(0, top).map(([value, n]) => ({ value, n })),
      more: got.rows.length > top,
      ms: ms(t0),
      ...planVerdict(this.plan(q.sql, q.params).map((p) => p.detail), obj.name),
    };
  }

  // The console's statement (one), read-only: {columns, rows (at most
  // `limit`), total (every row, counted), truncated, ms}; with `explain`,
  // the query plan instead ({plan: [{id, parent, detail}]}).
  query(sql, { limit = RESULT_ROWS, explain = false } = {}) {
    const db = this.need();
    const text = String(sql || '');
    if (!text.replace(/--[^\n]*|\/\*[\s\S]*?(\*\/|$)/g, '').trim()) throw new Error('Nothing to run: write a SELECT first');
    let stmt;
    try {
      stmt = db.prepare(text);
    } catch (e) {
      throw sqlError(db, e === 'Nothing to prepare' ? new Error('Nothing to run: write a SELECT first') : e, text);
    }
    const first = stmt.getSQL();
    stmt.free();
    const rest = restAfter(text, first);
    if (rest.text) {
      const err = new Error('One statement at a time: the console runs the first one only when it is the only one');
      const lead = /^(?:[;\s]+|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*/.exec(text.slice(rest.at))[0].length;
      Object.assign(err, lineColumn(text, rest.at + lead));
      throw err;
    }
    const t0 = now();
    if (explain) {
      const plan = this.plan(first);
      return { plan, ms: ms(t0) };
    }
    const got = this.rows(first, [], { limit, count: true });
    return { columns: got.columns, rows: got.rows, total: got.total, truncated: got.total > got.rows.length, ms: ms(t0) };
  }

  // Every row of a table view (its filters and order, no page) or of the
  // console's statement, as CSV (RFC 4180) or JSON: {blob, rows, ms}.
  exportRows({ table, view, sql, format }) {
    const t0 = now();
    let q;
    if (table) {
      const obj = this.object(table);
      const { terms, params } = filterTerms(view && view.filters, obj.columns);
      const sort = view && view.sort && obj.columns.includes(view.sort) ? [quoteIdent(view.sort)] : [];
      const dir = view && view.dir === 'desc' ? 'DESC' : 'ASC';
      const order = [...sort, ...obj.ids.map(quoteIdent)].map((c) => `${c} ${dir}`).join(', ');
      q = { sql: `SELECT * FROM ${quoteIdent(obj.name)}${terms.length ? ` WHERE ${terms.join(' AND ')}` : ''}${order ? ` ORDER BY ${order}` : ''}`, params };
    } else {
      this.query(sql, { explain: true }); // one statement, read-only, or the reason
      q = { sql, params: [] };
    }
    const db = this.need();
    let stmt = null;
    const parts = [];
    let n = 0;
    try {
      stmt = db.prepare(q.sql, q.params.length ? q.params : undefined);
      const columns = stmt.getColumnNames();
      let batch = [];
      const flush = () => {
        if (!batch.length) return;
        if (format === 'json') {
          const objs = jsonRows(columns, batch).map((o) => JSON.stringify(o));
          parts.push(`${n > batch.length ? ',\n' : ''}${objs.join(',\n')}`);
        } else {
          parts.push(csvLines(null, batch));
        }
        batch = [];
      };
      parts.push(format === 'json' ? '[\n' : csvLines(columns, []));
      while (stmt.step()) {
        batch.push(stmt.get());
        n++;
        if (batch.length === 1000) flush();
      }
      flush();
      if (format === 'json') parts.push('\n]\n');
    } catch (e) {
      throw sqlError(db, e, q.sql);
    } finally {
      if (stmt) stmt.free();
    }
    const type = format === 'json' ? 'application/json' : 'text/csv; charset=utf-8';
    return { blob: new Blob(parts, { type }), rows: n, ms: ms(t0) };
  }
}
