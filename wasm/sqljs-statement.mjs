// The sql.js-compatible Statement and StatementIterator over one loaded
// module. `lib` is the module's SQLite layer from sqljs-api.mjs (raw
// exports, scratch memory, string helpers).
import { RESULT_CODES } from './result-codes.mjs';

export const { SQLITE_OK, SQLITE_ROW, SQLITE_DONE } = RESULT_CODES;
// Fundamental datatypes (sqlite3_column_type, sqlite3_value_type).
export const SQLITE_INTEGER = 1;
export const SQLITE_FLOAT = 2;
export const SQLITE_TEXT = 3;
export const SQLITE_BLOB = 4;
export const SQLITE_TRANSIENT = -1;

export function defineStatement(lib) {
  const { Module, newCString, stringScratch, STRING_SCRATCH_BYTES } = lib;
  const {
    _malloc, _free, _sqlite3_step, _sqlite3_reset, _sqlite3_clear_bindings, _sqlite3_finalize, _sqlite3_sql,
    _sqlite3_normalized_sql, _sqlite3_bind_text, _sqlite3_bind_blob, _sqlite3_bind_double, _sqlite3_bind_int,
    _sqlite3_bind_int64, _sqlite3_bind_parameter_index, _sqlite3_data_count, _sqlite3_column_count,
    _sqlite3_column_name, _sqlite3_column_type, _sqlite3_column_double, _sqlite3_column_text, _sqlite3_column_blob,
    _sqlite3_column_bytes, _sqlite3_prepare_v2,
  } = lib.fns;
  const { UTF8ToString, stringToUTF8, lengthBytesUTF8 } = Module;

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
      // A JS update hook that threw during this step: its error, now that
      // SQLite has returned.
      if (this.db.callbackError) this.db.throwCallbackError();
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

    // SQLite's normalized text of the statement (literals replaced by ?).
    getNormalizedSQL() {
      return UTF8ToString(_sqlite3_normalized_sql(this.stmt));
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

  // The statements of a multi-statement string, prepared one at a time as
  // the caller iterates (Database.iterateStatements). The previous one is
  // freed when the next is asked for. The SQL copy lives in the heap until
  // the end, an error or the database's close().
  class StatementIterator {
    constructor(sql, db) {
      this.db = db;
      this.sqlPtr = newCString(sql);
      this.nextSqlPtr = this.sqlPtr;
      this.remaining = null;
      this.activeStatement = null;
      db.iterators.add(this);
    }

    next() {
      if (this.sqlPtr === 0) return { done: true };
      if (this.activeStatement !== null) {
        this.activeStatement.free();
        this.activeStatement = null;
      }
      if (!this.db.db) {
        this.finalize();
        throw new Error('Database closed');
      }
      const outs = lib.scratch;
      Module.HEAP32[outs >> 2] = 0;
      Module.HEAP32[(outs >> 2) + 1] = 0;
      const rc = _sqlite3_prepare_v2(this.db.db, this.nextSqlPtr, -1, outs, outs + 4);
      if (rc !== SQLITE_OK) {
        this.finalize();
        this.db.handleError(rc);
      }
      const pStmt = Module.HEAP32[outs >> 2];
      this.nextSqlPtr = Module.HEAP32[(outs >> 2) + 1];
      if (pStmt === 0) {
        this.finalize();
        return { done: true };
      }
      this.activeStatement = new Statement(pStmt, this.db);
      this.db.statements.set(pStmt, this.activeStatement);
      return { value: this.activeStatement, done: false };
    }

    // The SQL not prepared yet (after an error: from the failing statement on).
    getRemainingSQL() {
      if (this.remaining !== null) return this.remaining;
      return UTF8ToString(this.nextSqlPtr);
    }

    finalize() {
      if (this.sqlPtr === 0) return;
      this.remaining = UTF8ToString(this.nextSqlPtr);
      _free(this.sqlPtr);
      this.sqlPtr = 0;
      this.nextSqlPtr = 0;
      this.db.iterators.delete(this);
    }

    [Symbol.iterator]() {
      return this;
    }
  }

  return { Statement, StatementIterator };
}
