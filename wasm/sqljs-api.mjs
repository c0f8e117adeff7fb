// The JS face of the Pulse WASM module: a sql.js-compatible Database and
// Statement over SQLite's C API (exported functions, called directly as
// sql.js does), and the Pulse facade over the core's API table.
//
//   const SQL = await initPulse();                       // browser/worker
//   const SQL = await initPulse({ wasmBinary });         // Node (it cannot fetch a file path)
//   const db = new SQL.Database();  new SQL.Pulse(db).call(...)
//
// As with sql.js's initSqlJs, the result is the Emscripten module itself
// (stackSave, HEAPU8, ...) carrying the classes, and it is made once: later
// calls return the same module whatever their options. A fresh, separate
// instance: bindApi(await createPulseModule(options)).
//
// Behaviour follows sql.js 1.x: sql.js's own test suite passes unchanged
// (tests/sqljs-suite/) and tests/node/sqljs_compat.test.mjs runs one script
// against both and compares. Deliberate differences: `new Database(bytes)`
// checks the bytes at once and throws an Error naming the problem for empty,
// truncated or non-SQLite input (sql.js opens them and fails later, or
// treats empty as new); `export()` leaves prepared statements usable (sql.js
// frees them); of extension-functions.c only the functions SQLite lacks are
// there (SQLite's own acos, ceil, log, ... stay, as with sql.js's
// useOldExtensionFunctions: false).
import createPulseModule from './pulse.mjs';
import { RESULT_CODES, RESULT_CODE_NAMES } from './result-codes.mjs';
import { readSqliteHeader } from './sqlite-header.mjs';
import { defineStatement, SQLITE_OK, SQLITE_ROW, SQLITE_DONE, SQLITE_TEXT } from './sqljs-statement.mjs';
import { installUserFunctions } from './sqljs-functions.mjs';
import { installGuard } from './sqljs-guard.mjs';

const { SQLITE_NOTADB } = RESULT_CODES;
const SQLITE_OPEN_READONLY = 0x1;
const SQLITE_OPEN_READWRITE = 0x2;
const SQLITE_OPEN_CREATE = 0x4;
const STRING_SCRATCH_BYTES = 4096;

// Checks that `bytes` look like a whole SQLite database file (the header
// check shared with the page, sqlite-header.mjs). Throws an Error naming
// `what` and the problem.
export function checkDatabaseBytes(bytes, what = 'the given database') {
  const header = readSqliteHeader(bytes, bytes.length, what);
  if (header.problem) throw new Error(header.problem);
  return { pageSize: header.pageSize, pageCount: header.pageCount };
}

function toBytes(data) {
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (Array.isArray(data)) return Uint8Array.from(data);
  throw new TypeError('new Database(data): data must be a Uint8Array, ArrayBuffer or array of bytes');
}

let loaded = null;

// The glue reads wasmBinary as `new Uint8Array(wasmBinary)`, which copies a
// Uint8Array (a megabyte, and garbage, on every load) but only views an
// ArrayBuffer: a view over a whole buffer (readFileSync's Buffer of the
// module) is given as its buffer.
function wholeBuffer(bytes) {
  if (bytes instanceof Uint8Array && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) {
    return bytes.buffer;
  }
  return bytes;
}

// Loads the module once and returns it with the classes bound to it (later
// calls: the same module). Options: wasmBinary (bytes, for Node), locateFile
// (where pulse.wasm is), and any other Emscripten Module option.
export function initPulse(options = {}) {
  if (!loaded) {
    const moduleOptions = { ...options };
    if (!moduleOptions.wasmBinary && !moduleOptions.locateFile) {
      moduleOptions.locateFile = (path) => new URL(path, import.meta.url).href;
    }
    moduleOptions.wasmBinary = wholeBuffer(moduleOptions.wasmBinary);
    loaded = createPulseModule(moduleOptions).then(bindApi);
    // A failed load (say, a wrong path) may be retried.
    loaded.catch(() => {
      loaded = null;
    });
  }
  return loaded;
}

