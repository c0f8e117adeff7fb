// sql.js's worker protocol over the Pulse module, for code written against
// sql.js's worker.sql-wasm.js. One database per worker.
//
//   request  {id, action: 'open', buffer?} | {id, action: 'exec', sql, params?, config?}
//            | {id, action: 'each', sql, params?, config?} | {id, action: 'getRowsModified'}
//            | {id, action: 'export'} | {id, action: 'close'}
//   reply    {id, ready: true} | {id, results} | {id, row, finished: false} ... {id, finished: true}
//            | {id, rowsModified} | {id, buffer} | {id} | {id, error}
//
// Browser: new Worker(new URL('sqljs-worker.mjs', base), { type: 'module' })
// serves itself. Node (worker_threads): serveSqlJsWorker(parentPort, init),
// with an init that passes wasmBinary (Node cannot fetch a file path).
import { initPulse } from './sqljs-api.mjs';

export function serveSqlJsWorker(port, init = () => initPulse()) {
  let db = null;
  const moduleReady = Promise.resolve().then(init);

  function open(SQL, buffer) {
    if (db) db.close();
    db = new SQL.Database(buffer ? new Uint8Array(buffer) : undefined);
    return db;
  }

  function answer(SQL, data, post) {
    const { id, action, sql, params } = data;
    const config = data.config || {};
    switch (action) {
      case 'open':
        open(SQL, data.buffer);
        return post({ id, ready: true });
      case 'exec':
        if (!sql) throw new Error('exec: Missing query string');
        return post({ id, results: (db || open(SQL)).exec(sql, params, config) });
      case 'each':
        (db || open(SQL)).each(sql, params, (row) => post({ id, row, finished: false }), () => {}, config);
        return post({ id, finished: true });
      case 'getRowsModified':
        return post({ id, rowsModified: db ? db.getRowsModified() : 0 });
      case 'export': {
        if (!db) throw new Error('export: no open database');
        const buffer = db.export();
        return post({ id, buffer }, [buffer.buffer]);
      }
      case 'close':
        if (db) db.close();
        db = null;
        return post({ id });
      default:
        throw new Error(`Invalid action : ${action}`);
    }
  }

  const onMessage = (data) => {
    const post = (message, transfer) => port.postMessage(message, transfer);
    moduleReady
      .then((SQL) => answer(SQL, data || {}, post))
      .catch((e) => post({ id: data && data.id, error: e && e.message !== undefined ? e.message : String(e) }));
  };
  if (typeof port.on === 'function') port.on('message', onMessage);
  else port.addEventListener('message', (event) => onMessage(event.data));
}

// A browser worker started on this file serves itself.
if (typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope) {
  serveSqlJsWorker(globalThis);
}
