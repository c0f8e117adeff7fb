// A test file beside every module: core/<m>.cc and agent/<m>.cc have
// tests/cpp/<m>_test.cc; an adapter core/api/<m>.cc has
// tests/cpp/api_<m>_test.cc, or its methods are called by name in
// tests/cpp/<m>_test.cc beside the typed module they adapt (core/api/api.cc,
// the table itself, is api_test.cc). server-shim/ is I/O and is tested over
// its real routes in tests/server/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TESTS = join(ROOT, 'tests', 'cpp');

const modules = (dir) =>
  readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.cc')).map((f) => f.slice(0, -3)).sort();
const testFile = (name) => join(TESTS, `${name}_test.cc`);

// The method names an adapter registers: r.Add("goal.check", ...).
const registered = (base) =>
  [...readFileSync(join(ROOT, 'core', 'api', `${base}.cc`), 'utf8').matchAll(/\.Add\(\s*"([^"]+)"/g)].map((m) => m[1]);

function missingFor(base) {
  if (base === 'api') return existsSync(testFile('api')) ? null : 'tests/cpp/api_test.cc';
  if (existsSync(testFile(`api_${base}`))) return null;
  const beside = testFile(base);
  const methods = registered(base);
  if (existsSync(beside) && methods.length > 0) {
    const text = readFileSync(beside, 'utf8');
    if (methods.some((m) => text.includes(`"${m}"`))) return null;
  }
  return `tests/cpp/api_${base}_test.cc (or a call of one of ${JSON.stringify(methods)} in tests/cpp/${base}_test.cc)`;
}

test('every core and agent module has tests/cpp/<module>_test.cc', () => {
  const missing = [];
  for (const dir of ['core', 'agent']) {
    for (const m of modules(dir)) if (!existsSync(testFile(m))) missing.push(`${dir}/${m}.cc: tests/cpp/${m}_test.cc`);
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
  assert.ok(modules('core').length > 40 && modules('agent').length > 10 && modules('core/api').length > 5);
  assert.ok(registered('goal').includes('goal.check'));
});
