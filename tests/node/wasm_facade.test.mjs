// The Pulse facade in the real WASM module: the same core API the native
// program uses, reached through Embind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPulseModule } from './helpers.mjs';

test('the WASM module loads and reports its versions', async () => {
  const Module = await loadPulseModule();
  const out = JSON.parse(Module.pulseCall(0, 'pulse.version', '{}', NaN));
  assert.equal(out.result.pulse, '0.1.0');
  assert.match(out.result.sqlite, /^3\.53\./);
});

test('an unknown method comes back as an error, not a crash', async () => {
  const Module = await loadPulseModule();
  const out = JSON.parse(Module.pulseCall(0, 'no.such.method', '{}', NaN));
  assert.equal(out.code, 'not_found');
  assert.match(out.error, /unknown method "no.such.method"/);
  const bad = JSON.parse(Module.pulseCall(0, 'pulse.version', '{not json', NaN));
  assert.equal(bad.code, 'invalid_argument');
});
