// The REST routes and the Pulse tab's requests come from one list
// (web/data/rest-routes.mjs). The server is built from it and the tab's
// routeRequest() reads it; this checks that every listed route answers on the
// real server with its method's own result, that the server has no other
// hand-written per-method route, and that the tab builds no workflow URL of
// its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REST_ROUTES } from '../../web/data/rest-routes.mjs';
import { routeRequest } from '../../web/data/server-api.mjs';
import { request, startServer, makeTempDir, buildSubstack, setNow } from './helpers.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;

// Arguments that make each read take its parameters (so the query mapping is
// exercised), and writes that reach their method.
const ARGS = {
  'agent_log.show': { session: 's-1', pulse_run_id: 'pr-1', status: 'running', since: '2026-10-01T00:00:00Z', stuck_after_minutes: 30, include_running: true },
  'decision.list': { status: 'pending' },
  'goal.runs_by_route': { since: '2026-09-01T00:00:00Z' },
  'autonomy.decisions': { session: 's-1' },
  'decision.answer': { id: 999, accept: true },
  'decision.outcome': { id: 999, result: 'r' },
};

test('every listed route answers on the real server with its method\'s result', async () => {
  const tmp = makeTempDir('pulse-rest-routes-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const s = await startServer(ws, ['--no-tick', '--now-file', nowFile]);
  try {
    assert.ok(REST_ROUTES.length >= 10);
    assert.equal(new Set(REST_ROUTES.map((r) => `${r.verb} ${r.path}`)).size, REST_ROUTES.length, 'a route is listed twice');
    for (const r of REST_ROUTES) {
      const args = ARGS[r.method] || (r.method === 'memory.save' ? { text: '', base_hash: 'stale' } : {});
      const [verb, path, body] = routeRequest('substack', r.method, args);
      const got = await request(`${s.url}${path.slice(1)}`, { method: verb, body, token: verb === 'GET' ? undefined : s.ownerToken });
      assert.doesNotMatch(JSON.stringify(got.body), /no such (API )?route/, `${verb} ${path}: the server has no such route`);
      if (r.turn) {
        // A turn route starts its turn (202); with an empty body a message
        // or an ask is refused by name (400).
        if (r.turn === 'goal_check') {
          assert.equal(got.status, 202, `${verb} ${path}: ${JSON.stringify(got.body)}`);
          assert.equal(got.body.turn.kind, r.turn);
        } else {
          assert.equal(got.status, 400, `${verb} ${path}: ${got.status} ${JSON.stringify(got.body)}`);
          assert.match(got.body.error, r.turn === 'ask' ? /^ask: "caller" is required/ : /^request body: "text" \(the message to Pulse\) is required/,
            `${verb} ${path}`);
        }
        continue;
      }
      if (r.method === 'conversation.open') {
        // Substack has a goal: its conversation is opened (generation 1, the charter first).
        assert.equal(got.status, 200, `${verb} ${path}: ${JSON.stringify(got.body)}`);
        assert.equal(got.body.exists, true);
        assert.equal(got.body.turns[0].turn, 'charter');
        continue;
      }
      if (verb !== 'GET') {
        // Writes reach their method: these arguments are refused by it, not by routing.
        assert.ok([404, 409, 400].includes(got.status), `${verb} ${path}: ${got.status} ${JSON.stringify(got.body)}`);
        continue;
      }
      assert.equal(got.status, 200, `${verb} ${path}: ${JSON.stringify(got.body)}`);
      const viaCall = await request(`${s.url}api/workflows/substack/call/${r.method}`, { method: 'POST', body: args });
      assert.equal(viaCall.status, 200, `${r.method}: ${JSON.stringify(viaCall.body)}`);
      assert.deepEqual(got.body, viaCall.body.result, `${verb} ${path} is not ${r.method}`);
    }
    const unlisted = await request(`${s.url}api/workflows/substack/not-listed`);
    assert.equal(unlisted.status, 404);
    assert.throws(() => routeRequest('substack', 'goal.record_run', {}), /no route for this method/);
  } finally {
    await s.stop();
  }
});

test('no per-method route is written by hand on either side', () => {
  // The server: the workflow routes outside the list are the generic call,
  // the Workflow Review and the snapshot (no core method: it streams a copy
  // of the database file).
  const shim = join(ROOT, 'server-shim');
  const handWritten = [];
  for (const f of readdirSync(shim, { recursive: true }).filter((n) => n.endsWith('.cc'))) {
    for (const m of readFileSync(join(shim, f), 'utf8').matchAll(/kWorkflow \+ "([^"]*)"/g)) handWritten.push(m[1]);
  }
  assert.deepEqual(handWritten.sort(), ['/call/([^/]+)', '/pre-run', '/snapshot'],
    'a workflow route in server-shim/ that is not in web/data/rest-routes.mjs');
  // The tab: only server-api.mjs builds workflow URLs.
  const web = join(ROOT, 'web');
  const offenders = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      // web/dist/ (the bundle) and web/vendor/ are generated from these sources and node_modules.
      if (e.isDirectory()) { if (p !== join(web, 'dist') && p !== join(web, 'vendor')) walk(p); }
      else if (/\.m?js$/.test(e.name) && !p.endsWith('data/server-api.mjs') && /\/api\/workflows\/\$\{/.test(readFileSync(p, 'utf8'))) offenders.push(p);
    }
  };
  walk(web);
  assert.deepEqual(offenders, []);
});
