// sql.js's own test suite, unchanged (tests/sqljs-suite/suite/, from the
// sql.js repository), run as sql.js runs it (its all.js) against our build
// and against npm sql.js, the reference, in the same run. Each must pass
// every one of the suite's test files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, WASM_DIR } from './helpers.mjs';

const SUITE = join(ROOT, 'tests', 'sqljs-suite', 'suite');
const FILES = readdirSync(SUITE).filter((f) => /^test_.+\.js$/.test(f)).map((f) => `test ${f.slice(5, -3)}`).sort();

// Runs the suite's all.js with `lib` (dist/sql-<lib>.js) and collects
// which tests passed and which failed, with the output for the report.
function runSuite(lib) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['all.js', lib], {
      cwd: SUITE,
      env: { ...process.env, PULSE_WASM_DIR: WASM_DIR },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('error', reject);
    child.on('close', (code) => {
      const passed = [...out.matchAll(/^OK {3}(.+)$/gm)].map((m) => m[1]).sort();
      const failed = [...out.matchAll(/^FAIL (.+)$/gm)].map((m) => m[1]).sort();
      // npm sql.js's deprecation warnings for its legacy functions are noise here.
      const log = out.split('\n').filter((l) => !l.includes('is deprecated and will be disabled')).join('\n');
      resolve({ code, passed, failed, log });
    });
  });
}

test('the vendored suite has its 24 test files', () => {
  assert.equal(FILES.length, 24, FILES.join(', '));
});

test('sql.js test suite: our build and npm sql.js both pass every file', async () => {
  const [ours, reference] = await Promise.all([runSuite('pulse'), runSuite('wasm')]);
  assert.deepEqual(reference.failed, [], `npm sql.js (the reference) failed:\n${reference.log}`);
  assert.deepEqual(reference.passed, FILES, reference.log);
  assert.equal(reference.code, 0, reference.log);
  assert.deepEqual(ours.failed, [], `our build failed:\n${ours.log}`);
  assert.deepEqual(ours.passed, FILES, ours.log);
  assert.equal(ours.code, 0, ours.log);
});
