// The overview's rows: the workflows (server) or copies (this browser) with
// their goal status, key number, worst alarm, what else needs attention (the
// core's attention items and rank), pending decisions and the last recorded
// check, one page at a time in name order.
//
// A page is `{rows, next, total}`: `next` is the cursor of the page after it
// (null on the last). On the server a page is one request,
// `GET /api/workflows?limit=&cursor=&q=`, whose items already carry every
// count the row shows; in this browser the copies' list is paged the same
// way and only the page's copies are computed by the core in the worker.
import { worstFirst } from './route.mjs';

// Enough rows to fill a tall screen; each is computed on the server (its goal
// status, from memory while nothing changed), so a page stays quick to draw.
export const OVERVIEW_PAGE = 25;

const errorText = (err) => err.message || String(err);

// The attention items a row shows: the worst one not snoozed that is not a
// goal alarm (those are the row's alarm line), and how many more are open.
export function attentionOf(items) {
  const open = (Array.isArray(items) ? items : []).filter((i) => !i.snoozed);
  const other = open.filter((i) => i.kind !== 'goal_alarm');
  return { open: open.length, item: other[0] || null, more: Math.max(0, other.length - 1) };
}

function rowFrom(name, kind, check, decisions, last, workflow) {
  const m = (check && check.metric) || {};
  const alarms = (check && Array.isArray(check.alarms)) ? check.alarms : [];
  const pending = decisions && Array.isArray(decisions.decisions)
    ? decisions.decisions.filter((d) => d.status === 'pending').length : null;
  return {
    name,
    kind,
    workflow: workflow || (check && check.workflow) || '',
    status: (check && check.status) || 'error',
    metric: m.name || '',
    value: m.value,
    target: m.target,
    worstAlarm: alarms.length ? alarms[0].message : '',
    alarms: alarms.length,
    pending,
    lastCheck: last && last.checked_at ? last.checked_at : null,
    rank: check && typeof check.rank === 'number' ? check.rank : undefined,
    attention: attentionOf(check && check.attention),
    error: '',
  };
}

// One item of a page of GET /api/workflows as the overview's row.
export function rowFromServerItem(w) {
  if (w.error) return { name: w.name, kind: 'server', status: 'error', error: w.error, pending: null };
  const m = w.metric || {};
  return {
    name: w.name,
    kind: 'server',
    workflow: w.name,
    status: w.status || 'error',
    metric: m.name || '',
    value: m.value,
    target: m.target,
    worstAlarm: w.worst_alarm || '',
    alarms: w.alarms || 0,
    pending: typeof w.pending_decisions === 'number' ? w.pending_decisions : null,
    lastCheck: w.last_check && w.last_check.checked_at ? w.last_check.checked_at : null,
    rank: typeof w.rank === 'number' ? w.rank : undefined,
    attention: attentionOf(w.attention),
    error: '',
  };
}

// One call that may be missing from an older core: null instead of a failure.
const optional = (p) => p.catch(() => null);

async function localRows(store, copies, nowSeconds) {
  const rows = [];
  for (const c of copies) {
    try {
      const check = await store.call(c.name, 'goal.check', {}, nowSeconds);
      const decisions = await optional(store.call(c.name, 'decision.list', { status: 'pending' }, nowSeconds));
      const last = await optional(store.call(c.name, 'goal.last_check', {}, nowSeconds));
      rows.push(rowFrom(c.name, 'local', check, decisions, last, c.workflow));
    } catch (err) {
      rows.push({ name: c.name, kind: 'local', status: 'error', error: errorText(err), pending: null });
    }
  }
  return rows;
}

const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

// A page of this browser's copies: those after `cursor` whose name contains
// `q`, in name order (the server's order), computed one by one.
export async function loadLocalPage(store, copies, nowSeconds, { cursor = '', q = '', limit = OVERVIEW_PAGE } = {}) {
  const needle = q.trim().toLowerCase();
  const matching = copies.filter((c) => !needle || c.name.toLowerCase().includes(needle))
    .sort((a, b) => byName(a.name, b.name));
  const after = matching.filter((c) => !cursor || c.name > cursor);
  const page = after.slice(0, limit);
  const next = after.length > limit ? page[page.length - 1].name : null;
  return { rows: await localRows(store, page, nowSeconds), next, total: matching.length };
}

// A page of the server's workflows: one request.
export async function loadServerPage(api, { cursor = '', q = '', limit = OVERVIEW_PAGE } = {}) {
  const body = await api.workflowPage({ limit, cursor, q: q.trim() });
  return { rows: body.workflows.map(rowFromServerItem), next: body.next_cursor, total: body.total };
}

// What the overview draws: worst first when every row is in (one page held
// the whole list, as a workspace of a few workflows always does), else in
// name order, the order pages arrive in.
export function shownOrder(rows, complete) {
  return complete ? worstFirst(rows) : rows;
}
