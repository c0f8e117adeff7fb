// The dedicated module Worker that owns the Pulse WASM module, the OPFS pool
// and the open database copies. The page never runs SQL itself; it talks to
// this worker with the envelope of SQLite's ext/wasm worker API:
//
//   request   {type, messageId, args}
//   reply     {type, messageId, result}
//   failure   {type: 'error', messageId, result: {operation, message, code?}}
//   progress  {type: 'progress', messageId, loaded, total}   (during import)
//
// Types: init, list, import, check, importFile, inspectFile, export, delete, open, close, exec, run, call, fileOf.
// Every Pulse tab has its own worker; one of them owns the pool and serves
// the others (see "Several tabs, one pool" below), so all tabs work.
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
      // Imports a closed tab left unchecked: checked once this start is answered.
      for (const name of pool.uncheckedCopies()) enqueue(() => pool.checkCopy(name).catch(() => {}));
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

// One Pulse per open database, kept across calls: its facade holds the
// opened workflow (schema ensured and configuration read once, read again
// only when the database changed; docs/wasm.md), so a call does not reopen
// it. Freed before its database closes.
const pulses = new WeakMap();
function pulseOf(db) {
  let p = pulses.get(db);
  if (!p) {
    p = new api.Pulse(db);
    pulses.set(db, p);
  }
  return p;
}
function closePulse(name) {
  const db = pool && pool.openDbs.get(name);
  const p = db && pulses.get(db);
  if (!p) return;
  p.close();
  pulses.delete(db);
}
function closeDb(p, name) {
  closePulse(name);
  p.closeDb(name);
}

