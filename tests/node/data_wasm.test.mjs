// Data that must never poison a database, in the real WASM module: a stored
// configuration snapshot that is corrupt (nested 20,000 deep, a number out of
// range, not JSON at all), bad bytes in stored rows, hostile arguments. Every
// failure is an Error with a message and a .code, never a bare number, and
// the module keeps working afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PULSE_BIN, WASM_DIR, makeTempDir } from './helpers.mjs';

const NOW = { now: '2026-10-07T12:00:00Z' };

let apiPromise;
function api() {
  if (!apiPromise) {
    apiPromise = import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href).then(({ initPulse }) =>
      initPulse({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) }));
  }
  return apiPromise;
}

// A real workflow database made by the native program (schema + snapshot).
function nativeDbBytes(t) {
  const { dir, cleanup } = makeTempDir('pulse-data-wasm-');
  t.after(cleanup);
  const ws = join(dir, 'ws');
  mkdirSync(join(ws, 'Workflow', 'demo'), { recursive: true });
  writeFileSync(join(ws, 'Workflow', 'demo', 'workflow.json'),
    '{"goal": {"primary_metric": {"name": "subscribers", "target": 1000, "baseline": 200}}}');
  const args = ['--workspace', ws, '--workflow', 'demo'];
  const c = spawnSync(PULSE_BIN, ['check', ...args, '--now', '2026-10-07T12:00:00Z'], { encoding: 'utf8' });
  assert.equal(c.status, 0, c.stderr);
  const r = spawnSync(PULSE_BIN, ['agent-log', 'started', ...args, '--session', 's1', '--agent', 'a1'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return readFileSync(join(ws, 'Workflow', 'demo', 'db', 'db.sqlite'));
}

function expectCodedError(fn, code, pattern) {
  let thrown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown !== undefined, 'expected a throw');
  assert.ok(thrown instanceof Error, `thrown ${typeof thrown}: ${thrown}`);
  assert.equal(typeof thrown.message, 'string');
  assert.ok(thrown.message.length > 0);
  assert.equal(thrown.code, code, thrown.message);
  if (pattern) assert.match(thrown.message, pattern);
  return thrown;
}

test('a corrupt configuration snapshot is an Error with a code, and the module survives it', async (t) => {
  const { Database, Pulse } = await api();
  const bytes = nativeDbBytes(t);
  const corrupt = [
    [`{"x": ${'['.repeat(20000)}${']'.repeat(20000)}}`, /nested deeper than 64 levels/],
    ['{"goal": {"primary_metric": {"name": "m", "target": 1e400}}}', /number overflow parsing '1e400'/],
    ['{"goal": ', /malformed JSON/],
  ];
  for (const [snapshot, pattern] of corrupt) {
    const db = new Database(bytes);
    db.run('UPDATE pulse_workflow_config SET config_json = ?', [snapshot]);
    const pulse = new Pulse(db);
    expectCodedError(() => pulse.call('goal.check', {}, NOW), 'invalid_argument', pattern);
    expectCodedError(() => pulse.call('agent_log.show', {}, NOW), 'invalid_argument', pattern);
    db.close();
  }
  // The same module instance still works on a sound database.
  const db = new Database(bytes);
  const check = new Pulse(db).call('goal.check', {}, NOW);
  assert.equal(check.status, 'not_measured');
  db.close();
});

test('bad bytes stored in rows come back repaired through the facade', async (t) => {
  const { Database, Pulse } = await api();
  const db = new Database(nativeDbBytes(t));
  t.after(() => db.close());
  db.run("UPDATE background_agent_log SET name = CAST(X'6F6BE282' AS TEXT), result = CAST(X'C0AF' AS TEXT)");
  const out = new Pulse(db).call('agent_log.show', {}, NOW);
  const rows = Array.isArray(out) ? out : out.rows;
  assert.equal(rows[0].name, 'ok\uFFFD');
  assert.equal(rows[0].result, '\uFFFD\uFFFD');
});

test('hostile arguments are Errors with a code, never a bare number', async (t) => {
  const { Database, Pulse } = await api();
  const db = new Database(nativeDbBytes(t));
  t.after(() => db.close());
  const pulse = new Pulse(db);
  // Nested far deeper than any argument needs.
  let deep = {};
  for (let i = 0; i < 1000; i++) deep = { d: deep };
  expectCodedError(() => pulse.call('agent_log.show', deep, NOW), 'invalid_argument', /nested deeper than 64 levels/);
  // Wrong types where the core expects strings, numbers, lists.
  expectCodedError(() => pulse.call('decision.create', { question: ['not', 'text'] }, NOW), 'invalid_argument');
  expectCodedError(() => pulse.call('goal.observe', { metric: 'subscribers', value: 'many', source: 'manual' }, NOW),
    'invalid_argument');
  expectCodedError(() => pulse.call('goal.observe', { metric: 'subscribers', value: 1, source: 'manual',
    at: '2026-10-07T09:00:00+24:00' }, NOW), 'invalid_argument', /RFC 3339/);
  expectCodedError(() => pulse.call('no.such.method', {}, NOW), 'not_found');
  expectCodedError(() => pulse.call('agent_log.show', {}, { now: 'not a time' }), 'invalid_argument');
  // ... and the module still answers.
  const rows = pulse.call('agent_log.show', {}, NOW);
  assert.equal((Array.isArray(rows) ? rows : rows.rows).length, 1);
});
