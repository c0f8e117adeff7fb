// A test file beside every module: core/<concept>/<m>.cc has
// tests/cpp/<concept>/<m>_test.cc and agent/<part>/<m>.cc has
// tests/cpp/agent/<m>_test.cc (or, once that folder is full,
// tests/cpp/agent/<part>/<m>_test.cc); an adapter core/api/<m>.cc has
// tests/cpp/api/api_<m>_test.cc, or its methods are called by name in
// the test beside the typed module it adapts (core/api/api.cc, the table
// itself, is tests/cpp/api/api_test.cc). server-shim/ is I/O and is tested
// over its real routes in tests/server/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const TESTS = join(ROOT, 'tests', 'cpp');

// Every .cc under dir, as paths relative to it without the extension.
function modules(dir) {
  const out = [];
  const walk = (d) => {
    for (const f of readdirSync(join(ROOT, d))) {
      const p = join(d, f);
      if (statSync(join(ROOT, p)).isDirectory()) walk(p);
      else if (f.endsWith('.cc')) out.push(relative(dir, p).slice(0, -3));
    }
  };
  walk(dir);
  return out.sort();
}
const base = (m) => m.split('/').pop();
const folder = (m) => m.split('/').slice(0, -1).join('/');

// The method names an adapter registers: r.Add("goal.check", ...).
const registered = (name) =>
  [...readFileSync(join(ROOT, 'core', 'api', `${name}.cc`), 'utf8').matchAll(/\.Add\(\s*"([^"]+)"/g)].map((m) => m[1]);

// Where the typed module an adapter adapts has its test: core/<concept>/<name>.cc.
const coreModules = modules('core').filter((m) => !m.startsWith('api/'));
const besideTest = (name) => {
  const typed = coreModules.find((m) => base(m) === name);
  return typed ? join(TESTS, folder(typed), `${name}_test.cc`) : null;
};

function missingFor(name) {
  if (name === 'api') return existsSync(join(TESTS, 'api', 'api_test.cc')) ? null : 'tests/cpp/api/api_test.cc';
  if (existsSync(join(TESTS, 'api', `api_${name}_test.cc`))) return null;
  const beside = besideTest(name);
  const methods = registered(name);
  if (beside && existsSync(beside) && methods.length > 0) {
    const text = readFileSync(beside, 'utf8');
    if (methods.some((m) => text.includes(`"${m}"`))) return null;
  }
  return `tests/cpp/api/api_${name}_test.cc (or a call of one of ${JSON.stringify(methods)} beside the typed module)`;
}

test('every core module has tests/cpp/<concept>/<module>_test.cc', () => {
  const missing = [];
  for (const m of coreModules) {
    const want = join('tests', 'cpp', folder(m), `${base(m)}_test.cc`);
    if (!existsSync(join(ROOT, want))) missing.push(`core/${m}.cc: ${want}`);
  }
  assert.deepEqual(missing, []);
});

test('every agent module has tests/cpp/agent/<module>_test.cc (or tests/cpp/agent/<part>/<module>_test.cc)', () => {
  const missing = [];
  for (const m of modules('agent')) {
    const want = join('tests', 'cpp', 'agent', `${base(m)}_test.cc`);
    const inPart = join('tests', 'cpp', 'agent', folder(m), `${base(m)}_test.cc`);
    if (!existsSync(join(ROOT, want)) && !existsSync(join(ROOT, inPart))) missing.push(`agent/${m}.cc: ${want}`);
  }
  assert.deepEqual(missing, []);
});

test('every core/api adapter has its tests', () => {
  const missing = [];
  for (const m of modules('core/api')) {
    const want = missingFor(m);
    if (want) missing.push(`core/api/${m}.cc: ${want}`);
  }
  assert.deepEqual(missing, []);
});

test('the rule sees the modules it checks', () => {
  // A moved folder or a renamed extension must not make the rule pass empty.
  assert.ok(coreModules.length > 40 && modules('agent').length > 10 && modules('core/api').length > 5);
  assert.ok(coreModules.every((m) => m.includes('/')), 'every core module sits in a concept folder');
  assert.ok(registered('goal').includes('goal.check'));
});

test('no source folder holds more than 25 source files', () => {
  const over = [];
  const walk = (d) => {
    const entries = readdirSync(join(ROOT, d));
    const sources = entries.filter((f) => /\.(cc|h|c|mjs|js)$/.test(f));
    if (sources.length > 25) over.push(`${d}: ${sources.length}`);
    for (const f of entries) if (statSync(join(ROOT, d, f)).isDirectory() && f !== 'vendor') walk(join(d, f));
  };
  for (const d of ['core', 'agent', 'server-shim', 'wasm', 'web', 'tests/cpp']) walk(d);
  assert.deepEqual(over, []);
});
