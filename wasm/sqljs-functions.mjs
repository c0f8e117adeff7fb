// JS callbacks into SQLite for the sql.js-compatible Database: scalar
// functions (create_function), aggregates (create_aggregate) and the update
// hook. Each callback is a JS function placed in the module's function table
// (addFunction; the build allows the table to grow) and removed again when
// it is replaced or its database closes, so slots are reused, not leaked.
//
// Values follow sql.js: SQL integers and reals arrive as numbers, text as
// strings, blobs as Uint8Array, NULL as null; a returned number is a REAL,
// a boolean an INTEGER 0/1, a string TEXT, an array-like a BLOB, null or
// undefined NULL. A JS exception in a callback becomes the SQL error that
// the running statement throws.
import {
  SQLITE_OK, SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_TRANSIENT,
} from './sqljs-statement.mjs';

const SQLITE_UTF8 = 1;
const SQLITE_DELETE = 9;
const SQLITE_INSERT = 18;
const SQLITE_UPDATE = 23;
const UPDATE_OPERATIONS = { [SQLITE_INSERT]: 'insert', [SQLITE_UPDATE]: 'update', [SQLITE_DELETE]: 'delete' };

export function installUserFunctions(Database, lib) {
  const { Module, stringScratch, STRING_SCRATCH_BYTES } = lib;
  const {
    _malloc, _free, _sqlite3_create_function_v2, _sqlite3_value_type, _sqlite3_value_double, _sqlite3_value_text,
    _sqlite3_value_bytes, _sqlite3_value_blob, _sqlite3_result_double, _sqlite3_result_int, _sqlite3_result_null,
    _sqlite3_result_text, _sqlite3_result_blob, _sqlite3_result_error, _sqlite3_aggregate_context,
    _sqlite3_update_hook,
  } = lib.fns;
  const { UTF8ToString, stringToUTF8, lengthBytesUTF8, addFunction, removeFunction } = Module;

  // The heap as 32-bit words, re-read only when memory growth has replaced
  // the buffer (a detached view has length 0): Module.HEAP32 is a lookup on
  // a large object, paid per argument otherwise.
  let heap32 = Module.HEAP32;
  const pointerAt = (argv, i) => {
    if (heap32.length === 0) heap32 = Module.HEAP32;
    return heap32[(argv >> 2) + i];
  };

  function valueOf(v) {
    switch (_sqlite3_value_type(v)) {
      case SQLITE_INTEGER:
      case SQLITE_FLOAT:
        return _sqlite3_value_double(v);
      case SQLITE_TEXT: {
        const p = _sqlite3_value_text(v);
        return UTF8ToString(p, _sqlite3_value_bytes(v));
      }
      case SQLITE_BLOB: {
        const p = _sqlite3_value_blob(v);
        return Module.HEAPU8.slice(p, p + _sqlite3_value_bytes(v));
      }
      default:
        return null;
    }
  }

  function argsOf(argc, argv) {
    const args = new Array(argc);
    for (let i = 0; i < argc; i++) args[i] = valueOf(pointerAt(argv, i));
    return args;
  }

  // func's value for SQLite's arguments; the common small counts without
  // building an array.
  function callWith(func, argc, argv) {
    switch (argc) {
      case 0:
        return func();
      case 1:
        return func(valueOf(pointerAt(argv, 0)));
      case 2:
        return func(valueOf(pointerAt(argv, 0)), valueOf(pointerAt(argv, 1)));
      default:
        return func(...argsOf(argc, argv));
    }
  }

  // Calls `fill(p, n)` with `bytes` bytes of memory for an SQLite call that
  // copies them (SQLITE_TRANSIENT): the scratch buffer when it fits.
  function withBuffer(bytes, fill) {
    if (bytes <= STRING_SCRATCH_BYTES) return fill(stringScratch);
    const p = _malloc(bytes);
    try {
      return fill(p);
    } finally {
      _free(p);
    }
  }

  function resultText(cx, s, setter) {
    const max = s.length * 3 < STRING_SCRATCH_BYTES ? STRING_SCRATCH_BYTES : lengthBytesUTF8(s) + 1;
    withBuffer(max, (p) => setter(cx, p, stringToUTF8(s, p, max), SQLITE_TRANSIENT));
  }

  function resultError(cx, error) {
    const message = error instanceof Error ? error.message : String(error);
    resultText(cx, message, (c, p, n) => _sqlite3_result_error(c, p, n));
  }

  function setResult(cx, result) {
    switch (typeof result) {
      case 'boolean':
        _sqlite3_result_int(cx, result ? 1 : 0);
        return;
      case 'number':
        _sqlite3_result_double(cx, result);
        return;
      case 'string':
        resultText(cx, result, _sqlite3_result_text);
        return;
      case 'object':
        if (result === null) break;
        if (result.length != null) {
          withBuffer(result.length, (p) => {
            Module.HEAPU8.set(result, p);
            _sqlite3_result_blob(cx, p, result.length, SQLITE_TRANSIENT);
          });
          return;
        }
        resultError(cx, `Wrong API use : tried to return a value of an unknown type (${result}).`);
        return;
      default:
        break;
    }
    _sqlite3_result_null(cx);
  }

  // SQLite names a function by its case-insensitive name and argument count.
  const keyOf = (name, arity) => `${String(name).toLowerCase()}/${arity}`;

  // Registers `pointers` (table slots) under `name`/`arity`, replacing and
  // releasing what was there; SQLite gets xFunc or xStep+xFinal.
  function register(db, name, arity, pointers, [xFunc, xStep, xFinal]) {
    const key = keyOf(name, arity);
    const old = db.functions.get(key);
    const p = lib.newCString(String(name));
    let rc;
    try {
      rc = _sqlite3_create_function_v2(db.db, p, arity, SQLITE_UTF8, 0, xFunc, xStep, xFinal, 0);
    } finally {
      _free(p);
    }
    if (rc !== SQLITE_OK) {
      pointers.forEach(removeFunction);
      db.handleError(rc);
    }
    // SQLite now calls the new pointers; the old ones can go.
    if (old) old.forEach(removeFunction);
    db.functions.set(key, pointers);
    return db;
  }

  Database.prototype.create_function = function create_function(name, func) {
    if (!this.db) throw new Error('Database closed');
    if (typeof func !== 'function') throw new TypeError(`create_function("${name}"): the second argument must be a function`);
    const xFunc = addFunction((cx, argc, argv) => {
      try {
        setResult(cx, callWith(func, argc, argv));
      } catch (e) {
        resultError(cx, e);
      }
    }, 'viii');
    return register(this, name, func.length, [xFunc], [xFunc, 0, 0]);
  };

  // aggregate: {init?() -> state, step(state, ...values) -> state, finalize?(state) -> result}.
  Database.prototype.create_aggregate = function create_aggregate(name, aggregate) {
    if (!this.db) throw new Error('Database closed');
    const step = aggregate && aggregate.step;
    if (typeof step !== 'function') throw `An aggregate function must have a step function in ${name}`;
    const init = aggregate.init || (() => null);
    const finalize = aggregate.finalize || ((state) => state);
    // One state per running aggregate, keyed by SQLite's context memory for it.
    const states = new Map();
    const stateOf = (p) => (states.has(p) ? states.get(p) : init());
    const xStep = addFunction((cx, argc, argv) => {
      const p = _sqlite3_aggregate_context(cx, 1);
      try {
        states.set(p, step(stateOf(p), ...argsOf(argc, argv)));
      } catch (e) {
        states.delete(p);
        resultError(cx, e);
      }
    }, 'viii');
    const xFinal = addFunction((cx) => {
      const p = _sqlite3_aggregate_context(cx, 1);
      try {
        setResult(cx, finalize(stateOf(p)));
      } catch (e) {
        resultError(cx, e);
      } finally {
        states.delete(p);
      }
    }, 'vi');
    return register(this, name, step.length - 1, [xStep, xFinal], [0, xStep, xFinal]);
  };

  // callback(operation, databaseName, tableName, rowId) after each row
  // change ('insert' | 'update' | 'delete'); null removes it. A callback that
  // throws: the statement finishes, then its step() or run() throws that error.
  Database.prototype.updateHook = function updateHook(callback) {
    if (!this.db) throw new Error('Database closed');
    if (this.updateHookPointer) {
      _sqlite3_update_hook(this.db, 0, 0);
      removeFunction(this.updateHookPointer);
      this.updateHookPointer = 0;
    }
    if (!callback) return this;
    // The row id is an i64: with BigInt integration it arrives as a BigInt.
    this.updateHookPointer = addFunction((arg, op, dbName, tableName, rowId) => {
      try {
        if (rowId > BigInt(Number.MAX_SAFE_INTEGER) || rowId < BigInt(Number.MIN_SAFE_INTEGER)) {
          throw new RangeError(`updateHook: row id ${rowId} does not fit in a JS number`);
        }
        callback(UPDATE_OPERATIONS[op], UTF8ToString(dbName), UTF8ToString(tableName), Number(rowId));
      } catch (e) {
        if (!this.callbackError) this.callbackError = { error: e };
      }
    }, 'viiiij');
    _sqlite3_update_hook(this.db, this.updateHookPointer, 0);
    return this;
  };

  // Releases every table slot the database holds, once its connection is
  // closed (nothing can call them any more).
  Database.prototype.releaseCallbacks = function releaseCallbacks() {
    for (const pointers of this.functions.values()) pointers.forEach(removeFunction);
    this.functions.clear();
    if (this.updateHookPointer) removeFunction(this.updateHookPointer);
    this.updateHookPointer = 0;
  };

  Database.prototype.throwCallbackError = function throwCallbackError() {
    const { error } = this.callbackError;
    this.callbackError = null;
    throw error;
  };
}
