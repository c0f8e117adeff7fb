// Inspect's SQL, built from what the person chose (a table, a sort, filters,
// a cursor), never from text pasted into it: identifiers are quoted, values
// are bound. Pure functions, shared by the worker (web/inspect/engine.mjs)
// and the tests.
//
// Pages are read by KEYSET, not OFFSET: a page is "the next 100 rows after
// this key" in the view's order, where the key is the sort column (when one
// is chosen) followed by the row's identity (rowid, or the primary key of a
// WITHOUT ROWID table). SQLite seeks straight to the key through the
// b-tree (or the sort column's index), so page 10,000 costs what page 1
// does. Views have no row identity: they are paged by OFFSET, and say so.

export const PAGE_ROWS = 100;

// The filters a column offers: [op, label, takes a value].
export const FILTER_OPS = [
  ['eq', '=', true],
  ['contains', 'contains', true],
  ['lt', '<', true],
  ['gt', '>', true],
  ['null', 'is null', false],
  ['notnull', 'is not null', false],
];
const OPS = new Map(FILTER_OPS.map(([op, label, value]) => [op, { label, value }]));

export function quoteIdent(name) {
  return `"${String(name).replace(/"/g, '""')}"`;
}

// A LIKE pattern matching `text` anywhere, with LIKE's own wildcards escaped.
export function containsPattern(text) {
  return `%${String(text).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// The WHERE terms of `filters` ([{col, op, value}]) over `columns` (names):
// {terms: [sql], params: [values]}. A filter on a column the object does
// not have, or with an unknown operator, is an Error naming it.
export function filterTerms(filters, columns) {
  const terms = [];
  const params = [];
  for (const f of filters || []) {
    if (!columns.includes(f.col)) throw new Error(`filter: no column ${JSON.stringify(f.col)}`);
    const op = OPS.get(f.op);
    if (!op) throw new Error(`filter on ${f.col}: unknown operator ${JSON.stringify(f.op)}`);
    const c = quoteIdent(f.col);
    if (f.op === 'eq') terms.push(`${c} = ?`);
    else if (f.op === 'contains') terms.push(`${c} LIKE ? ESCAPE '\\'`);
    else if (f.op === 'lt') terms.push(`${c} < ?`);
    else if (f.op === 'gt') terms.push(`${c} > ?`);
    else if (f.op === 'null') terms.push(`${c} IS NULL`);
    else terms.push(`${c} IS NOT NULL`);
    if (op.value) params.push(f.op === 'contains' ? containsPattern(f.value ?? '') : String(f.value ?? ''));
  }
  return { terms, params };
}

function rowValue(cols) {
  return cols.length === 1 ? cols[0] : `(${cols.join(', ')})`;
}

function placeholders(n) {
  return n === 1 ? '?' : `(${Array(n).fill('?').join(', ')})`;
}

// The keyset conditions for the rows after `cursor` (the key of the last
// row shown) walking in `dir` ('asc' | 'desc'): a list of terms, each read
// in turn until the page is full. `sort`: the quoted sort column or null;
// `ids`: the quoted identity columns (never NULL); `nullable`: whether the
// sort column can hold NULL. SQLite puts NULLs first going up and last
// going down, and a row-value comparison with NULL is never true, so the
// NULLs are a term of their own, never an OR beside the seek: with an OR
// SQLite cannot start the index at the key and walks it from the top (page
// 10,000 of a million rows sorted by a column read every row before it).
export function keysetTerms(sort, ids, cursor, dir, nullable = true) {
  const cmp = dir === 'desc' ? '<' : '>';
  if (!sort) return [{ sql: `${rowValue(ids)} ${cmp} ${placeholders(ids.length)}`, params: cursor.slice(0) }];
  const [sv, ...idv] = cursor;
  if (sv === null || sv === undefined) {
    const same = { sql: `${sort} IS NULL AND ${rowValue(ids)} ${cmp} ${placeholders(ids.length)}`, params: idv };
    return dir === 'desc' ? [same] : [same, { sql: `${sort} IS NOT NULL`, params: [] }];
  }
  const past = { sql: `${rowValue([sort, ...ids])} ${cmp} ${placeholders(ids.length + 1)}`, params: cursor.slice(0) };
  return dir === 'desc' && nullable ? [past, { sql: `${sort} IS NULL`, params: [] }] : [past];
}

// The SELECT for one page of `obj` ({name, ids: [identity column names] or
// [] for a view, columns, columnInfo}). view: {sort, dir, filters, after,
// before, offset}. `after` / `before`: the key of the row the page starts
// after (Next) or ends before (Previous); `last`: the final page.
// `access` (tables only; engine.mjs accessFor): {indexedBy: an index to
// read, notIndexed: read the table itself, keysFirst: find the page's keys
// through the index alone, then read those rows}. Returns {parts: [{sql,
// params}] (run in turn, each for the rows still missing, LIMIT ?), reversed
// (rows come backwards: show them reversed), keyCols (how many leading
// columns are the key, selected before the row's own)}.
export function pageQuery(obj, view, limit = PAGE_ROWS, access = {}) {
  const dir = view.dir === 'desc' ? 'desc' : 'asc';
  if (view.sort && !obj.columns.includes(view.sort)) throw new Error(`sort: no column ${JSON.stringify(view.sort)}`);
  const { terms, params } = filterTerms(view.filters, obj.columns);
  const table = quoteIdent(obj.name);
  const sort = view.sort ? quoteIdent(view.sort) : null;
  if (!obj.ids.length) {
    // A view: OFFSET paging (no row identity to seek to).
    const order = sort ? ` ORDER BY ${sort} ${dir.toUpperCase()}` : '';
    const where = terms.length ? ` WHERE ${terms.join(' AND ')}` : '';
    const offset = Math.max(0, Math.floor(Number(view.offset) || 0));
    return { parts: [{ sql: `SELECT * FROM ${table}${where}${order} LIMIT ? OFFSET ${offset}`, params }], reversed: false, keyCols: 0 };
  }
  const ids = obj.ids.map(quoteIdent);
  const keyCols = (sort ? [sort] : []).concat(ids);
  // Walking backwards (Previous, or the last page) is walking the other way.
  const reversed = !!(view.before || view.last);
  const walk = reversed ? (dir === 'asc' ? 'desc' : 'asc') : dir;
  const cursor = view.before || view.after;
  const info = (obj.columnInfo || []).find((c) => c.name === view.sort);
  const nullable = !(info && (info.notnull || info.rowid));
  let seeks = [{ sql: '', params: [] }];
  if (cursor) {
    if (!Array.isArray(cursor) || cursor.length !== keyCols.length) throw new Error('page: the cursor does not match the view\'s key');
    seeks = keysetTerms(sort, ids, cursor, walk, nullable);
  }
  const order = keyCols.map((c) => `${c} ${walk.toUpperCase()}`).join(', ');
  // The key first (under names no column can have), then the row itself.
  const keySelect = keyCols.map((c, i) => `${c} AS "__key${i}"`).join(', ');
  const from = `${table}${access.indexedBy ? ` INDEXED BY ${quoteIdent(access.indexedBy)}` : access.notIndexed ? ' NOT INDEXED' : ''}`;
  const parts = seeks.map((k) => {
    const where = [...terms, ...(k.sql ? [k.sql] : [])];
    const whereSql = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    const p = [...params, ...k.params];
    if (access.keysFirst) {
      const inner = `SELECT ${rowValue(ids).replace(/^\(|\)$/g, '')} FROM ${from}${whereSql} ORDER BY ${order} LIMIT ?`;
      return { sql: `SELECT ${keySelect}, * FROM ${table} WHERE ${rowValue(ids)} IN (${inner}) ORDER BY ${order}`, params: p };
    }
    return { sql: `SELECT ${keySelect}, * FROM ${from}${whereSql} ORDER BY ${order} LIMIT ?`, params: p };
  });
  return { parts, reversed, keyCols: keyCols.length };
}

// COUNT(*) of the rows the view's filters keep.
export function countQuery(obj, filters) {
  const { terms, params } = filterTerms(filters, obj.columns);
  return { sql: `SELECT count(*) FROM ${quoteIdent(obj.name)}${terms.length ? ` WHERE ${terms.join(' AND ')}` : ''}`, params };
}

// The top values of `col` (with their counts) among the rows the filters keep.
export function facetQuery(obj, col, filters, top = 10) {
  if (!obj.columns.includes(col)) throw new Error(`facet: no column ${JSON.stringify(col)}`);
  const { terms, params } = filterTerms(filters, obj.columns);
  const c = quoteIdent(col);
  const where = terms.length ? ` WHERE ${terms.join(' AND ')}` : '';
  return {
    sql: `SELECT ${c} AS value, count(*) AS n FROM ${quoteIdent(obj.name)}${where} GROUP BY ${c} ORDER BY n DESC, value LIMIT ${top + 1}`,
    params,
  };
}

// What EXPLAIN QUERY PLAN's lines say about reading `table`: 'scan' when it
// reads every row (no index serves the filters), 'sort' when the rows are
// sorted after reading (no index gives the order), else 'index'.
export function planVerdict(details, table) {
  const scan = details.some((d) => new RegExp(`^SCAN ${escapeRe(table)}(?: |$)`).test(d) && !/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/.test(d));
  const sort = details.some((d) => /USE TEMP B-TREE FOR (?:RIGHT PART OF )?ORDER BY/.test(d));
  return { scan, sort };
}

function escapeRe(s) {
  return String(s).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---- Results as files ----

function cellText(v) {
  if (v === null || v === undefined) return '';
  if (v instanceof Uint8Array) return hex(v);
  return String(v);
}

export function hex(bytes) {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

// One RFC 4180 field: quoted when it holds a comma, a quote, CR or LF (or
// starts or ends with a space, which some readers trim), quotes doubled.
export function csvField(v) {
  const s = cellText(v);
  return /[",\r\n]|^ | $/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

// RFC 4180 lines (CRLF after every record, the header first). NULL is an
// empty field; a blob is its bytes in hex. A record of one empty field is
// written "" (an empty line would read back as no field at all).
export function csvLines(columns, rows) {
  const line = (r) => (r.length === 1 && cellText(r[0]) === '' ? '""' : r.map(csvField).join(','));
  let out = '';
  for (const r of rows) out += `${line(r)}\r\n`;
  return columns ? `${line(columns)}\r\n${out}` : out;
}

// JSON: one object per row, by column name (a blob is its bytes in hex; a
// repeated column name gets ":2", ":3").
export function jsonRows(columns, rows) {
  const names = uniqueNames(columns);
  return rows.map((r) => {
    const o = {};
    names.forEach((n, i) => { o[n] = r[i] instanceof Uint8Array ? hex(r[i]) : r[i]; });
    return o;
  });
}

function uniqueNames(columns) {
  const seen = new Map();
  return columns.map((c) => {
    const k = (seen.get(c) || 0) + 1;
    seen.set(c, k);
    return k === 1 ? c : `${c}:${k}`;
  });
}

// A text cell that holds a JSON object or array (the agent log's results,
// decision options): the parsed value, else undefined. Bounded: a cell past
// 256 KB, or nested deeper than JSON_DEPTH, is shown as text (the open view
// writes the value out again, and a cell of a database from anywhere can be
// a hundred thousand brackets deep).
export const JSON_DEPTH = 64;

export function jsonCell(v) {
  if (typeof v !== 'string' || v.length < 2 || v.length > 262144) return undefined;
  const s = v.trimStart();
  if (s[0] !== '{' && s[0] !== '[') return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '[') {
      if (++depth > JSON_DEPTH) return undefined;
    } else if (c === '}' || c === ']') {
      depth--;
    }
  }
  try {
    const parsed = JSON.parse(v);
    return parsed && typeof parsed === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

// '{…} 3 keys' / '[…] 2 items': what a folded JSON cell shows.
export function jsonSummary(value) {
  if (Array.isArray(value)) return `[…] ${value.length} ${value.length === 1 ? 'item' : 'items'}`;
  const n = Object.keys(value).length;
  return `{…} ${n} ${n === 1 ? 'key' : 'keys'}`;
}

// Line and column (1-based) of character `index` in `text`.
export function lineColumn(text, index) {
  const before = String(text).slice(0, Math.max(0, index));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

// The character index of UTF-8 byte `offset` in `text`.
export function charIndexOfByte(text, offset) {
  let bytes = 0;
  let i = 0;
  for (const ch of String(text)) {
    if (bytes >= offset) break;
    const cp = ch.codePointAt(0);
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += ch.length;
  }
  return i;
}

// ---- The view in the address ----
// '#/copy/substack/inspect?t=background_agent_log&s=started_at&d=desc&f=status~eq~running&q=...'
// Keys: t table, s sort column, d 'desc', f filters (col~op~value, repeated),
// a / b the page's cursor (after / before, JSON), o the OFFSET of a view's
// page, l '1' for the last page, x the facet column, q the SQL, v 'sql' when
// the SQL console is the view shown.

// Percent-encoding that also escapes "~" (the filters' separator).
const enc = (s) => encodeURIComponent(String(s)).replace(/~/g, '%7E');
const dec = (s) => {
  try { return decodeURIComponent(s); } catch { return s; }
};

export function viewFromQuery(query) {
  const p = new Map();
  for (const part of String(query || '').replace(/^\?/, '').split('&')) {
    if (!part) continue;
    const at = part.indexOf('=');
    const k = dec(at < 0 ? part : part.slice(0, at));
    const v = at < 0 ? '' : part.slice(at + 1);
    if (!p.has(k)) p.set(k, []);
    p.get(k).push(v);
  }
  const get = (k) => (p.has(k) ? dec(p.get(k)[0]) : null);
  const filters = (p.get('f') || []).map((f) => {
    const [col, op, ...rest] = f.split('~');
    return { col: dec(col || ''), op: op || 'eq', value: dec(rest.join('~')) };
  }).filter((f) => f.col && OPS.has(f.op));
  const json = (k) => {
    if (get(k) === null) return null;
    try {
      const v = JSON.parse(get(k));
      return Array.isArray(v) ? v : null;
    } catch {
      return null;
    }
  };
  return {
    table: get('t') || '',
    sort: get('s') || '',
    dir: get('d') === 'desc' ? 'desc' : 'asc',
    filters,
    after: json('a'),
    before: json('b'),
    offset: Number(get('o')) || 0,
    last: get('l') === '1',
    facet: get('x') || '',
    sql: get('q') || '',
    tab: get('v') === 'sql' ? 'sql' : 'table',
  };
}

export function queryFromView(v) {
  const out = [];
  const put = (k, value) => out.push(`${k}=${enc(value)}`);
  if (v.table) put('t', v.table);
  if (v.sort) put('s', v.sort);
  if (v.sort && v.dir === 'desc') put('d', 'desc');
  for (const f of v.filters || []) out.push(`f=${enc(f.col)}~${f.op}~${enc(OPS.get(f.op)?.value ? f.value ?? '' : '')}`);
  if (v.after) put('a', JSON.stringify(v.after));
  if (v.before) put('b', JSON.stringify(v.before));
  if (v.offset) put('o', String(v.offset));
  if (v.last) put('l', '1');
  if (v.facet) put('x', v.facet);
  if (v.sql) put('q', v.sql);
  if (v.tab === 'sql') put('v', 'sql');
  return out.join('&');
}
