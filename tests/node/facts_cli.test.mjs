// `pulse facts --json` and `pulse check --json` (facts, needs_reauth) on a
// real workspace with hostile outside files, and the same facts from the
// real WASM module on the same database file (the browser's case: the
// outside files are not there, only their snapshot in the database).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PULSE_BIN, WASM_DIR, makeTempDir } from './helpers.mjs';

const NOW = '2026-10-07T12:00:00Z';

function put(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

let sqlPromise;
function sql() {
  if (!sqlPromise) {
    sqlPromise = import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href).then(({ initPulse }) =>
      initPulse({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) }));
  }
  return sqlPromise;
}

// A workflow whose outside files hold one of each fact, and a bad part each.
async function makeWorkspace(t) {
  const { dir, cleanup } = makeTempDir('pulse-facts-');
  t.after(cleanup);
  const ws = join(dir, 'ws');
  const wf = join(ws, 'Workflow', 'news');
  put(join(wf, 'workflow.json'), JSON.stringify({
    goal: { primary_metric: { name: 'subscribers', route: 'growth_funnel', target: 1000, baseline: 200 } },
    schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true }],
  }));
  put(join(wf, 'planning', 'plan.json'), JSON.stringify({ routes: { growth_funnel: { steps: ['s-grow'] } } }));
  put(join(wf, 'planning', 'changelog.jsonl'), [
    JSON.stringify({ at: '2026-10-06T10:00:00Z', tool: 'update_step', reason: 'shorter intro', steps: ['s-grow'], who: 'ana', session: 'b-1' }),
    '{"at": "2026-10-06T11:00:00Z", "tool": ',
    JSON.stringify({ at: '2026-10-06T12:00:00Z', tool: 'rename_step', steps: ['s-other'] }),
  ].join('\n') + '\n');
  put(join(wf, 'chats.json'), JSON.stringify([{ session_id: 'b-1', kind: 'builder', account: 'ana' }]));
  // The ledger, made with the module's sql.js-compatible Database.
  const SQL = await sql();
  const ledger = new SQL.Database();
  ledger.run('CREATE TABLE cost_events(at TEXT, run_id TEXT NULL, source TEXT, usd REAL)');
  const add = (...row) => ledger.run('INSERT INTO cost_events VALUES (?, ?, ?, ?)', row);
  for (let d = 1; d <= 6; d++) add(`2026-10-0${d}T09:00:00Z`, `r-${d}`, 'run', 1.0);
  add('2026-10-06T09:30:00Z', 'r-big', 'run', 4.0);
  add('2026-10-06T10:00:00Z', null, 'chat', 0.5);
  add('2026-10-06T10:00:00Z', 'r-bad', 'run', -1);
  put(join(wf, 'costs', 'costs.sqlite'), ledger.export());
  ledger.close();
  put(join(wf, 'runs', 'iteration-1', 'default', 'run.json'), JSON.stringify({
    run_id: 'r-big', started_at: '2026-10-06T09:00:00Z', finished_at: '2026-10-06T09:40:00Z', status: 'failed',
    error: 'gmail: token refresh failed: invalid_grant', concerns: ['CONCERNS: the draft is short'], cost_usd: 4,
  }));
  put(join(wf, 'runs', 'iteration-1', 'default', 'route_selection.json'), '{"route": "growth_funnel"}');
  return { ws, wf, args: ['--workspace', ws, '--workflow', 'news', '--now', NOW] };
}

function pulse(args) {
  return spawnSync(PULSE_BIN, args, { encoding: 'utf8' });
}

test('pulse facts --json: each fact, the bad lines named on stderr, exit 0', async (t) => {
  const { args } = await makeWorkspace(t);
  const r = pulse(['facts', ...args, '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /warning: planning\/changelog\.jsonl:2: malformed JSON/);
  assert.match(r.stderr, /warning: costs\/costs\.sqlite: row 9: usd -1\.000000 is negative, skipped/);
  const f = JSON.parse(r.stdout);
  assert.equal(f.workflow, 'news');
  assert.equal(f.since, '2026-09-30T12:00:00Z');
  assert.equal(f.plan_changes.length, 2);
  assert.equal(f.plan_changes[0].touches_goal, true);
  assert.equal(f.plan_changes[0].builder_chat, true);
  assert.equal(f.plan_changes[1].touches_goal, false);
  assert.equal(f.spend.last_7_days_usd, 10.5);
  assert.equal(f.spend.budget, null);
  assert.deepEqual(f.cost_spikes.map((s) => [s.run_id, s.usd, s.ratio, s.route, s.goal_route]),
    [['r-big', 4, 4, 'growth_funnel', true]]);
  assert.equal(f.login_hints.length, 1);
  assert.equal(f.login_hints[0].pattern, 'invalid_grant');
  assert.equal(f.needs_reauth, true);
  assert.equal(f.run_health.failed, 1);
  assert.deepEqual(f.builder_asks, []);
  const changelog = f.sources.find((s) => s.file === 'planning/changelog.jsonl');
  assert.equal(changelog.skipped, 1);
  // What could not be read is named in the facts; the rest was read.
  assert.equal(f.unreadable.length, 2, JSON.stringify(f.unreadable));
  assert.match(f.unreadable[0], /^unreadable: costs\/costs\.sqlite: row 9: usd -1\.000000 is negative$/);
  assert.match(f.unreadable[1], /^unreadable: planning\/changelog\.jsonl:2: malformed JSON/);

  const text = pulse(['facts', ...args]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /cost spike: run r-big cost \$4\.00, 4× the 14-day median run \(\$1\.00\), route growth_funnel \(the goal's route\)/);
  assert.match(text.stdout, /needs re-auth/);
  assert.match(text.stdout, /unreadable: planning\/changelog\.jsonl:2: malformed JSON/);
});

test('pulse check --json carries facts and needs_reauth; a ledger that is not SQLite does not stop it', async (t) => {
  const { wf, args } = await makeWorkspace(t);
  writeFileSync(join(wf, 'costs', 'costs.sqlite'), 'not a database, just text\n');
  const r = pulse(['check', ...args, '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /warning: costs\/costs\.sqlite: /);
  const c = JSON.parse(r.stdout);
  assert.equal(c.needs_reauth, true);
  assert.equal(c.facts.spend.ledger, 'unreadable');
  assert.match(c.facts.spend.unreadable, /^unreadable: costs\/costs\.sqlite: /);
  assert.equal(c.facts.plan_changes.length, 2);
});

test('the WASM module gives the same facts as native from the same db file', async (t) => {
  const { wf, args } = await makeWorkspace(t);
  const native = pulse(['facts', ...args, '--json']);
  assert.equal(native.status, 0, native.stderr);
  const check = pulse(['check', ...args, '--json']);
  assert.equal(check.status, 0, check.stderr);
  const SQL = await sql();
  const db = new SQL.Database(readFileSync(join(wf, 'db', 'db.sqlite')));
  const p = new SQL.Pulse(db);
  const browserFacts = p.call('goal.facts', {}, { now: NOW });
  assert.deepEqual(browserFacts, JSON.parse(native.stdout));
  const browserCheck = p.call('goal.check', {}, { now: NOW });
  assert.deepEqual(browserCheck, JSON.parse(check.stdout));
  db.close();
});