const handlers = {
  init,
  list: () => ({ copies: needPool().list() }),
  async import({ name, bytes }, post) {
    const p = needPool();
    closeDb(p, name);
    const out = await p.importDb(name, bytesOf(bytes, 'import: "bytes"'), {
      onProgress: (loaded, total) => post({ type: 'progress', loaded, total }),
    });
    // SQLite's full check of the stored copy once this answer is out, so the
    // page draws first (opfs-pool.mjs checkCopy; `check` reports it).
    enqueue(() => p.checkCopy(name).catch(() => {}));
    return out;
  },
  // {name, ok, problem?, restored?}: SQLite's full check of an imported copy.
  check: ({ name }) => needPool().checkCopy(name),
  // A File or Blob streamed into OPFS (opfs-pool.mjs importFile).
  // With `preview: {method, args, now}`, that core method's result on the
  // File itself comes first, as a progress message {preview}.
  async importFile({ name, file, preview }, post) {
    const p = needPool();
    closeDb(p, name);
    return p.importFile(name, file, {
      onProgress: (loaded, total) => post({ type: 'progress', loaded, total }),
      preview: preview
        ? (db) => post({ type: 'progress', loaded: 0, total: file.size,
          preview: new api.Pulse(db).call(preview.method, preview.args ?? {}, { now: preview.now }) })
        : null,
    });
  },
  // What a File is, read through a read-only connection before anything is
  // stored: whether it holds Pulse's tables, the workflow it belongs to, or
  // why SQLite cannot read it. Nothing is written, to the File or to OPFS.
  inspectFile({ file }) {
    const p = needPool();
    let out = { readable: false, pulse: false, workflow: '', tables: 0, problem: 'the file could not be read' };
    if (typeof FileReaderSync !== 'function') return { ...out, readable: true, pulse: true, problem: '' };
    p.previewFile(file, (db) => {
      const rows = db.exec("SELECT name FROM sqlite_schema WHERE type = 'table'");
      const tables = rows.length ? rows[0].values.map((v) => String(v[0])) : [];
      out = { readable: true, pulse: tables.includes('pulse_schema_versions'), workflow: '', tables: tables.length, problem: '' };
      if (out.pulse) {
        try {
          const cfg = new api.Pulse(db).call('pulse.config', {});
          out.workflow = (cfg && cfg.workflow) || '';
        } catch {
          // an older copy without a configuration snapshot: named after its file
        }
      }
    }, (e) => { out.problem = e && e.message ? e.message : String(e); });
    return out;
  },
  export({ name }) {
    const bytes = needPool().exportDb(name);
    return { result: { name, bytes: bytes.buffer }, transfer: [bytes.buffer] };
  },
  delete({ name }) {
    const p = needPool();
    closeDb(p, name);
    return p.deleteDb(name);
  },
  async open({ name, create }) {
    const db = await needPool().openDb(name, { create: !!create });
    return { name, open: !!db.db };
  },
  close({ name } = {}) {
    const p = needPool();
    if (name) closeDb(p, name);
    else for (const n of [...p.openDbs.keys()]) closeDb(p, n);
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
  // The copy as a File for Inspect's own worker (web/inspect/), which reads
  // it on a read-only connection of its own: {file, headerBytes}.
  fileOf: ({ name }) => needPool().fileOf(name),
  async call({ name, method, args, now }) {
    const db = name ? await needPool().openDb(name) : null;
    return db ? pulseOf(db).call(method, args ?? {}, { now }) : new api.Pulse(null).call(method, args ?? {}, { now });
  },
};

// ---- Several tabs, one pool ----
// OPFS sync access handles are exclusive, so one worker (the owner) opens the
// pool; the workers of the other Pulse tabs of this browser send it their
// requests over a BroadcastChannel and relay its answers (and import
// progress) to their page. Ownership is a Web Lock: when the owner's tab
// closes, its lock is released and the next waiting worker opens the pool and
// says so; requests still out with the old owner fail with a reason.
const OWNER_LOCK = 'pulse-opfs-owner';
const me = Math.random().toString(36).slice(2) + Date.now().toString(36);
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('pulse-opfs') : null;
let role = 'starting'; // 'owner' | 'client'
let ownerId = '';
let ownerWaiters = [];
const outgoing = new Map(); // request id -> {resolve, reject, post, owner}
let nextRemoteId = 1;

// Requests that only read: sent again to the next owner when the owner's tab
// closed before answering. A write is never repeated: it fails with a reason.
const READ_CALL = /\.(check|list|show|readings|runs_by_route|last_check|config|version|methods|levels|decisions)$/;
const safeToRepeat = (type, args) => ['init', 'list', 'check', 'exec', 'export', 'inspectFile', 'open', 'close', 'fileOf'].includes(type)
  || (type === 'call' && READ_CALL.test(String(args && args.method)));

function setOwner(id) {
  if (ownerId && ownerId !== id) {
    const gone = new Error('the Pulse tab that held this browser\'s copies was closed while it worked on this: try again');
    for (const [rid, req] of outgoing) {
      if (req.owner !== ownerId) continue;
      if (!safeToRepeat(req.type, req.args)) { outgoing.delete(rid); req.reject(gone); continue; }
      req.owner = id;
      if (id === me) {
        outgoing.delete(rid);
        enqueue(() => runLocal(req.type, req.args, req.post).then(req.resolve, req.reject));
      } else {
        channel.postMessage({ kind: 'req', id: rid, to: id, type: req.type, args: req.args });
      }
    }
  }
  ownerId = id;
  const waiting = ownerWaiters;
  ownerWaiters = [];
  for (const resolve of waiting) resolve();
}

function whenOwnerKnown(timeoutMs = 8000) {
  if (ownerId) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('another Pulse tab holds this browser\'s copies and did not answer: reload this tab')), timeoutMs);
    ownerWaiters.push(() => { clearTimeout(timer); resolve(); });
    channel.postMessage({ kind: 'who' });
  });
}

// One request to the owner; its progress goes to `post`, like a local one.
async function forward(type, args, post) {
  await whenOwnerKnown();
  if (role === 'owner') return runLocal(type, args, post);
  const id = `${me}:${nextRemoteId++}`;
  return new Promise((resolve, reject) => {
    outgoing.set(id, { resolve, reject, post, owner: ownerId, type, args });
    channel.postMessage({ kind: 'req', id, to: ownerId, type, args });
  });
}

