// Shared helpers for the Node suites: where the builds are, and temp dirs.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WASM_DIR = process.env.PULSE_WASM_DIR || join(ROOT, 'build', 'wasm');
export const PULSE_BIN = process.env.PULSE_BIN || join(ROOT, 'build', 'native', 'pulse');

let modulePromise;
// The real module, loaded once per test file (Node passes the bytes: it
// cannot fetch a file path).
export function loadPulseModule() {
  if (!modulePromise) {
    modulePromise = import(pathToFileURL(join(WASM_DIR, 'pulse.mjs')).href).then((m) =>
      m.default({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) }),
    );
  }
  return modulePromise;
}

// A fresh temp directory, removed by the returned cleanup.
export function makeTempDir(prefix = 'pulse-node-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// One core API call through the module's facade (Module.Pulse) on a raw
// sqlite3* (0: none), as a reply document: {result} or {error, code}. A
// failure that is not an Error with a string .code fails the test.
// The demo workspace scripts/run.sh serves (scripts/demo_workspace.mjs), made
// at `ws` with the native pulse; throws with the script's stderr if it fails.
export function makeDemo(ws) {
  const made = spawnSync('node', [join(ROOT, 'scripts', 'demo_workspace.mjs'), ws, '--pulse', PULSE_BIN], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`scripts/demo_workspace.mjs exited ${made.status}: ${made.stderr}`);
  return ws;
}

export function pulseReply(Module, db, method, args = {}, nowSeconds = NaN) {
  const now = Number.isFinite(nowSeconds) ? nowSeconds : undefined;
  try {
    return { result: new Module.Pulse(db ? { db } : null).call(method, args, { now }) };
  } catch (e) {
    if (!(e instanceof Error) || typeof e.code !== 'string') throw new Error(`${method}: not an Error with a code: ${e}`);
    return { error: e.message, code: e.code };
  }
}
