// What the WASM benches share: where the module and npm sql.js are, the
// command-line numbers (--rounds, --rows) and the median.
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const WASM_DIR = process.env.PULSE_WASM_DIR || join(ROOT, 'build', 'wasm');
export const SQLJS_DIR = join(ROOT, 'node_modules', 'sql.js', 'dist');
export const require = createRequire(import.meta.url);

// `--name N` from the command line, or `fallback`.
export function numberArg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
