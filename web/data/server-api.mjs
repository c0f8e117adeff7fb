// The served mode: the Pulse tab talking to `pulse serve` over its JSON API
// (docs/http.md). Reads are open on loopback; writes (answers, memory
// edits) carry the owner's token (data/token.mjs).

import { REST_ROUTES } from './rest-routes.mjs';
import { apiHeaders, storedToken } from './token.mjs';
import { fetchHealth, takeEarly } from './early.mjs';

export { takeTokenFromLocation, storedToken, storeToken } from './token.mjs';

class HttpError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

async function readJson(res, what) {
  let body = null;
  try { body = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) {
    const reason = body && (body.error || body.reason || body.message);
    if (res.status === 401) throw new HttpError(`${what}: the server refused the owner token (401) — use the one pulse serve showed when it made it, or a new one from \`pulse token rotate\``, 401);
    throw new HttpError(`${what}: ${reason || `HTTP ${res.status}`}`, res.status);
  }
  return body;
}

// Each core API method with a REST route in `pulse serve`, from the one list
// the server is built from (rest-routes.mjs); the answer is the method's own
// result.
const ROUTES = new Map(REST_ROUTES.map((r) => [r.method, r]));

// [verb, path, body] for one method call: GET arguments go in the query
// under the route's parameter names, a write's arguments are its body (less
// the `id` the path carries).
export function routeRequest(workflow, method, args = {}) {
  const route = ROUTES.get(method);
  if (!route) throw new Error(`${method}: the server has no route for this method`);
  const a = args || {};
  const path = `/api/workflows/${encodeURIComponent(workflow)}${route.path.replace('{id}', () => encodeURIComponent(a.id))}`;
  if (route.verb === 'GET') {
    const params = {};
    for (const [param, key] of Object.entries(route.query || {})) params[param] = a[key];
    return [route.verb, path + q(params)];
  }
  return [route.verb, path, route.path.includes('{id}') ? withoutId(a) : a];
}

function withoutId(a) {
  const { id, ...rest } = a;
  return rest;
}

function q(params) {
  const parts = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export class ServerApi {
  constructor(base = '') {
    this.base = base;
  }

  token() { return storedToken(); }

  headers(write) { return apiHeaders(write); }

  // {ok, now, ...} from the server, or null when no `pulse serve` is behind
  // the page; the first time, the answer data/early.mjs asked for.
  health() {
    return takeEarly(`${this.base}/api/health`) || fetchHealth(this.base);
  }

  // Whether the stored token is the owner's (GET /api/auth).
  async checkToken() {
    if (!this.token()) return false;
    const res = await fetch(`${this.base}/api/auth`, { headers: this.headers(false), cache: 'no-store' });
    return res.ok;
  }

  // One page of the workflows in name order (GET /api/workflows?limit=):
  // {workflows, next_cursor, total}, each item with the overview's counts.
  async workflowPage({ limit, cursor, q: filter }) {
    const url = `${this.base}/api/workflows${q({ limit, cursor, q: filter })}`;
    // The overview's first page may be on its way already (data/early.mjs).
    const res = (await takeEarly(url)) || await fetch(url, { headers: this.headers(false), cache: 'no-store' });
    const body = await readJson(res, 'GET /api/workflows');
    return { workflows: body.workflows || [], next_cursor: body.next_cursor ?? null, total: body.total ?? 0 };
  }

  // The owner's consistent copy of a workflow's database, as a Blob (GET
  // /api/workflows/<wf>/snapshot: SQLite's backup API on the server; not a
  // core method, so not in rest-routes.mjs). For Inspect (inspect/pane.mjs).
  async snapshot(workflow) {
    const path = `/api/workflows/${encodeURIComponent(workflow)}/snapshot`;
    const res = await fetch(this.base + path, { headers: this.headers(false), cache: 'no-store' });
    if (!res.ok) await readJson(res, `a snapshot of ${workflow}`);
    return res.blob();
  }

  // One core API method for one workflow, through its route (or a turn
  // route's "turn.<kind>": 202 {turn}, the turn runs in the background). The
  // server evaluates at its own clock (`pulse serve --now-file`), so
  // `nowSeconds` is not sent.
  async call(workflow, method, args = {}) {
    const [verb, path, body] = routeRequest(workflow, method, args);
    const write = verb !== 'GET';
    const res = await fetch(this.base + path, {
      method: verb,
      headers: this.headers(write),
      body: write ? JSON.stringify(body || {}) : undefined,
      cache: 'no-store',
    });
    return readJson(res, `${verb} ${path.split('?')[0]}`);
  }
}
