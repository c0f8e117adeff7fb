// The Pulse facade in the real WASM module (Embind: Module.PulseFacade,
// and its JS face Module.Pulse): the same core API the native program
// uses, the typed agent-log recorders, and the one shape of every failure
// that crosses the boundary — an Error with a message and a string .code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WASM_DIR, loadPulseModule, pulseReply } from './helpers.mjs';

const NOW = Date.parse('2026-10-07T12:00:00Z') / 1000;

async function loadApi() {
  const { initPulse } = await import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href);
  return initPulse({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) });
}

// A workflow database as the CLI leaves it: the schema and a configuration
// snapshot naming the workflow (the facade makes the schema on first use).
function workflowDb(api, workflow = 'demo') {
  const db = new api.Database();
  new api.Pulse(db).call('pulse.version');
  new api.Pulse(db).call('agent_log.show', {});
  db.run(`INSERT INTO pulse_workflow_config(id, workflow, config_json, soul_md, updated_at)
    VALUES(1, ?, '{}', '', '2026-10-07T09:00:00Z')`, [workflow]);
  return db;
}

// Runs `fn`, which must throw; returns what it threw after checking its shape.
function failure(fn, code, message) {
  let thrown = null;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown !== null, 'expected a failure');
  assert.ok(thrown instanceof Error, `an Error, not ${typeof thrown}: ${thrown}`);
  assert.equal(typeof thrown.message, 'string');
  assert.equal(thrown.code, code, thrown.message);
  if (message) assert.match(thrown.message, message);
  return thrown;
}

test('the WASM module loads and reports its versions', async () => {
  // A fresh instance: the facade's class is registered when a Pulse first
  // needs it, not while the module loads (wasm/pulse_bindings.cc).
  const { default: create } = await import(pathToFileURL(join(WASM_DIR, 'pulse.mjs')).href);
  const fresh = await create({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) });
  assert.equal(fresh.PulseFacade, undefined, 'nothing registered the facade at load');
  assert.equal(pulseReply(fresh, 0, 'pulse.version').result.pulse, '0.1.0');
  assert.equal(typeof fresh.PulseFacade, 'function', 'the first call registered it');
  const Module = await loadPulseModule();
  const out = pulseReply(Module, 0, 'pulse.version');
  assert.equal(out.result.pulse, '0.1.0');
  assert.match(out.result.sqlite, /^3\.53\./);
  assert.equal(typeof Module.PulseFacade, 'function', 'the facade is an Embind class');
});

test('every failure crossing the boundary is an Error with a message and a code', async () => {
  const api = await loadApi();
  const bare = new api.Pulse(null);
  failure(() => bare.call('no.such.method'), 'not_found', /unknown method "no.such.method"/);
  failure(() => bare.call('pulse.version', { big: 1n }), 'invalid_argument', /cannot be sent as JSON/);
  failure(() => bare.call('pulse.version', {}, { now: 'yesterday-ish' }), 'invalid_argument', /"now" is not a valid time/);
  failure(() => bare.call('agent_log.show', {}), 'invalid_argument', /needs a database/);
  // A finite `now` past the calendar was converted to an integer it does not
  // fit (undefined behaviour): refused, naming the value.
  for (const now of [1e300, -1e300, 253402300800, -62167219201]) {
    failure(() => bare.call('pulse.version', {}, { now }), 'invalid_argument', /now: .* is not a time in seconds/);
  }
  assert.ok(bare.call('pulse.version', {}, { now: 253402300799 }).pulse);
  // Nested deeper than any Pulse document: refused before the module recurses over it.
  let deep = [];
  for (let i = 0; i < 1000; i++) deep = [deep];
  failure(() => bare.call('pulse.version', { deep }), 'invalid_argument', /nested deeper than 64/);

  const db = workflowDb(api);
  const pulse = new api.Pulse(db);
  failure(() => pulse.call('agent_log.show', { since: 'not a time' }), 'invalid_argument', /"since"/);
  failure(() => pulse.call('agent_log.show', { session: 42 }), 'invalid_argument', /"session" must be a string/);
  failure(() => pulse.call('decision.answer', { id: 999, accept: true }), 'not_found');
  failure(() => pulse.agentStarted({ agent: 'a' }), 'invalid_argument', /session is required/);
  failure(() => pulse.agentStarted({ session: 's', agent: 7 }), 'invalid_argument', /"agent" must be a string/);
  failure(() => pulse.agentCompleted({ session: 's', agent: 'a', status: 'running' }), 'invalid_argument',
    /not a finished status/);
  failure(() => pulse.agentStarted({ session: 's', agent: 'a', at: 'soon' }), 'invalid_argument', /"at" is not a valid time/);
  // Nothing half-done: the refused events wrote no row.
  assert.deepEqual(pulse.call('agent_log.show', {}, { now: NOW }).rows, []);
  pulse.close();
  db.close();
  failure(() => pulse.call('pulse.version'), 'invalid_argument', /the database is closed/);
  failure(() => pulse.agentStarted({ session: 's', agent: 'a' }), 'invalid_argument', /the database is closed/);
});

