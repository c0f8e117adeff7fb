// Loader glue: the suite loads "../dist/sql-<name>.js" and calls the
// initSqlJs it exports. Here that is Pulse's initPulse over build/wasm
// (PULSE_WASM_DIR overrides), given the .wasm bytes as Node needs them.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const WASM_DIR = process.env.PULSE_WASM_DIR || join(__dirname, '..', '..', '..', 'build', 'wasm');

module.exports = function initSqlJs(config) {
  return import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href).then(({ initPulse }) =>
    initPulse({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')), ...config }));
};