// The wasm exports themselves, by their C names with "_" in front. Emscripten
// 3.1's Module._f is a stub that forwards through .apply until its first
// call and then replaces itself only on Module: held in a local it would stay
// slow. The link keeps export names unminified (wasm/CMakeLists.txt), so
// Module.asm has them under their own names.
function exportsOf(Module) {
  const fns = {};
  for (const key of Object.keys(Module)) {
    if (key.startsWith('_sqlite3_') || key.startsWith('_pulse_') || key === '_malloc' || key === '_free') {
      const raw = Module.asm[key.slice(1)];
      fns[key] = typeof raw === 'function' ? raw : Module[key];
    }
  }
  return fns;
}

// Binds the classes to a loaded module (one set per module instance) and
// returns the module carrying them.
export function bindApi(Module) {
  const fns = exportsOf(Module);
  const {
    _malloc, _free, _sqlite3_open_v2, _sqlite3_close_v2, _sqlite3_errmsg, _sqlite3_errstr,
    _sqlite3_extended_errcode, _sqlite3_exec, _sqlite3_changes, _sqlite3_prepare_v2, _sqlite3_step,
    _sqlite3_finalize, _sqlite3_column_type, _sqlite3_column_double, _sqlite3_column_text,
    _sqlite3_malloc, _pulse_db_from_bytes, _pulse_export_begin, _pulse_export_page, _pulse_export_end,
  } = fns;
  const { UTF8ToString, stringToUTF8, lengthBytesUTF8 } = Module;

  // Scratch words for out-parameters (sqlite3**, sqlite3_stmt**, tails).
  const scratch = _malloc(16);
  const stringScratch = _malloc(STRING_SCRATCH_BYTES);
  const i32 = (p) => Module.HEAP32[p >> 2];

  function newCString(s) {
    const len = lengthBytesUTF8(s) + 1;
    const p = _malloc(len);
    stringToUTF8(s, p, len);
    return p;
  }

  function sqliteError(dbPtr, rc) {
    let code = dbPtr ? _sqlite3_extended_errcode(dbPtr) : rc;
    if ((code & 0xff) !== (rc & 0xff)) code = rc;
    const err = new Error(dbPtr ? UTF8ToString(_sqlite3_errmsg(dbPtr)) : UTF8ToString(_sqlite3_errstr(rc)));
    err.code = RESULT_CODE_NAMES[code];
    err.errcode = code;
    return err;
  }

  const lib = { Module, fns, scratch, stringScratch, STRING_SCRATCH_BYTES, newCString };
  const { Statement, StatementIterator } = defineStatement(lib);

  // Opens `filename` on `vfs` (0: default) and returns the connection.
  function openRaw(filename, flags, vfs) {
    const name = newCString(filename);
    const vfsName = vfs ? newCString(vfs) : 0;
    try {
      Module.HEAP32[scratch >> 2] = 0;
      const rc = _sqlite3_open_v2(name, scratch, flags, vfsName);
      const db = i32(scratch);
      if (rc !== SQLITE_OK) {
        const err = sqliteError(db, rc);
        if (db) _sqlite3_close_v2(db);
        throw err;
      }
      return db;
    } finally {
      _free(name);
      if (vfsName) _free(vfsName);
    }
  }

  // Reads one value from `sql`'s first row (for checks on a fresh connection).
  function queryFirst(db, sql) {
    const p = newCString(sql);
    let stmt = 0;
    try {
      Module.HEAP32[scratch >> 2] = 0;
      let rc = _sqlite3_prepare_v2(db, p, -1, scratch, 0);
      if (rc !== SQLITE_OK) throw sqliteError(db, rc);
      stmt = i32(scratch);
      rc = _sqlite3_step(stmt);
      if (rc === SQLITE_ROW) {
        const t = _sqlite3_column_type(stmt, 0);
        if (t === SQLITE_TEXT) return UTF8ToString(_sqlite3_column_text(stmt, 0));
        return _sqlite3_column_double(stmt, 0);
      }
      if (rc !== SQLITE_DONE) throw sqliteError(db, rc);
      return undefined;
    } finally {
      if (stmt) _sqlite3_finalize(stmt);
      _free(p);
    }
  }

  // An in-memory connection over a copy of `bytes` (checked first).
  function openFromBytes(bytes, what) {
    checkDatabaseBytes(bytes, what);
    const p = _sqlite3_malloc(bytes.length);
    if (!p) throw new Error(`${what}: out of memory for ${bytes.length} bytes`);
    Module.HEAPU8.set(bytes, p);
    // A WAL-mode file (header bytes 18/19 = 2) cannot be opened in memory;
    // the copy is switched to rollback mode, as sql.js's export does.
    if (Module.HEAPU8[p + 18] === 2) Module.HEAPU8[p + 18] = 1;
    if (Module.HEAPU8[p + 19] === 2) Module.HEAPU8[p + 19] = 1;
    Module.HEAP32[scratch >> 2] = 0;
    const rc = _pulse_db_from_bytes(p, bytes.length, scratch);
    const db = i32(scratch);
    if (rc !== SQLITE_OK) {
      const err = sqliteError(db, rc);
      if (db) _sqlite3_close_v2(db);
      throw err;
    }
    try {
      // Reading the schema is what makes SQLite look at the file.
      queryFirst(db, 'SELECT count(*) FROM sqlite_schema');
    } catch (e) {
      _sqlite3_close_v2(db);
      throw new Error(`${what} is not a usable SQLite database: ${e.message}`);
    }
    return db;
  }

  // The database image, copied page by page from the page cache straight
  // into the result (wasm/sqlite/sqlite3_wasm.c): one copy, no heap buffer.
  function bytesOf(db) {
    const pages = _pulse_export_begin(db, scratch);
    try {
      if (pages < 0) throw sqliteError(db, _sqlite3_extended_errcode(db) || 1);
      const pageSize = i32(scratch);
      const out = new Uint8Array(pages * pageSize);
      for (let pgno = 1; pgno <= pages; pgno++) {
        const p = _pulse_export_page(db, pgno);
        if (!p) throw new Error(`export: cannot read page ${pgno}`);
        // Read HEAPU8 afresh: the heap may have grown while the page was read.
        out.set(Module.HEAPU8.subarray(p, p + pageSize), (pgno - 1) * pageSize);
      }
      if (out.length > 0) {
        out[18] = 1;
        out[19] = 1;
      }
      return out;
    } finally {
      _pulse_export_end();
    }
  }

  // The bytes given to new Database(bytes), opened after the header check.
  // Its message stays ours, with SQLite's own words for the case added, so
  // code that matches on those (as sql.js users do) still finds them.
  function openGivenBytes(data) {
    const bytes = toBytes(data);
    try {
      checkDatabaseBytes(bytes, 'the given database');
    } catch (e) {
      const err = new Error(`${e.message} (SQLite: file is not a database)`);
      err.code = RESULT_CODE_NAMES[SQLITE_NOTADB];
      err.errcode = SQLITE_NOTADB;
      throw err;
    }
    return openFromBytes(bytes, 'the given database');
  }

  class Database {
    // new Database()            an empty in-memory database
    // new Database(bytes)       an in-memory copy of a database file (checked)
    constructor(data) {
      const db = data == null ? openRaw(':memory:', SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, null) : openGivenBytes(data);
      this.adopt(db, ':memory:');
    }

    // A Database over a file of a registered VFS (the OPFS pool; readOnly: Inspect).
    static openFile(filename, { vfs, create = false, readOnly = false } = {}) {
      const self = Object.create(Database.prototype);
      const flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
      self.adopt(openRaw(filename, flags, vfs), filename);
      return self;
    }

    adopt(db, filename) {
      this.db = db;
      this.filename = filename;
      this.statements = new Map(); // sqlite3_stmt* -> Statement
      this.iterators = new Set(); // unfinished iterateStatements()
      this.functions = new Map(); // "name/arity" -> table slots (sqljs-functions.mjs)
      this.updateHookPointer = 0;
      this.callbackError = null; // {error}: what an update hook threw
    }

    run(sql, params) {
      if (!this.db) throw 'Database closed';
      if (params) {
        const stmt = this.prepare(sql, params);
        try {
          stmt.step();
        } finally {
          stmt.free();
        }
      } else {
        const p = newCString(sql);
        try {
          const rc = _sqlite3_exec(this.db, p, 0, 0, 0);
          if (this.callbackError) this.throwCallbackError();
          this.handleError(rc);
        } finally {
          _free(p);
        }
      }
      return this;
    }

    // The statements of `sql`, prepared one by one as the loop asks:
    //   for (const stmt of db.iterateStatements(sql)) { stmt.step(); ... }
    iterateStatements(sql) {
      if (!this.db) throw new Error('Database closed');
      return new StatementIterator(sql, this);
    }

    exec(sql, params, config) {
      if (!this.db) throw 'Database closed';
      let stmt = null;
      const sqlPtr = newCString(sql);
      const outs = _malloc(8); // [stmt, tail]
      try {
        let cur = sqlPtr;
        const results = [];
        while (Module.HEAPU8[cur] !== 0) {
          Module.HEAP32[outs >> 2] = 0;
          Module.HEAP32[(outs >> 2) + 1] = 0;
          this.handleError(_sqlite3_prepare_v2(this.db, cur, -1, outs, outs + 4));
          const pStmt = i32(outs);
          cur = i32(outs + 4);
          if (pStmt !== 0) {
            let current = null;
            stmt = new Statement(pStmt, this);
            if (params != null) stmt.bind(params);
            while (stmt.step()) {
              if (current === null) {
                current = { columns: stmt.getColumnNames(), values: [] };
                results.push(current);
              }
              current.values.push(stmt.get(null, config));
            }
            stmt.free();
            stmt = null;
          }
        }
        return results;
      } catch (e) {
        if (stmt) stmt.free();
        throw e;
      } finally {
        _free(outs);
        _free(sqlPtr);
      }
    }

    each(sql, params, callback, done, config) {
      if (typeof params === 'function') {
        done = callback;
        callback = params;
        params = undefined;
      }
      const stmt = this.prepare(sql, params);
      try {
        while (stmt.step()) callback(stmt.getAsObject(null, config));
      } finally {
        stmt.free();
      }
      if (typeof done === 'function') return done();
      return undefined;
    }

    prepare(sql, params) {
      if (!this.db) throw 'Database closed';
      const p = newCString(sql);
      try {
        Module.HEAP32[scratch >> 2] = 0;
        this.handleError(_sqlite3_prepare_v2(this.db, p, -1, scratch, 0));
      } finally {
        _free(p);
      }
      const pStmt = i32(scratch);
      if (pStmt === 0) throw 'Nothing to prepare';
      const stmt = new Statement(pStmt, this);
      if (params != null) stmt.bind(params);
      this.statements.set(pStmt, stmt);
      return stmt;
    }

    export() {
      if (!this.db) throw new Error('Database closed');
      return bytesOf(this.db);
    }

    close() {
      if (this.db === null) return;
      for (const stmt of [...this.statements.values()]) stmt.free();
      for (const it of [...this.iterators]) it.finalize();
      this.handleError(_sqlite3_close_v2(this.db));
      this.db = null;
      this.releaseCallbacks();
    }

    handleError(rc) {
      if (rc === SQLITE_OK) return null;
      throw sqliteError(this.db, rc);
    }

    getRowsModified() {
      return _sqlite3_changes(this.db);
    }
  }

  // The core's API over a Database's connection: the Embind facade's JS
  // face (wasm/pulse-post.js), whose errors are Errors with .code.
  const Pulse = Module.Pulse;

  // Full check of a database image: the header rules, then SQLite's
  // integrity_check on an in-memory copy. Throws an Error naming `what`.
  function validateDatabaseBytes(bytes, what = 'the given database') {
    const db = openFromBytes(bytes, what);
    try {
      const result = queryFirst(db, 'PRAGMA integrity_check(1)');
      if (result !== 'ok') throw new Error(`${what} fails SQLite's integrity check: ${result}`);
    } catch (e) {
      if (e.message.startsWith(what)) throw e;
      throw new Error(`${what} fails SQLite's integrity check: ${e.message}`);
    } finally {
      _sqlite3_close_v2(db);
    }
  }

  for (const install of [installUserFunctions, installGuard]) install(Database, lib);
  return Object.assign(Module, { Database, Statement, StatementIterator, Pulse, validateDatabaseBytes, checkDatabaseBytes });
}
