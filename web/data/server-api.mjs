// The served mode: the Pulse tab talking to `pulse serve` over its JSON API
// (docs/http.md). Reads are open on loopback; writes (answers, memory
// edits) carry the owner's token as `Authorization: Bearer ...`.
//
// The token reaches the page either pasted once by the owner (kept in this
// browser's localStorage) or in the URL fragment the server prints,
// `http://127.0.0.1:8080/#token=...` (a fragment never travels to the server
// or into its logs); the page stores it and removes it from the address bar.

import { REST_ROUTES } from './rest-routes.mjs';

const TOKEN_KEY = 'pulse.ownerToken';

export function takeTokenFromLocation(loc = globalThis.location, storage = globalThis.localStorage) {
  const m = /(?:^#|&)token=([^&]+)/.exec(loc.hash || '');
  if (!m) return false;
  storage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
  const rest = (loc.hash || '').replace(/(^#|&)token=[^&]+/, '$1').replace(/^#&/, '#').replace(/^#$/, '');
  globalThis.history.replaceState(null, '', loc.pathname + loc.search + rest);
  return true;
}

export function storedToken(storage = globalThis.localStorage) {
  return storage.getItem(TOKEN_KEY) || '';
}

export function storeToken(token, storage = globalThis.localStorage) {
  if (token) storage.setItem(TOKEN_KEY, token.trim());
  else storage.removeItem(TOKEN_KEY);
}

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

  headers(write) {
    const h = { Accept: 'application/json' };
    if (write) h['Content-Type'] = 'application/json';
    const t = this.token();
    if (t) h.Authorization = `Bearer ${t}`;
    return h;
  }

  // {ok, now, ...} from the server, or null when no `pulse serve` is behind the page.
  async health() {
    try {
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(), 1500);
      const res = await fetch(`${this.base}/api/health`, { signal: ctl.signal, cache: 'no-store' });
      clearTimeout(timer);
      if (!res.ok) return null;
      const body = await res.json();
      return body && body.ok ? body : null;
    } catch {
      return null;
    }
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
    const res = await fetch(`${this.base}/api/workflows${q({ limit, cursor, q: filter })}`,
      { headers: this.headers(false), cache: 'no-store' });
    const body = await readJson(res, 'GET /api/workflows');
    return { workflows: body.workflows || [], next_cursor: body.next_cursor ?? null, total: body.total ?? 0 };
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
