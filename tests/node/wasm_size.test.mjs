// The WASM module's size budget: the shipping build's pulse.wasm, gzip -9 (as
// bench/wasm.mjs and docs/wasm.md count it), at most 460 KiB. A module that
// grows past it fails here, not in a reader's browser; docs/wasm.md (*Size
// and speed*) says what each size step saved and what is left to try.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { WASM_DIR } from './helpers.mjs';

const BUDGET = 471040; // 460 KiB

test('pulse.wasm is within its 460 KiB gzip -9 budget', () => {
  const path = join(WASM_DIR, 'pulse.wasm');
  const bytes = readFileSync(path);
  // Not a wasm binary (a half-written file, an LFS pointer) would measure
  // small and pass: the magic number first.
  assert.deepEqual([...bytes.subarray(0, 4)], [0x00, 0x61, 0x73, 0x6d], `${path}: not a WebAssembly binary`);
  const gzip = gzipSync(bytes, { level: 9 }).length;
  assert.ok(gzip <= BUDGET,
    `${path}: ${gzip} bytes gzip -9 (${bytes.length} raw) is over the budget of ${BUDGET} bytes (460 KiB) by ${gzip - BUDGET}; ` +
    'docs/wasm.md (Size and speed) says what each size step saved');
});
