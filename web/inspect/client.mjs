// The page's side of Inspect's worker (inspect-worker.mjs): one promise per
// request, the database File opened on first use (and taken again when the
// copy changed since), and Cancel.
//
// Cancel, and why it works this way: a statement runs synchronously inside
// the worker, so the worker reads no message until it ends; only memory
// both sides share can reach it. When the page is cross-origin isolated
// (`pulse serve` sends COOP and COEP), a SharedArrayBuffer holds the id of
// the request to stop, and the connection's progress handler reads it every
// few thousand SQLite steps: the statement ends with SQLITE_INTERRUPT, the
// worker and its caches stay. Without isolation there is no
// SharedArrayBuffer, and nothing else a dedicated worker can read
// synchronously from the page without it (OPFS sync handles are exclusive,
// a File or Blob never changes, a synchronous XHR needs a server), so the
// page ends the worker (terminate()) and starts a new one, which opens the
// File again on its next request: the worker holds nothing but a read-only
// view, so nothing is lost. The same happens when a statement does not stop
// within a second of the flag (SQLite's sorter runs between progress steps).

const HARD_STOP_MS = 1000;

export class InspectClient {
  // getFile(): {file, headerBytes}, the database to inspect (taken again
  // after a cancel that ended the worker, or when the File went stale).
  constructor(getFile, { workerUrl = new URL('./inspect-worker.mjs', import.meta.url) } = {}) {
    this.getFile = getFile;
    this.workerUrl = workerUrl;
    this.worker = null;
    this.pending = new Map();
    this.nextId = 1;
    this.opened = null;
    this.shared = typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated === true
      ? new Int32Array(new SharedArrayBuffer(4)) : null;
    this.listeners = new Set();
    this.restarts = 0;
  }

  // How Cancel works here: 'shared flag' or 'ends the worker'.
  get cancelMode() {
    return this.shared ? 'shared flag' : 'ends the worker';
  }

  busy() {
    return this.pending.size > 0;
  }

  onBusy(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  changed() {
    for (const fn of this.listeners) fn(this.busy());
  }

  start() {
    if (this.worker) return;
    const worker = new Worker(this.workerUrl, { type: 'module' });
    this.worker = worker;
    worker.onmessage = (event) => {
      const { id, result, error } = event.data || {};
      const waiting = this.pending.get(id);
      if (!waiting) return;
      this.pending.delete(id);
      if (error) waiting.reject(Object.assign(new Error(error.message), error));
      else waiting.resolve(result);
      this.changed();
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      this.fail(new Error(`the Inspect worker failed: ${event.message || 'it could not be loaded'}`));
    };
    this.opened = this.send('init', { flag: this.shared ? this.shared.buffer : null })
      .then(() => this.getFile())
      .then(({ file, headerBytes }) => this.send('open', { file, headerBytes }));
    this.opened.catch(() => {});
  }

  send(type, args) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, type });
      this.worker.postMessage({ id, type, args });
      this.changed();
    });
  }

  fail(err) {
    for (const { reject } of this.pending.values()) reject(err);
    this.pending.clear();
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.opened = null;
    this.changed();
  }

  // One request on the open database. A stale File (the copy changed) is
  // taken again and the request repeated once.
  async request(type, args = {}) {
    this.start();
    await this.opened;
    try {
      return await this.send(type, args);
    } catch (e) {
      if (!e.stale) throw e;
      const { file, headerBytes } = await this.getFile();
      await this.send('open', { file, headerBytes });
      return this.send(type, args);
    }
  }

  // Stops what runs now: the shared flag first (the running request rejects
  // as cancelled; those queued behind it go on), the worker's end when there
  // is none or the statement does not stop within HARD_STOP_MS (then every
  // request still out rejects as cancelled).
  cancel() {
    if (!this.worker || !this.pending.size) return;
    const running = Math.min(...this.pending.keys());
    const hard = () => {
      this.restarts++;
      const err = new Error('Cancelled');
      err.cancelled = true;
      this.fail(err);
    };
    if (!this.shared) { hard(); return; }
    Atomics.store(this.shared, 0, running);
    const worker = this.worker;
    setTimeout(() => {
      if (this.worker === worker && this.pending.has(running)) hard();
    }, HARD_STOP_MS);
  }

  close() {
    this.fail(new Error('Inspect was closed'));
  }
}
