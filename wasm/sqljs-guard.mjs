// A read-only connection and a way to stop a running statement, for the
// Pulse tab's Inspect (web/inspect/). Not sql.js API; added to the same
// Database:
//
//   db.guardReadOnly()               PRAGMA query_only, then an authorizer that
//                                    refuses every write, ATTACH/DETACH,
//                                    transactions and any PRAGMA that could
//                                    change state; prepare() then also refuses
//                                    a statement SQLite itself says would write
//                                    (VACUUM INTO, say)
//   db.progressHandler(n, fn)        fn() every n virtual-machine steps; a
//                                    truthy return stops the statement
//                                    (SQLITE_INTERRUPT); null removes it
//   db.errorOffset()                 the UTF-8 byte offset in the SQL of the
//                                    last error (-1: SQLite does not say)
//
// The connection should also be opened read-only (Database.openFile(...,
// {readOnly: true})): the guard is the second lock, not the only one.
// sqlite3.h's authorizer action codes.
const A = {
  CREATE_INDEX: 1, CREATE_TABLE: 2, CREATE_TEMP_INDEX: 3, CREATE_TEMP_TABLE: 4, CREATE_TEMP_TRIGGER: 5,
  CREATE_TEMP_VIEW: 6, CREATE_TRIGGER: 7, CREATE_VIEW: 8, DELETE: 9, DROP_INDEX: 10, DROP_TABLE: 11,
  DROP_TEMP_INDEX: 12, DROP_TEMP_TABLE: 13, DROP_TEMP_TRIGGER: 14, DROP_TEMP_VIEW: 15, DROP_TRIGGER: 16,
  DROP_VIEW: 17, INSERT: 18, PRAGMA: 19, READ: 20, SELECT: 21, TRANSACTION: 22, UPDATE: 23, ATTACH: 24,
  DETACH: 25, ALTER_TABLE: 26, REINDEX: 27, ANALYZE: 28, CREATE_VTABLE: 29, DROP_VTABLE: 30, FUNCTION: 31,
  SAVEPOINT: 32, RECURSIVE: 33,
};
const SQLITE_OK = 0;
const SQLITE_DENY = 1;
const SQLITE_AUTH = 23;

// Pragmas that only read whatever their argument (it names a table, an
// index or a limit), and those that only read when given no value.
const READ_PRAGMAS = new Set(['table_info', 'table_xinfo', 'table_list', 'index_list', 'index_info', 'index_xinfo',
  'foreign_key_list', 'foreign_key_check', 'integrity_check', 'quick_check', 'database_list', 'collation_list']);
const QUERY_PRAGMAS = new Set(['application_id', 'auto_vacuum', 'cache_size', 'data_version', 'encoding',
  'foreign_keys', 'freelist_count', 'page_count', 'page_size', 'query_only', 'schema_version', 'user_version']);

const SCHEMA_TABLES = /^sqlite_(temp_)?(master|schema)$/i;

// What a refused action is, in words ("DELETE from background_agent_log");
// `sql`: the statement (a write to the schema table is said as the
// statement that makes it: CREATE, DROP, ALTER, ANALYZE).
function refusedWhat({ action, a1, a2 }, sql) {
  const on = (verb) => (a1 ? `${verb} ${a1}` : verb.split(' ')[0]);
  if ((action === A.INSERT || action === A.UPDATE || action === A.DELETE) && SCHEMA_TABLES.test(a1 || '')) {
    const head = String(sql).trim().split('\n')[0];
    return `${head.length > 60 ? `${head.slice(0, 60)}…` : head} would change the ${/temp/i.test(a1) ? 'temporary ' : ''}schema`;
  }
  switch (action) {
    case A.DELETE: return on('DELETE from');
    case A.INSERT: return on('INSERT into');
    case A.UPDATE: return a1 ? `UPDATE of ${a1}${a2 ? `.${a2}` : ''}` : 'UPDATE';
    case A.ATTACH: return a1 ? `ATTACH of ${JSON.stringify(a1)}` : 'ATTACH';
    case A.DETACH: return 'DETACH';
    case A.PRAGMA: return `PRAGMA ${a1}${a2 !== null ? ` = ${a2}` : ''}`;
    case A.TRANSACTION: return `${a1 || 'a'} (a transaction)`;
    case A.SAVEPOINT: return a1 === 'BEGIN' ? `SAVEPOINT ${a2 || ''}`.trim() : `${a1 === 'RELEASE' ? 'RELEASE' : 'ROLLBACK TO'} ${a2 || ''}`.trim();
    case A.ALTER_TABLE: return a2 ? `ALTER TABLE ${a2}` : 'ALTER TABLE';
    case A.REINDEX: return 'REINDEX';
    case A.ANALYZE: return 'ANALYZE';
    default: {
      const name = Object.keys(A).find((k) => A[k] === action) || `action ${action}`;
      return `${name.replace(/_/g, ' ')}${a1 ? ` ${a1}` : ''}`;
    }
  }
}

