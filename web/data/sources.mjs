// Where an open workflow's documents come from. A source answers core API
// calls for one workflow: from a copy in this browser (the WASM core in the
// worker, data/local-store.mjs) or from the `pulse serve` that served the
// page (data/server-api.mjs). The cards never know which.
import { isoSeconds } from '../format.mjs';

// The outbox is the server's (delivery is I/O), so the WASM core has no
// outbox.list: a copy's stored messages are read from its pulse_outbox
// table, in the method's own shape.
async function copyOutbox(store, name) {
  const has = await store.query(name, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'pulse_outbox'");
  if (!has.length) return { messages: [] };
  const out = await store.query(name, 'SELECT id, kind, title, text, pulse_run_id, created_at, delivered_at, delivery_error, attempts'
    + ' FROM pulse_outbox ORDER BY id DESC LIMIT 200');
  const rows = out.length ? out[0].values : [];
  const cols = ['id', 'kind', 'title', 'text', 'pulse_run_id', 'created_at', 'delivered_at', 'delivery_error', 'attempts'];
  const messages = rows.reverse().map((v) => Object.fromEntries(cols.map((c, i) => [c, v[i]])));
  const hasDeliveries = await store.query(name,
    "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'pulse_outbox_delivery'");
  if (hasDeliveries.length && messages.length) {
    const dcols = ['message_id', 'target', 'state', 'attempts', 'error', 'last_attempt_at', 'next_attempt_at', 'delivered_at'];
    const d = await store.query(name, `SELECT ${dcols.join(', ')} FROM pulse_outbox_delivery WHERE message_id >= ${Number(messages[0].id)} ORDER BY rowid`);
    const byId = new Map(messages.map((m) => [m.id, m]));
    for (const v of d.length ? d[0].values : []) {
      const row = Object.fromEntries(dcols.map((c, i) => [c, v[i]]));
      const m = byId.get(row.message_id);
      if (m) (m.deliveries ||= []).push(row);
    }
  }
  return { messages };
}

export function localSource(store, name) {
  return {
    kind: 'local',
    label: name,
    call: (method, args, now) => (method === 'outbox.list' ? copyOutbox(store, name) : store.call(name, method, args, now)),
  };
}

export function serverSource(api, workflow) {
  return {
    kind: 'server',
    label: workflow,
    call: (method, args, now) => api.call(workflow, method, args, now),
  };
}

// The dashboard's documents: [key, core method, arguments].
export const CARD_METHODS = [
  ['check', 'goal.check', () => ({})],
  ['readings', 'goal.readings', () => ({})],
  ['routes', 'goal.runs_by_route', () => ({})],
  ['decisions', 'decision.list', () => ({ status: 'all' })],
  ['memory', 'memory.show', () => ({})],
  ['messages', 'outbox.list', () => ({})],
  ['focus', 'focus.list', () => ({})],
  ['qa', 'request.list', () => ({ kind: 'qa' })],
  ['failedRuns', 'qa.failed_runs', () => ({})],
  ['module', 'review.state', () => ({})],
  ['requests', 'request.list', () => ({})],
  // The current generation only: older ones are read when the chat asks.
  ['conversation', 'conversation.show', () => ({})],
];

// The agent log can hold hundreds of thousands of rows; the card asks for a
// period (default: the last 7 days), and the core adds every row still
// running, however old (agent_log.show's include_running: stuck rows are
// what an operator looks for).
const PERIOD_SECONDS = { '24h': 86400, '7d': 7 * 86400, '30d': 30 * 86400 };

export function agentLogArgs(f, nowSeconds) {
  const a = {};
  if (f.session) a.session = f.session;
  if (f.run) a.pulse_run_id = f.run;
  if (f.status) a.status = f.status;
  if (f.stuckAfter) a.stuck_after_minutes = Number(f.stuckAfter);
  const period = f.period || '7d';
  if (PERIOD_SECONDS[period]) {
    a.since = isoSeconds(Math.floor(nowSeconds) - PERIOD_SECONDS[period]);
    if (!f.status) a.include_running = true;
  }
  return a;
}

// One page of AGENT_PAGE rows a read: the newest first from the core (an
// index walk however long the log), turned oldest first for the card;
// `cursor` (the page's next_cursor) reads the page before it.
export const AGENT_PAGE = 500;

export async function readAgentLog(source, f, nowSeconds, cursor) {
  const now = nowSeconds !== undefined ? nowSeconds : Date.now() / 1000;
  const args = { ...agentLogArgs(f, now), limit: AGENT_PAGE };
  if (cursor) args.cursor = cursor;
  const doc = await source.call('agent_log.show', args, nowSeconds);
  if (!doc || !Array.isArray(doc.rows)) return doc;
  return { ...doc, rows: [...doc.rows].reverse() };
}
