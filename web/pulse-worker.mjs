// The dedicated module Worker that owns the Pulse WASM module, the OPFS pool
// and the open database copies. The page never runs SQL itself; it talks to
// this worker with the envelope of SQLite's ext/wasm worker API:
//
//   request   {type, messageId, args}
//   reply     {type, messageId, result}
//   failure   {type: 'error', messageId, result: {operation, message, code?}}
//   progress  {type: 'progress', messageId, loaded, total}   (during import)
//
// Types: init, list, import, importFile, export, delete, open, close, exec, run, call.
// The module is loaded from `./wasm/` next to this file (the server maps
// build/wasm/ there); a `?wasm=<url>` on the worker's URL overrides it.
const wasmBase = new URL(new URL(self.location.href).searchParams.get('wasm') || './wasm/', self.location.href);

let api = null;
let pool = null;
let initError = null;

async function init(args = {}) {
  if (!api) {
    const { initPulse } = await import(new URL('sqljs-api.mjs', wasmBase).href);
    api = await initPulse({ locateFile: (path) => new URL(path, wasmBase).href });
  }
  if (!pool) {
    const { openOpfsPool } = await import(new URL('opfs-pool.mjs', wasmBase).href);
    try {
      pool = await openOpfsPool(api, args);
      initError = null;
    } catch (e) {
      initError = e;
      throw e;
    }
  }
  const version = new api.Pulse(null).call('pulse.version');
  return { opfs: true, copies: pool.list(), pulse: version.pulse, sqlite: version.sqlite };
}

function needPool() {
  if (pool) return pool;
  if (initError) throw initError;
  throw new Error('the Pulse worker is not initialised: send "init" first');
}

function bytesOf(value, what) {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new Error(`${what} must be an ArrayBuffer or Uint8Array`);
}

const handlers = {
  init,
  list: () => ({ copies: needPool().list() }),
  async import({ name, bytes }, post) {
    const p = needPool();
    p.closeDb(name);
    return p.importDb(name, bytesOf(bytes, 'import: "bytes"'), {
      onProgress: (loaded, total) => post({ type: 'progress', loaded, total }),
    });
  },
  // A File or Blob streamed into OPFS (opfs-pool.mjs importFile).
  // With `preview: {method, args, now}`, that core method's result on the
  // File itself comes first, as a progress message {preview}.
  async importFile({ name, file, preview }, post) {
    const p = needPool();
    p.closeDb(name);
    return p.importFile(name, file, {
      onProgress: (loaded, total) => post({ type: 'progress', loaded, total }),
      preview: preview
        ? (db) => post({ type: 'progress', loaded: 0, total: file.size,
          preview: new api.Pulse(db).call(preview.method, preview.args ?? {}, { now: preview.now }) })
        : null,
    });
  },
  export({ name }) {
    const bytes = needPool().exportDb(name);
    return { result: { name, bytes: bytes.buffer }, transfer: [bytes.buffer] };
  },
  delete({ name }) {
    const p = needPool();
    p.closeDb(name);
    return p.deleteDb(name);
  },
  async open({ name, create }) {
    const db = await needPool().openDb(name, { create: !!create });
    return { name, open: !!db.db };
  },
  close({ name } = {}) {
    const p = needPool();
    if (name) p.closeDb(name);
    else for (const n of [...p.openDbs.keys()]) p.closeDb(n);
    return { closed: name || 'all' };
  },
  async exec({ name, sql, params }) {
    const db = await needPool().openDb(name);
    return db.exec(sql, params ?? undefined);
  },
  async run({ name, sql, params }) {
    const db = await needPool().openDb(name);
    db.run(sql, params ?? undefined);
    return { changes: db.getRowsModified() };
  },
  async call({ name, method, args, now }) {
    const db = name ? await needPool().openDb(name) : null;
    return new api.Pulse(db).call(method, args ?? {}, { now });
  },
};

// Messages are handled one at a time, in order: a database is never used by
// two operations at once.
let queue = Promise.resolve();

self.onmessage = (event) => {
  const { type, messageId, args } = event.data || {};
  queue = queue.then(async () => {
    const post = (msg, transfer) => self.postMessage({ ...msg, messageId }, transfer || []);
    try {
      const handler = Object.hasOwn(handlers, type) ? handlers[type] : null;
      if (!handler) throw new Error(`unknown message type ${JSON.stringify(type)}`);
      let result = await handler(args || {}, post);
      let transfer = [];
      if (type === 'export') ({ result, transfer } = result);
      post({ type, result }, transfer);
    } catch (e) {
      const message = typeof e === 'string' ? e : e && e.message ? e.message : String(e);
      const result = { operation: type, message };
      if (e && e.code) result.code = e.code;
      post({ type: 'error', result });
    }
  });
};