test('text stored with bad UTF-8 is read back repaired, not thrown as a number', async () => {
  const api = await loadApi();
  const db = workflowDb(api);
  db.run(`INSERT INTO background_agent_log(workspace_path, session_id, agent_id, status, result, started_at, updated_at)
    VALUES('Workflow/demo', 's', 'a', 'completed', CAST(X'6F6BFF' AS TEXT), '2026-10-07T09:00:00Z', '2026-10-07T09:00:00Z')`);
  const rows = new api.Pulse(db).call('agent_log.show', {}, { now: NOW }).rows;
  assert.equal(rows.length, 1);
  assert.equal(rows[0].result, 'ok\uFFFD');
  db.close();
});

test('the typed agent-log recorders write what agent_log.started/completed write', async () => {
  const api = await loadApi();
  const typed = workflowDb(api);
  const viaJson = workflowDb(api);
  const pulse = new api.Pulse(typed);
  const events = [
    ['started', { session: 's1', agent: 'gate', name: 'Gate', kind: 'reviewer', pulse_run_id: 'run-A', at: '2026-10-07T09:00:00Z' }],
    ['completed', { session: 's1', agent: 'gate', result: 'changed', duration: 12.5, at: '2026-10-07T09:04:00Z' }],
    ['started', { session: 's1', agent: 'fixer', parent: 'exec-1', at: '2026-10-07T09:05:00Z' }],
    ['completed', { session: 's1', agent: 'fixer', status: 'failed', error: 'timeout', at: '2026-10-07T11:00:00Z' }],
  ];
  for (const [kind, ev] of events) {
    const w = kind === 'started' ? pulse.agentStarted(ev, { now: NOW }) : pulse.agentCompleted(ev, { now: NOW });
    assert.deepEqual(w, { recorded: true, warning: '' });
    assert.equal(new api.Pulse(viaJson).call(`agent_log.${kind}`, ev, { now: NOW }).recorded, true);
  }
  const shown = (db) => new api.Pulse(db).call('agent_log.show', {}, { now: NOW });
  assert.deepEqual(shown(typed), shown(viaJson));
  assert.deepEqual(shown(typed).rows.map((r) => [r.agent_id, r.status, r.duration, r.workspace_path]),
    [['gate', 'completed', '12.5s', 'Workflow/demo'], ['fixer', 'failed', '', 'Workflow/demo']]);
  pulse.close();

  // No workflow snapshot: nothing written, said as data (best effort).
  const bare = new api.Database();
  assert.deepEqual(new api.Pulse(bare).agentStarted({ session: 's', agent: 'a' }), { recorded: false, warning: 'no workflow' });
  [typed, viaJson, bare].forEach((d) => d.close());
});
