// The JS face of the Pulse WASM module: a sql.js-compatible Database and
// Statement over SQLite's C API (exported functions, called directly as
// sql.js does), and the Pulse facade over the core's API table.
//
//   const { Database, Pulse } = await initPulse();            // browser/worker
//   const { Database } = await initPulse({ wasmBinary });     // Node (pitfall 4)
//
// Behaviour follows sql.js 1.x (tests/node/sqljs_compat.test.mjs runs one
// script against both and compares), with these deliberate differences:
// `new Database(bytes)` checks the bytes at once and throws an Error naming
// the problem for empty, truncated or non-SQLite input (sql.js opens them and
// fails later, or treats empty as new); `export()` leaves prepared statements
// usable (sql.js frees them); create_function, create_aggregate, updateHook,
// iterateStatements and getNormalizedSQL are not provided.
import createPulseModule from './pulse.mjs';
import { RESULT_CODE_NAMES } from './result-codes.mjs';
import { readSqliteHeader } from './sqlite-header.mjs';

const SQLITE_OK = 0;
const SQLITE_ROW = 100;
const SQLITE_DONE = 101;
const SQLITE_INTEGER = 1;
const SQLITE_FLOAT = 2;
const SQLITE_TEXT = 3;
const SQLITE_BLOB = 4;
const SQLITE_OPEN_READWRITE = 0x2;
const SQLITE_OPEN_CREATE = 0x4;
const SQLITE_TRANSIENT = -1;
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

// Loads the module and returns the classes bound to it. Options:
// wasmBinary (bytes, for Node), locateFile (where pulse.wasm is), and any
// other Emscripten Module option.
export async function initPulse(options = {}) {
  const moduleOptions = { ...options };
  if (!moduleOptions.wasmBinary && !moduleOptions.locateFile) {
    moduleOptions.locateFile = (path) => new URL(path, import.meta.url).href;
  }
  const Module = await createPulseModule(moduleOptions);
  return bindApi(Module);
}

