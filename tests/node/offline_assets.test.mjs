// The WASM layer's modules are where the tab needs them: every module that
// sqljs-api.mjs and opfs-pool.mjs import, however deep, is served by
// `pulse serve` under /wasm/ (kWasmFiles, server-shim/http/http_util.cc) and
// kept by the service worker at install (ON_DEMAND, web/sw.js), so a copy
// opened offline in a tab that never loaded them (Inspect's worker, a tab
// whose Pulse worker is not the pool's owner) still finds each one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

// The wasm/ (and web/sqlite-header.mjs) modules `entry` imports, itself
// included; pulse.mjs, the glue the link writes, is named and not read.
function importGraph(entry) {
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    if (name === 'pulse.mjs') return;  // the glue the build writes
    const path = name === 'sqlite-header.mjs' ? join(ROOT, 'web', name) : join(ROOT, 'wasm', name);
    for (const m of readFileSync(path, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'\.\/([\w.-]+\.mjs)'/g)) visit(m[1]);
  };
  visit(entry);
  return seen;
}

test('every module the WASM layer imports is served under /wasm/ and kept by the service worker', () => {
  const needed = new Set([...importGraph('sqljs-api.mjs'), ...importGraph('opfs-pool.mjs')]);
  assert.ok(needed.has('opfs-copies.mjs') && needed.has('pulse.mjs'), [...needed].join(', '));
  const served = readFileSync(join(ROOT, 'server-shim', 'http', 'http_util.cc'), 'utf8');
  const sw = readFileSync(join(ROOT, 'web', 'sw.js'), 'utf8');
  const onDemand = sw.slice(sw.indexOf('const ON_DEMAND'), sw.indexOf('self.addEventListener'));
  for (const name of [...needed, 'pulse.wasm']) {
    assert.ok(served.includes(`"${name}"`), `${name}: not in kWasmFiles (server-shim/http/http_util.cc)`);
    assert.ok(onDemand.includes(`'${name}'`), `${name}: not kept at install by web/sw.js (ON_DEMAND)`);
  }
});