async function runLocal(type, args, post) {
  const handler = Object.hasOwn(handlers, type) ? handlers[type] : null;
  if (!handler) throw new Error(`unknown message type ${JSON.stringify(type)}`);
  return handler(args || {}, post);
}

// Becomes the owner now if no worker is, else waits in line for the lock.
function claimOwnership() {
  if (!channel || !globalThis.navigator?.locks) { role = 'owner'; return Promise.resolve(true); }
  return new Promise((resolve) => {
    navigator.locks.request(OWNER_LOCK, { ifAvailable: true }, (lock) => {
      if (!lock) { resolve(false); return null; }
      role = 'owner';
      resolve(true);
      return new Promise(() => {}); // held for this worker's life
    });
  }).then((owner) => {
    if (!owner) {
      role = 'client';
      navigator.locks.request(OWNER_LOCK, () => {
        role = 'owner';
        // The old owner is gone: open the pool here, then tell the others.
        // Its tab may still be letting go of the files' handles (slow on a
        // busy machine), so this waits longer for them than a first start.
        enqueue(async () => {
          try { await init({ waitMs: 15000 }); } catch { /* the next request reports it */ }
          channel.postMessage({ kind: 'owner', id: me });
          setOwner(me);
        });
        return new Promise(() => {});
      });
    }
    return owner;
  });
}

async function initHere(args, post) {
  if (role === 'starting') {
    const owner = await claimOwnership();
    if (owner) {
      const info = await init(args);
      if (channel) { setOwner(me); channel.postMessage({ kind: 'owner', id: me }); }
      return info;
    }
  }
  if (role === 'owner') return init(args);
  const info = await forward('init', args, post);
  return { ...info, sharedWith: 'another Pulse tab' };
}

if (channel) {
  channel.onmessage = (event) => {
    const m = event.data || {};
    if (m.kind === 'who' && role === 'owner') channel.postMessage({ kind: 'owner', id: me });
    else if (m.kind === 'owner') setOwner(m.id);
    else if (m.kind === 'req' && m.to === me && role === 'owner') {
      enqueue(async () => {
        const post = (msg) => channel.postMessage({ ...msg, kind: 'progress', id: m.id });
        try {
          let result = await runLocal(m.type, m.args, post);
          if (m.type === 'export') result = result.result;
          channel.postMessage({ kind: 'res', id: m.id, result });
        } catch (e) {
          channel.postMessage({ kind: 'err', id: m.id, error: errorResult(m.type, e) });
        }
      });
    } else if ((m.kind === 'res' || m.kind === 'err' || m.kind === 'progress') && outgoing.has(m.id)) {
      const req = outgoing.get(m.id);
      if (m.kind === 'progress') { const { kind, id, ...rest } = m; req.post(rest); return; }
      outgoing.delete(m.id);
      if (m.kind === 'res') req.resolve(m.result);
      else { const err = new Error(m.error.message); if (m.error.code) err.code = m.error.code; req.reject(err); }
    }
  };
}

function errorResult(type, e) {
  const message = typeof e === 'string' ? e : e && e.message ? e.message : String(e);
  const result = { operation: type, message };
  if (e && e.code) result.code = e.code;
  return result;
}

// Messages are handled one at a time, in order: a database is never used by
// two operations at once (a request from another tab waits its turn too).
let queue = Promise.resolve();
function enqueue(job) {
  queue = queue.then(job, job);
  return queue;
}

self.onmessage = (event) => {
  const { type, messageId, args } = event.data || {};
  const post = (msg, transfer) => self.postMessage({ ...msg, messageId }, transfer || []);
  const job = async () => {
    try {
      let result;
      let transfer = [];
      if (type === 'init') result = await initHere(args || {}, post);
      else if (role === 'client' && Object.hasOwn(handlers, type)) result = await forward(type, args, post);
      else {
        result = await runLocal(type, args, post);
        if (type === 'export') ({ result, transfer } = result);
      }
      post({ type, result }, transfer);
    } catch (e) {
      post({ type: 'error', result: errorResult(type, e) });
    }
  };
  // A client's requests wait on the owner, not on this worker's queue.
  if (role === 'client' && type !== 'init') job(); else enqueue(job);
};