// The classes over an already-loaded module (one set per module instance).
export function bindApi(Module) {
  // Emscripten 3.1's Module._f is a wrapper that calls the wasm export
  // through .apply and replaces itself only on Module; held in a local it
  // would stay slow forever. Look up the export it forwards to instead.
  const direct = (fn) => {
    const m = /\["asm"\]\["([^"]+)"\]/.exec(Function.prototype.toString.call(fn));
    const raw = m && Module.asm ? Module.asm[m[1]] : null;
    return typeof raw === 'function' ? raw : fn;
  };
  const fns = {};
  for (const key of Object.keys(Module)) {
    if (key.startsWith('_sqlite3_') || key.startsWith('_pulse_') || key === '_malloc' || key === '_free') {
      fns[key] = direct(Module[key]);
    }
  }
  const {
    _malloc, _free, _sqlite3_open_v2, _sqlite3_close_v2, _sqlite3_errmsg, _sqlite3_errstr,
    _sqlite3_extended_errcode, _sqlite3_exec, _sqlite3_changes, _sqlite3_prepare_v2, _sqlite3_step,
    _sqlite3_reset, _sqlite3_clear_bindings, _sqlite3_finalize, _sqlite3_sql, _sqlite3_bind_text,
    _sqlite3_bind_blob, _sqlite3_bind_double, _sqlite3_bind_int, _sqlite3_bind_int64,
    _sqlite3_bind_parameter_index, _sqlite3_data_count, _sqlite3_column_count, _sqlite3_column_name,
    _sqlite3_column_type, _sqlite3_column_double, _sqlite3_column_text, _sqlite3_column_blob,
    _sqlite3_column_bytes, _sqlite3_malloc, _sqlite3_free, _pulse_db_from_bytes, _pulse_db_to_bytes, _pulse_export_begin, _pulse_export_page,
    _pulse_export_end,
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

  class Statement {
    constructor(stmt, db) {
      this.stmt = stmt;
      this.db = db;
      this.pos = 1;
      this.allocatedmem = [];
      // True while the statement is reset with no bindings: bind() can skip
      // the reset sql.js always does (run() has just done it).
      this.clean = true;
    }

    bind(values) {
      if (!this.stmt) throw 'Statement closed';
      if (!this.clean) this.reset();
      this.clean = false;
      if (Array.isArray(values)) return this.bindFromArray(values);
      if (values != null && typeof values === 'object') return this.bindFromObject(values);
      return true;
    }

    step() {
      if (!this.stmt) throw 'Statement closed';
      this.pos = 1;
      this.clean = false;
      const ret = _sqlite3_step(this.stmt);
      if (ret === SQLITE_ROW) return true;
      if (ret === SQLITE_DONE) return false;
      throw this.db.handleError(ret);
    }

    getNumber(pos) {
      if (pos == null) pos = this.pos++;
      return _sqlite3_column_double(this.stmt, pos);
    }

    getBigInt(pos) {
      if (pos == null) pos = this.pos++;
      return BigInt(this.getString(pos));
    }

    getString(pos) {
      if (pos == null) pos = this.pos++;
      const ptr = _sqlite3_column_text(this.stmt, pos);
      const size = _sqlite3_column_bytes(this.stmt, pos);
      return UTF8ToString(ptr, size);
    }

    getBlob(pos) {
      if (pos == null) pos = this.pos++;
      const size = _sqlite3_column_bytes(this.stmt, pos);
      const ptr = _sqlite3_column_blob(this.stmt, pos);
      return Module.HEAPU8.slice(ptr, ptr + size);
    }

    get(params, config) {
      config = config || {};
      if (params != null && this.bind(params)) this.step();
      const stmt = this.stmt;
      const out = [];
      const n = _sqlite3_data_count(stmt);
      for (let i = 0; i < n; i++) {
        switch (_sqlite3_column_type(stmt, i)) {
          case SQLITE_INTEGER:
            out.push(config.useBigInt ? this.getBigInt(i) : _sqlite3_column_double(stmt, i));
            break;
          case SQLITE_FLOAT:
            out.push(_sqlite3_column_double(stmt, i));
            break;
          case SQLITE_TEXT:
            out.push(this.getString(i));
            break;
          case SQLITE_BLOB:
            out.push(this.getBlob(i));
            break;
          default:
            out.push(null);
        }
      }
      return out;
    }

    getColumnNames() {
      const out = [];
      const n = _sqlite3_column_count(this.stmt);
      for (let i = 0; i < n; i++) out.push(UTF8ToString(_sqlite3_column_name(this.stmt, i)));
      return out;
    }

    getAsObject(params, config) {
      const values = this.get(params, config);
      const names = this.getColumnNames();
      const row = {};
      for (let i = 0; i < names.length; i++) row[names[i]] = values[i];
      return row;
    }

    getSQL() {
      return UTF8ToString(_sqlite3_sql(this.stmt));
    }

    run(values) {
      if (values != null) this.bind(values);
      this.step();
      return this.reset();
    }

    bindString(string, pos) {
      if (pos == null) pos = this.pos++;
      // Short strings go through one reused buffer and SQLite copies them
      // (SQLITE_TRANSIENT): no malloc/free per value on the hot insert path.
      if (string.length * 3 < STRING_SCRATCH_BYTES) {
        const len = stringToUTF8(string, stringScratch, STRING_SCRATCH_BYTES);
        this.db.handleError(_sqlite3_bind_text(this.stmt, pos, stringScratch, len, SQLITE_TRANSIENT));
        return true;
      }
      const len = lengthBytesUTF8(string);
      const p = _malloc(len + 1);
      stringToUTF8(string, p, len + 1);
      this.allocatedmem.push(p);
      this.db.handleError(_sqlite3_bind_text(this.stmt, pos, p, len, 0));
      return true;
    }

    bindBlob(array, pos) {
      if (pos == null) pos = this.pos++;
      const p = _malloc(array.length);
      Module.HEAP8.set(array, p);
      this.allocatedmem.push(p);
      this.db.handleError(_sqlite3_bind_blob(this.stmt, pos, p, array.length, 0));
      return true;
    }

    bindNumber(num, pos) {
      if (pos == null) pos = this.pos++;
      const rc = num === (num | 0) ? _sqlite3_bind_int(this.stmt, pos, num) : _sqlite3_bind_double(this.stmt, pos, num);
      this.db.handleError(rc);
      return true;
    }

    bindBigInt(num, pos) {
      if (pos == null) pos = this.pos++;
      if (BigInt.asIntN(64, num) !== num) {
        throw new RangeError(`BigInt value is out of range for a 64-bit integer: ${num}`);
      }
      // 64-bit arguments arrive as (low, high) 32-bit halves in this build.
      const rc = _sqlite3_bind_int64(this.stmt, pos, Number(BigInt.asIntN(32, num)), Number(num >> 32n));
      this.db.handleError(rc);
      return true;
    }

    bindNull(pos) {
      if (pos == null) pos = this.pos++;
      return _sqlite3_bind_blob(this.stmt, pos, 0, 0, 0) === SQLITE_OK;
    }

    bindValue(val, pos) {
      if (pos == null) pos = this.pos++;
      switch (typeof val) {
        case 'string':
          return this.bindString(val, pos);
        case 'number':
          return this.bindNumber(val + 0, pos);
        case 'bigint':
          return this.bindBigInt(val, pos);
        case 'boolean':
          return this.bindNumber(val + 0, pos);
        case 'object':
          if (val === null) return this.bindNull(pos);
          if (val.length != null) return this.bindBlob(val, pos);
          break;
        default:
          break;
      }
      throw `Wrong API use : tried to bind a value of an unknown type (${val}).`;
    }

    bindFromObject(valuesObj) {
      for (const name of Object.keys(valuesObj)) {
        const p = newCString(name);
        const num = _sqlite3_bind_parameter_index(this.stmt, p);
        _free(p);
        if (num !== 0) this.bindValue(valuesObj[name], num);
      }
      return true;
    }

    bindFromArray(values) {
      for (let i = 0; i < values.length; i++) this.bindValue(values[i], i + 1);
      return true;
    }

    reset() {
      this.freemem();
      const ok = _sqlite3_clear_bindings(this.stmt) === SQLITE_OK && _sqlite3_reset(this.stmt) === SQLITE_OK;
      this.clean = true;
      return ok;
    }

    freemem() {
      let p;
      while ((p = this.allocatedmem.pop()) !== undefined) _free(p);
    }

    free() {
      this.freemem();
      const ok = _sqlite3_finalize(this.stmt) === SQLITE_OK;
      this.db.statements.delete(this.stmt);
      this.stmt = 0;
      return ok;
    }
  }

  class Database {
    // new Database()            an empty in-memory database
    // new Database(bytes)       an in-memory copy of a database file (checked)
    constructor(data) {
      this.statements = new Map();
      this.filename = ':memory:';
      if (data == null) {
        this.db = openRaw(':memory:', SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, null);
      } else {
        this.db = openFromBytes(toBytes(data), 'the given database');
      }
    }

    // A Database over a file of a registered VFS (the OPFS pool uses this).
    static openFile(filename, { vfs, create = false } = {}) {
      const self = Object.create(Database.prototype);
      self.statements = new Map();
      self.filename = filename;
      const flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
      self.db = openRaw(filename, flags, vfs);
      return self;
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
          this.handleError(_sqlite3_exec(this.db, p, 0, 0, 0));
        } finally {
          _free(p);
        }
      }
      return this;
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
      this.handleError(_sqlite3_close_v2(this.db));
      this.db = null;
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

  return { Database, Statement, Pulse, Module, validateDatabaseBytes, checkDatabaseBytes };
}
