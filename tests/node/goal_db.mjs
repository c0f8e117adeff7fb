// Opens a workflow database file inside the real WASM module, for tests and
// the bench: the file's bytes are handed to sqlite3_deserialize on an
// in-memory connection (the module's own Database, when it has one, does the
// same through OPFS). Returns the sqlite3* the facade (Module.Pulse) takes.
import { readFileSync } from 'node:fs';
import { pulseReply } from './helpers.mjs';

export function openDbInModule(Module, path) {
  const bytes = new Uint8Array(readFileSync(path));
  // A WAL-mode file (bytes 18-19 = 2) cannot be opened from memory; the
  // content is the same in rollback mode once the native side has closed it.
  if (bytes[18] === 2) bytes[18] = 1;
  if (bytes[19] === 2) bytes[19] = 1;
  const sp = Module.stackSave();
  try {
    const ppDb = Module.stackAlloc(4);
    const name = Module.stackAlloc(16);
    Module.stringToUTF8(':memory:', name, 16);
    let rc = Module._sqlite3_open_v2(name, ppDb, 0x2 | 0x4, 0); // READWRITE | CREATE
    const db = Module.getValue(ppDb, 'i32');
    if (rc !== 0) throw new Error(`sqlite3_open_v2: ${rc}`);
    const buf = Module._sqlite3_malloc(bytes.length);
    if (!buf) throw new Error('sqlite3_malloc failed');
    Module.HEAPU8.set(bytes, buf);
    const schema = Module.stackAlloc(8);
    Module.stringToUTF8('main', schema, 8);
    // 64-bit sizes cross as (low, high) pairs (WASM_BIGINT=0).
    rc = Module._sqlite3_deserialize(db, schema, buf, bytes.length, 0, bytes.length, 0, 1 | 2); // FREEONCLOSE | RESIZEABLE
    if (rc !== 0) throw new Error(`sqlite3_deserialize: ${rc} ${Module.UTF8ToString(Module._sqlite3_errmsg(db))}`);
    return db;
  } finally {
    Module.stackRestore(sp);
  }
}

export function closeDbInModule(Module, db) {
  Module._sqlite3_close_v2(db);
}

// Calls a core API method through the module; throws on an error result.
export function callInModule(Module, db, method, args, nowIso) {
  const now = nowIso ? Date.parse(nowIso) / 1000 : NaN;
  const out = pulseReply(Module, db, method, args ?? {}, now);
  if (out.error) throw new Error(`${method}: ${out.error} (${out.code})`);
  return out.result;
}
