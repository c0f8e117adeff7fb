// The served mode: the Pulse tab talking to `pulse serve` over its JSON API
// (CONTRACT.md "HTTP"). Reads are open on loopback; writes (answers, memory
// edits) carry the owner's token as `Authorization: Bearer ...`.
//
// The token reaches the page either pasted once by the owner (kept in this
// browser's localStorage) or in the URL fragment the server prints,
// `http://127.0.0.1:8080/#token=...` (a fragment never travels to the server
// or into its logs); the page stores it and removes it from the address bar.

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
    if (res.status === 401) throw new HttpError(`${what}: the server refused the owner token (401) — paste the token from <workspace>/.pulse/owner-token`, 401);
    throw new HttpError(`${what}: ${reason || `HTTP ${res.status}`}`, res.status);
  }
  return body;
}

// Read methods with their own contract routes; every other method goes
// through the generic method route, POST /api/workflows/<wf>/call/<method>,
// with the arguments as the JSON body (the same core API table).
const READ_ROUTES = {
  'goal.check': (wf, args, now) => `/api/workflows/${wf}/goal-status${q({ now })}`,
  'agent_log.show': (wf, args, now) => `/api/workflows/${wf}/agent-log${q({
    session: args.session, run_id: args.pulse_run_id, status: args.status, since: args.since,
    stuck_after_minutes: args.stuck_after_minutes, now,
  })}`,
  'decision.list': (wf, args, now) => `/api/workflows/${wf}/decisions${q({ status: args.status, now })}`,
};

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

  async health() {
    try {
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(), 1500);
      const res = await fetch(`${this.base}/api/health`, { signal: ctl.signal, cache: 'no-store' });
      clearTimeout(timer);
      if (!res.ok) return false;
      const body = await res.json();
      return !!(body && body.ok);
    } catch {
      return false;
    }
  }

  async workflows() {
    const res = await fetch(`${this.base}/api/workflows`, { headers: this.headers(false), cache: 'no-store' });
    const body = await readJson(res, 'GET /api/workflows');
    return Array.isArray(body) ? body : (body.workflows || []);
  }

  // One core API method for one workflow; `nowSeconds` fixes the clock when set.
  async call(workflow, method, args = {}, nowSeconds) {
    const wf = encodeURIComponent(workflow);
    const now = nowSeconds === undefined ? undefined : new Date(nowSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const route = READ_ROUTES[method];
    if (route) {
      const url = this.base + route(wf, args, now);
      const res = await fetch(url, { headers: this.headers(false), cache: 'no-store' });
      return readJson(res, `GET ${url.split('?')[0]}`);
    }
    const url = `${this.base}/api/workflows/${wf}/call/${encodeURIComponent(method)}${q({ now })}`;
    const res = await fetch(url, { method: 'POST', headers: this.headers(true), body: JSON.stringify(args) });
    const body = await readJson(res, `${method}`);
    return body && Object.prototype.hasOwnProperty.call(body, 'result') ? body.result : body;
  }
}
