// Inspect's dedicated worker: its own instance of the WASM module and one
// read-only connection over the database File the page hands it (a copy's
// File from the Pulse worker's pool, read with FileReaderSync). It is apart
// from the Pulse worker on purpose: a long query here never holds up the
// cards or another tab, and stopping it never touches the pool.
//
//   request  {id, type, args}        reply {id, result} | {id, error: {message, line?, column?, cancelled?, refused?, stale?}}
//   types    init {flag?}, open {file, headerBytes}, objects, exactRows {name}, page {view}, count {table, filters},
//            facet {table, col, filters}, query {sql, explain}, export {table?, view?, sql?, format}
//
// Cancel: the page writes the running request's id into `flag` (a
// SharedArrayBuffer, when the page is cross-origin isolated); the progress
// handler sees it within a few thousand steps and SQLite stops the
// statement. Without a shared flag the page ends this worker instead
// (web/inspect/client.mjs) and starts a new one.
import { InspectEngine } from './engine.mjs';

const wasmBase = new URL(new URL(self.location.href).searchParams.get('wasm') || '../wasm/', self.location.href);

let engine = null;
let flag = null;
let running = 0;

async function init(args) {
  flag = args.flag ? new Int32Array(args.flag) : null;
  if (engine) return { ready: true };
  const { initPulse } = await import(new URL('sqljs-api.mjs', wasmBase).href);
  const { openFileDatabase } = await import(new URL('opfs-pool.mjs', wasmBase).href);
  const api = await initPulse({ locateFile: (path) => new URL(path, wasmBase).href });
  engine = new InspectEngine(api, (file, options) => openFileDatabase(api, file, options),
    () => flag !== null && Atomics.load(flag, 0) === running);
  return { ready: true, shared: !!flag };
}

function need() {
  if (!engine) throw new Error('the Inspect worker is not initialised');
  return engine;
}

const handlers = {
  init,
  open: ({ file, headerBytes }) => need().open(file, { headerBytes }),
  objects: () => need().listObjects(),
  exactRows: ({ name }) => need().exactRows(name),
  page: ({ view }) => need().page(view),
  count: ({ table, filters }) => need().count(table, filters),
  facet: ({ table, col, filters }) => need().facet(table, col, filters),
  query: ({ sql, explain }) => need().query(sql, { explain: !!explain }),
  export: (args) => need().exportRows(args),
};

function errorOf(e) {
  const out = { message: (e && e.message) || String(e) };
  for (const k of ['line', 'column', 'cancelled', 'refused']) if (e && e[k] !== undefined) out[k] = e[k];
  // The File changed after it was taken (the copy was written): the page
  // takes it again and repeats the request.
  if (engine && engine.handle && engine.handle.failure === 'NotReadableError') out.stale = true;
  return out;
}

// Requests run one at a time, in order (open is the only one that waits).
let queue = Promise.resolve();
self.onmessage = (event) => {
  const { id, type, args } = event.data || {};
  queue = queue.then(async () => {
    running = id;
    try {
      const handler = Object.hasOwn(handlers, type) ? handlers[type] : null;
      if (!handler) throw new Error(`unknown request ${JSON.stringify(type)}`);
      self.postMessage({ id, result: await handler(args || {}) });
    } catch (e) {
      self.postMessage({ id, error: errorOf(e) });
    } finally {
      running = 0;
    }
  });
};