// The one-line refusal: "Refused: DELETE from t; Inspect only reads …".
function readOnlyError(what) {
  const err = new Error(`Refused: ${what}; Inspect only reads this copy and never changes it`);
  err.code = 'SQLITE_AUTH';
  err.refused = true;
  return err;
}

export function installGuard(Database, lib) {
  const { Module } = lib;
  const { _sqlite3_set_authorizer, _sqlite3_progress_handler, _sqlite3_error_offset, _sqlite3_stmt_readonly } = lib.fns;
  const { UTF8ToString, addFunction, removeFunction } = Module;
  const text = (p) => (p ? UTF8ToString(p) : null);

  Database.prototype.guardReadOnly = function guardReadOnly() {
    if (!this.db) throw new Error('Database closed');
    if (this.authorizerPointer) return this;
    this.run('PRAGMA query_only = 1');
    this.refusal = null;
    this.authorizerPointer = addFunction((user, action, p1, p2) => {
      if (action === A.READ || action === A.SELECT || action === A.FUNCTION || action === A.RECURSIVE) return SQLITE_OK;
      const a1 = text(p1);
      const a2 = text(p2);
      if (action === A.PRAGMA) {
        const name = String(a1).toLowerCase();
        if (READ_PRAGMAS.has(name) || (a2 === null && QUERY_PRAGMAS.has(name))) return SQLITE_OK;
      }
      if (!this.refusal) this.refusal = { action, a1, a2 };
      return SQLITE_DENY;
    }, 'iiiiiii');
    this.handleError(_sqlite3_set_authorizer(this.db, this.authorizerPointer, 0));
    // A statement the authorizer let through that SQLite still marks as a
    // writer (VACUUM, VACUUM INTO, a checkpoint) is refused before it runs.
    const prepare = this.prepare.bind(this);
    this.prepare = (sql, params) => {
      this.refusal = null;
      let stmt;
      try {
        stmt = prepare(sql, params);
      } catch (e) {
        throw this.refusedError(e, sql);
      }
      if (!_sqlite3_stmt_readonly(stmt.stmt)) {
        stmt.free();
        throw readOnlyError(`${String(sql).trim().split(/\s+/)[0].toUpperCase()} would write`);
      }
      return stmt;
    };
    return this;
  };

  // SQLite's "not authorized" as the refusal it was, in one line.
  Database.prototype.refusedError = function refusedError(e, sql = '') {
    if (e && e.errcode === SQLITE_AUTH && this.refusal) return readOnlyError(refusedWhat(this.refusal, sql));
    return e;
  };

  Database.prototype.progressHandler = function progressHandler(steps, fn) {
    if (!this.db) throw new Error('Database closed');
    if (this.progressPointer) {
      _sqlite3_progress_handler(this.db, 0, 0, 0);
      removeFunction(this.progressPointer);
      this.progressPointer = 0;
    }
    if (!fn) return this;
    this.progressPointer = addFunction(() => (fn() ? 1 : 0), 'ii');
    _sqlite3_progress_handler(this.db, steps, this.progressPointer, 0);
    return this;
  };

  Database.prototype.errorOffset = function errorOffset() {
    return this.db ? _sqlite3_error_offset(this.db) : -1;
  };

  const release = Database.prototype.releaseCallbacks;
  Database.prototype.releaseCallbacks = function releaseCallbacks() {
    release.call(this);
    if (this.authorizerPointer) removeFunction(this.authorizerPointer);
    if (this.progressPointer) removeFunction(this.progressPointer);
    this.authorizerPointer = 0;
    this.progressPointer = 0;
  };
}
