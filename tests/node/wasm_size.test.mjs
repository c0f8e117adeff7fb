// The WASM module's size: the shipping build's pulse.wasm, gzip -9 (as
// bench/wasm.mjs and docs/wasm.md count it). The budget is 460 KiB
// (471,040 bytes), and it is the ceiling: the module is back under it
// (460,162 bytes on 2026-12-06, once the autonomy guard's scanners left the
// module: the guard decides tool calls in the server and the CLI, and
// nothing in the browser makes one; docs/wasm.md, *Size and speed*). A
// change that grows the module past the budget fails here, not in a
// reader's browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
    `(the budget is ${BUDGET} bytes, 460 KiB); docs/wasm.md (Size and speed) lists the size steps and what is left to try`);
  assert.ok(CEILING >= BUDGET, 'the ceiling is never below the budget: once under it, the budget is the ceiling');
});
