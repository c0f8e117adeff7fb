// The WASM module's size: the shipping build's pulse.wasm, gzip -9 (as
// bench/wasm.mjs and docs/wasm.md count it). The budget is 460 KiB
// (471,040 bytes), and it is the ceiling: the module has been under it
// since 2026-12-06, when the autonomy guard's scanners left the module (the
// guard decides tool calls in the server and the CLI, and nothing in the
// browser makes one). docs/wasm.md (*Size and speed*) gives the size now;
// docs/CHANGELOG.md the steps that brought it there. A change that grows
// the module past the budget fails here, not in a reader's browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { WASM_DIR } from './helpers.mjs';

const BUDGET = 471040;  // 460 KiB: the target
const CEILING = BUDGET;  // under the budget since 2026-12-06 (460,162 bytes); never raised

test('pulse.wasm stays within its 460 KiB gzip -9 budget', () => {
  const path = join(WASM_DIR, 'pulse.wasm');
  const bytes = readFileSync(path);
  // Not a wasm binary (a half-written file, an LFS pointer) would measure
  // small and pass: the magic number first.
  assert.deepEqual([...bytes.subarray(0, 4)], [0x00, 0x61, 0x73, 0x6d], `${path}: not a WebAssembly binary`);
  const gzip = gzipSync(bytes, { level: 9 }).length;
  assert.ok(gzip <= CEILING,
    `${path}: ${gzip} bytes gzip -9 (${bytes.length} raw) is over the ceiling of ${CEILING} bytes by ${gzip - CEILING} ` +
    `(the budget is ${BUDGET} bytes, 460 KiB); docs/wasm.md (Size and speed) lists what the build leaves out and the options rejected, ` +
    `docs/CHANGELOG.md the size steps so far`);
  assert.ok(CEILING >= BUDGET, 'the ceiling is never below the budget: once under it, the budget is the ceiling');
});

// The module opens no files and carries no Emscripten file system (a third
// of the glue, most of its start-up): linked with -sFILESYSTEM=0, whose
// stand-ins for the file calls would answer "done"; wasm/no_files.c's answer
// an error instead, so the module imports none of them from the glue.
test('the module has no file system, and its file calls fail rather than pretend', async () => {
  const bytes = readFileSync(join(WASM_DIR, 'pulse.wasm'));
  const imports = WebAssembly.Module.imports(new WebAssembly.Module(bytes)).map((i) => i.name);
  assert.deepEqual(imports.filter((n) => n.startsWith('__syscall_')), [], imports.join(' '));
  const { initPulse } = await import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href);
  const SQL = await initPulse({ wasmBinary: bytes });
  assert.equal(SQL.FS, undefined);
  assert.equal(typeof SQL.Database, 'function');
});
