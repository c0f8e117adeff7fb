// A Slack stand-in on loopback for the server suites: the two Web API
// methods Pulse calls, answering as Slack does. It checks what a real Slack
// would — the bot token (not_authed / invalid_auth), the content type
// (chat.postMessage takes JSON or a form; users.info, a read method, takes
// a form or the query string, never JSON), the required fields (channel and
// text; user) and that the channel exists (channel_not_found) — records
// every call, and can be told to answer `ratelimited` (HTTP 429 with
// Retry-After) to the next calls. Also signs Events API requests the way
// Slack does (v0 HMAC-SHA256 of "v0:<timestamp>:<body>").
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';

export const SIGNING_SECRET = 'e3c1a5a2b6e94f0d9b7a1c2d3e4f5a6b';
export const BOT_TOKEN = 'xoxb-1111-2222-standin';

function parseBody(req, raw) {
  const type = (req.headers['content-type'] || '').split(';')[0].trim();
  if (type === 'application/json') {
    try { return { type, fields: JSON.parse(raw) }; } catch { return { type, fields: null }; }
  }
  if (type === 'application/x-www-form-urlencoded') return { type, fields: Object.fromEntries(new URLSearchParams(raw)) };
  return { type, fields: {} };
}

export async function startSlackStandIn({ channels = [], users = {} } = {}) {
  const state = {
    calls: [],            // {method, fields, type, auth, answer}
    rateLimitNext: 0,     // answer this many calls with ratelimited
    rateLimitChannel: '', // only calls posting to this channel (Slack limits chat.postMessage per channel)
    retryAfter: 30,
    channels: new Set(channels),
    users,                // id -> {name, email}
    token: BOT_TOKEN,
    nextTs: 1700000000,
  };
  const answer = (res, status, doc, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(doc));
    return doc;
  };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      const method = url.pathname.replace(/^\/api\//, '');
      const { type, fields } = parseBody(req, raw);
      const auth = req.headers.authorization || '';
      const call = { method, type, fields, auth, at: Date.now() };
      state.calls.push(call);
      const reply = (status, doc, headers) => { call.answer = answer(res, status, doc, headers); };
      if (req.method !== 'POST' && !(req.method === 'GET' && method === 'users.info')) return reply(405, { ok: false, error: 'method_not_supported_for_channel_type' });
      if (!auth) return reply(200, { ok: false, error: 'not_authed' });
      if (auth !== `Bearer ${state.token}`) return reply(200, { ok: false, error: 'invalid_auth' });
      const limited = !state.rateLimitChannel || (fields && fields.channel === state.rateLimitChannel);
      if (state.rateLimitNext > 0 && limited) {
        state.rateLimitNext -= 1;
        return reply(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(state.retryAfter) });
      }
      if (method === 'chat.postMessage') {
        if (fields === null) return reply(200, { ok: false, error: 'invalid_json' });
        if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') return reply(200, { ok: false, error: 'invalid_form_data' });
        if (!fields.channel) return reply(200, { ok: false, error: 'channel_not_found' });
        if (!fields.text && !fields.blocks) return reply(200, { ok: false, error: 'no_text' });
        const known = state.channels.has(fields.channel) || /^D/.test(fields.channel);
        if (!known) return reply(200, { ok: false, error: 'channel_not_found' });
        const ts = `${state.nextTs++}.000100`;
        return reply(200, { ok: true, channel: fields.channel, ts, message: { text: fields.text, ts, thread_ts: fields.thread_ts } });
      }
      if (method === 'users.info') {
        if (type === 'application/json') return reply(200, { ok: false, error: 'invalid_arguments' });
        const id = fields.user || url.searchParams.get('user');
        if (!id) return reply(200, { ok: false, error: 'invalid_arguments' });
        const u = state.users[id];
        if (!u) return reply(200, { ok: false, error: 'user_not_found' });
        return reply(200, { ok: true, user: { id, name: u.name, profile: u.email ? { email: u.email, real_name: u.name } : { real_name: u.name } } });
      }
      return reply(200, { ok: false, error: 'unknown_method' });
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}/api`;
  return {
    base,
    state,
    posts: () => state.calls.filter((c) => c.method === 'chat.postMessage' && c.answer && c.answer.ok),
    close: () => new Promise((r) => server.close(r)),
  };
}

// The headers Slack sends with a request body: its v0 signature.
export function slackHeaders(body, { secret = SIGNING_SECRET, timestamp = Math.floor(Date.now() / 1000), retry } = {}) {
  const sig = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  const h = { 'content-type': 'application/json', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': sig };
  if (retry !== undefined) { h['x-slack-retry-num'] = String(retry); h['x-slack-retry-reason'] = 'http_timeout'; }
  return h;
}

let eventCounter = 0;
// An event_callback envelope for a person's message.
export function messageEvent({ channel = 'C1', user = 'U_ANA', text, ts, thread_ts, channel_type = 'channel', team = 'T1' }) {
  eventCounter += 1;
  const event = { type: 'message', channel, channel_type, user, text, ts: ts || `${1800000000 + eventCounter}.000200`, team };
  if (thread_ts) event.thread_ts = thread_ts;
  return { token: 'deprecated', team_id: team, api_app_id: 'A1', type: 'event_callback', event_id: `Ev${Date.now()}${eventCounter}`, event_time: Math.floor(Date.now() / 1000), event };
}
