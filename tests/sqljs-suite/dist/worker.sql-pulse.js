// Loader glue: the suite starts "../dist/worker.sql-<name>.js" as a Node
// worker thread. Here that is Pulse's sql.js-protocol worker
// (wasm/sqljs-worker.mjs) on this thread's port.
const { parentPort } = require('node:worker_threads');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const initSqlJs = require('./sql-pulse.js');

const WASM_DIR = process.env.PULSE_WASM_DIR || join(__dirname, '..', '..', '..', 'build', 'wasm');

import(pathToFileURL(join(WASM_DIR, 'sqljs-worker.mjs')).href).then(({ serveSqlJsWorker }) =>
  serveSqlJsWorker(parentPort, initSqlJs));
