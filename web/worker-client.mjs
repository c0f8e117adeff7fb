// The page's side of the Pulse worker (web/pulse-worker.mjs): a "promiser"
// in the style of SQLite's ext/wasm, one promise per request.
//
//   const pulse = createPulseClient();
//   const { copies } = await pulse.init();
//   await pulse.import('db.sqlite', file, (loaded, total) => ...);
//   const rows = await pulse.exec('db.sqlite', 'SELECT ...', [params]);
//
// A failure rejects with Error(message) carrying .operation and .code.
// One message from the worker: progress for a waiting request, or its
// answer (an error becomes an Error with .operation and .code).
function settle(pending, msg) {
  const waiting = pending.get(msg.messageId);
  if (!waiting) return;
  if (msg.type === 'progress') {
    if (waiting.onProgress) waiting.onProgress(msg.loaded, msg.total, msg);
    return;
  }
  pending.delete(msg.messageId);
  if (msg.type === 'error') {
    const err = new Error(msg.result.message);
    err.operation = msg.result.operation;
    if (msg.result.code) err.code = msg.result.code;
    waiting.reject(err);
  } else {
    waiting.resolve(msg.result);
  }
}

async function toArrayBuffer(data) {
  if (data instanceof ArrayBuffer) return data.slice(0);
  if (ArrayBuffer.isView(data)) return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  if (data && typeof data.arrayBuffer === 'function') return data.arrayBuffer(); // File, Blob
  throw new TypeError('import: the data must be a File, Blob, ArrayBuffer or Uint8Array');
}

export function createPulseClient(workerUrl = new URL('./pulse-worker.mjs', import.meta.url)) {
  const worker = new Worker(workerUrl, { type: 'module' });
  const pending = new Map();
  let nextId = 1;
  let closed = false;

  worker.onmessage = (event) => settle(pending, event.data);
  // A worker that cannot even load (missing module, syntax error) fails
  // every request rather than leaving it hanging.
  worker.onerror = (event) => {
    event.preventDefault?.();
    const err = new Error(`the Pulse worker failed: ${event.message || 'it could not be loaded'}`);
    for (const { reject } of pending.values()) reject(err);
    pending.clear();
  };

  function post(type, args = {}, transfer = [], onProgress = null) {
    if (closed) return Promise.reject(new Error('the Pulse client is closed'));
    const messageId = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(messageId, { resolve, reject, onProgress });
      worker.postMessage({ type, messageId, args }, transfer);
    });
  }

  return {
    // → {opfs: true, copies: [{name, size, importedAt, open}], pulse, sqlite}
    init: (options = {}) => post('init', options),
    // → {copies}
    list: () => post('list'),
    // → {name, size}; onProgress(loaded, total) while it is written
    async import(name, data, onProgress) {
      const bytes = await toArrayBuffer(data);
      return post('import', { name, bytes }, [bytes], onProgress);
    },
    // → {name, ok, problem?, restored?}: SQLite's full check of an imported copy
    // (the worker runs it after answering the import; this waits for it)
    check: (name) => post('check', { name }),
    // → {name, size}: a File streamed into OPFS by the worker (no copy here), with progress;
    // preview {method, args, now}: onProgress(0, total, {preview}) first, computed on the File
    importFile: (name, file, onProgress, preview) => post('importFile', { name, file, preview }, [], onProgress),
    // → {readable, pulse, workflow, tables, problem}: the File read, never written
    inspectFile: (file) => post('inspectFile', { file }),
    // → {name, bytes: Uint8Array}
    export: (name) => post('export', { name }).then((r) => ({ name: r.name, bytes: new Uint8Array(r.bytes) })),
    delete: (name) => post('delete', { name }),
    // → {name, open}: creates an empty copy with {create: true}
    open: (name, options = {}) => post('open', { name, ...options }),
    // → sql.js exec result [{columns, values}]
    exec: (name, sql, params) => post('exec', { name, sql, params }),
    // → {changes}
    run: (name, sql, params) => post('run', { name, sql, params }),
    // → the core API method's result (see core/api.h); now: RFC 3339, Date or seconds
    call: (name, method, args = {}, now) => post('call', { name, method, args, now: now instanceof Date ? now.toISOString() : now }),
    // → {file, headerBytes}: the copy as a File, read by Inspect's worker
    fileOf: (name) => post('fileOf', { name }),
    // Closes one open copy (or all without a name); it reopens on next use.
    closeDb: (name) => post('close', name ? { name } : {}),
    // Ends the worker (and frees the pool for another tab).
    close() {
      closed = true;
      worker.terminate();
      const err = new Error('the Pulse client is closed');
      for (const { reject } of pending.values()) reject(err);
      pending.clear();
    },
  };
}
