// The OPFS storage behind the "opfs-pulse" VFS (wasm/opfs_vfs.cc), in the design of
// SQLite's opfs-sahpool: a directory of pool files whose FileSystemSyncAccessHandles
// are all opened (asynchronously) up front, so the VFS can serve SQLite's synchronous
// file calls from a dedicated Worker without ASYNCIFY or COOP/COEP headers.
//
// Each pool file ("slot") holds one SQLite file: a 4096-byte header naming it (its VFS
// path, its SQLite open flags, when it was imported, a checksum) followed by the file's
// bytes. A database copy "name" is the slot for "/name"; its rollback journal is the slot
// for "/name-journal", so a commit (journal synced, database synced, journal slot
// cleared and flushed) is durable across reloads and browser restarts.
//
// Limits: one worker (tab) holds the pool at a time (a Web Lock plus the
// handles' own exclusivity); one connection per copy; no WAL (no shared
// memory); the pool grows by adding files before a database is opened.
import { RESULT_CODES } from './result-codes.mjs';
import {
  HEADER_SIZE, SQLITE_OPEN_MAIN_DB, UNCHECKED, DAMAGED, BEFORE, VFS_NAME, checkCopy, importBytes, importFile,
} from './opfs-copies.mjs';
import { fileHandle } from './file-handle.mjs';

const PATH_BYTES = 512;
const OFF_FLAGS = 512;
const OFF_IMPORTED = 516;
const OFF_SUM = 524;
const HEADER_USED = 528;
// What the full check found on a damaged copy: UTF-8 after a 2-byte length,
// past the checksummed part of the header (a torn note only garbles the note).
const OFF_NOTE = 1024;
const NOTE_BYTES = 1000;

const {
  SQLITE_OK, SQLITE_CANTOPEN, SQLITE_IOERR_READ, SQLITE_IOERR_SHORT_READ, SQLITE_IOERR_WRITE, SQLITE_IOERR_FSYNC,
  SQLITE_IOERR_TRUNCATE, SQLITE_IOERR_DELETE,
} = RESULT_CODES;
const SQLITE_OPEN_DELETEONCLOSE = 0x8;
const SQLITE_OPEN_CREATE = 0x4;

const LOCK_NAME = 'pulse-opfs-pool';
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export const OPFS_UNAVAILABLE =
  'OPFS is not available in this browser context: Pulse stores database copies in the Origin Private File System, ' +
  'which needs a dedicated Worker on a secure origin (https:// or http://localhost) in a browser with FileSystemSyncAccessHandle';
export const POOL_BUSY =
  'the Pulse database copies are open in another tab: close the other Pulse tab (or wait for it to finish) and reload';

export function opfsAvailable() {
  return (
    typeof globalThis.FileSystemFileHandle === 'function' &&
    typeof globalThis.FileSystemFileHandle.prototype.createSyncAccessHandle === 'function' &&
    typeof globalThis.navigator?.storage?.getDirectory === 'function' &&
    typeof globalThis.WorkerGlobalScope === 'function'
  );
}

export function checkCopyName(name) {
  if (typeof name !== 'string' || !NAME_RE.test(name) || name.endsWith('-journal')) {
    throw new Error(
      `invalid copy name ${JSON.stringify(name)}: use 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit (not ending in "-journal")`,
    );
  }
  return name;
}

function checksum(bytes, n) {
  // FNV-1a: tells a written header from a torn or foreign one.
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
  return h;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Opens the pool (waiting briefly for a tab being closed or reloaded to let
// go of it) and registers the VFS with `api`, initPulse()'s result (the module).
export async function openOpfsPool(api, { directory = 'pulse-db-pool', initialCapacity = 6, waitMs = 2000 } = {}) {
  if (!opfsAvailable()) throw new Error(OPFS_UNAVAILABLE);
  let dir;
  try {
    dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(directory, { create: true });
  } catch (e) {
    throw new Error(`${OPFS_UNAVAILABLE} (${e.name}: ${e.message})`);
  }
  const pool = new OpfsPool(api, dir);
  // The Web Lock and the listing of the pool's files at once: listing
  // touches no handle, so only the handles wait for the lock.
  try {
    const [, entries] = await Promise.all([pool.acquireLock(waitMs), pool.listFiles()]);
    await pool.openSlots(entries, waitMs);
    // The pool's files, not its free ones, count toward the capacity (as
    // opfs-sahpool's): a copy's journal and a spare are added when it opens.
    if (pool.slots.length < initialCapacity) await pool.addCapacity(initialCapacity - pool.slots.length);
  } catch (e) {
    pool.close();
    throw e;
  }
  api.pulseOpfs = pool.vfsMethods();
  const rc = api._pulse_opfs_register();
  if (rc !== SQLITE_OK) {
    pool.close();
    throw new Error(`could not register the OPFS VFS (SQLite code ${rc})`);
  }
  return pool;
}

export class OpfsPool {
  constructor(api, dir) {
    this.api = api;
    this.dir = dir;
    this.slots = []; // {fileName, sah, path, flags, importedAt}
    this.byPath = new Map();
    this.free = [];
    this.files = new Map(); // open VFS file id -> {slot, path, flags}
    this.nextFileId = 1;
    this.openDbs = new Map(); // copy name -> Database
    this.refused = new Map(); // copy name -> why its last import from bytes was undone
    this.verified = new Set(); // copies whose full check passed since this pool opened
    this.lastError = '';
    this.releaseLock = null;
    this.header = new Uint8Array(HEADER_SIZE);
  }

  // A Web Lock says "this tab owns the pool" before any handle is touched;
  // handles alone would only fail once this tab tried to open them.
  async acquireLock(waitMs) {
    if (!globalThis.navigator?.locks) return;
    const got = await new Promise((resolve, reject) => {
      navigator.locks
        .request(LOCK_NAME, { signal: AbortSignal.timeout(waitMs) }, () => {
          resolve(true);
          return new Promise((release) => {
            this.releaseLock = release;
          });
        })
        .catch((e) => (e.name === 'AbortError' || e.name === 'TimeoutError' ? resolve(false) : reject(e)));
    });
    if (!got) throw new Error(POOL_BUSY);
  }

  async listFiles() {
    const entries = [];
    for await (const [fileName, handle] of this.dir.entries()) {
      if (handle.kind === 'file') entries.push([fileName, handle]);
    }
    return entries;
  }

  // Every pool file's handle, asked for all at once (each waits for its own
  // on a tab being closed), then their headers read.
  async openSlots(entries, waitMs) {
    const opened = await Promise.allSettled(entries.map(([, handle]) => this.createHandle(handle, waitMs)));
    const failed = opened.find((r) => r.status === 'rejected');
    opened.forEach((r, i) => {
      if (r.status === 'fulfilled') this.slots.push({ fileName: entries[i][0], sah: r.value, path: '', flags: 0, importedAt: 0 });
    });
    if (failed) throw failed.reason;
    for (const slot of this.slots) this.readHeader(slot);
    // A crash between writing a new import and releasing the old slot leaves
    // two slots for one path: the newer import wins.
    for (const slot of this.slots) {
      if (!slot.path) {
        this.free.push(slot);
        continue;
      }
      const other = this.byPath.get(slot.path);
      if (!other) {
        this.byPath.set(slot.path, slot);
      } else if (slot.importedAt > other.importedAt) {
        this.byPath.set(slot.path, slot);
        this.clearSlot(other);
      } else {
        this.clearSlot(slot);
      }
    }
    // Left over by a tab that died: temp files, journals of no copy, and a
    // replaced copy kept for a check that has passed (or whose copy is gone).
    for (const [path, slot] of [...this.byPath]) {
      const orphanJournal = path.endsWith('-journal') && !this.byPath.has(path.slice(0, -'-journal'.length));
      if (slot.flags & SQLITE_OPEN_DELETEONCLOSE || orphanJournal) this.clearSlot(slot);
      if (!path.endsWith(BEFORE)) continue;
      const current = this.byPath.get(path.slice(0, -BEFORE.length));
      if (!current) this.rename(slot, path.slice(0, -BEFORE.length));  // its import never finished
      else if (!(current.flags & UNCHECKED)) this.clearSlot(slot);
    }
  }

  async createHandle(handle, waitMs) {
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        return await handle.createSyncAccessHandle();
      } catch (e) {
        if (e.name !== 'NoModificationAllowedError') throw e;
        if (Date.now() >= deadline) throw new Error(POOL_BUSY);
        await sleep(100);
      }
    }
  }

  async addCapacity(n) {
    const made = await Promise.allSettled(Array.from({ length: n }, async () => {
      const fileName = `slot-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
      const handle = await this.dir.getFileHandle(fileName, { create: true });
      return { fileName, sah: await handle.createSyncAccessHandle(), path: '', flags: 0, importedAt: 0 };
    }));
    for (const r of made) {
      if (r.status !== 'fulfilled') continue;
      this.slots.push(r.value);
      this.clearSlot(r.value);
    }
    const failed = made.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async ensureFree(n) {
    if (this.free.length < n) await this.addCapacity(n - this.free.length);
  }

  readHeader(slot) {
    const h = this.header;
    h.fill(0, 0, HEADER_USED);
    const got = slot.sah.read(h.subarray(0, HEADER_USED), { at: 0 });
    const dv = new DataView(h.buffer);
    if (got < HEADER_USED || dv.getUint32(OFF_SUM, true) !== checksum(h, OFF_SUM)) {
      slot.path = '';
      return;
    }
    const end = h.indexOf(0);
    slot.path = new TextDecoder().decode(h.subarray(0, end < 0 || end > PATH_BYTES ? PATH_BYTES : end));
    slot.flags = dv.getUint32(OFF_FLAGS, true);
    slot.importedAt = dv.getFloat64(OFF_IMPORTED, true);
    slot.note = '';
    if (slot.flags & DAMAGED) {
      const note = new Uint8Array(2 + NOTE_BYTES);
      slot.sah.read(note, { at: OFF_NOTE });
      const n = Math.min(NOTE_BYTES, note[0] | (note[1] << 8));
      slot.note = new TextDecoder().decode(note.subarray(2, 2 + n));
    }
  }

  writeHeader(slot, path, flags, importedAt, note = '') {
    if (flags & DAMAGED) {
      const text = new TextEncoder().encode(note).subarray(0, NOTE_BYTES);
      const out = new Uint8Array(2 + text.length);
      out[0] = text.length & 255;
      out[1] = text.length >> 8;
      out.set(text, 2);
      slot.sah.write(out, { at: OFF_NOTE });
    }
    slot.note = flags & DAMAGED ? note : '';
    const h = this.header;
    h.fill(0, 0, HEADER_USED);
    const enc = new TextEncoder().encode(path);
    if (enc.length >= PATH_BYTES) throw new Error(`OPFS path too long: ${path}`);
    h.set(enc, 0);
    const dv = new DataView(h.buffer);
    dv.setUint32(OFF_FLAGS, flags, true);
    dv.setFloat64(OFF_IMPORTED, importedAt, true);
    dv.setUint32(OFF_SUM, checksum(h, OFF_SUM), true);
    slot.sah.write(h.subarray(0, HEADER_USED), { at: 0 });
    slot.path = path;
    slot.flags = flags;
    slot.importedAt = importedAt;
  }

  // Empties a slot durably and returns it to the free list.
  clearSlot(slot) {
    if (this.byPath.get(slot.path) === slot) this.byPath.delete(slot.path);
    this.writeHeader(slot, '', 0, 0);
    slot.sah.truncate(HEADER_SIZE);
    slot.sah.flush();
    if (!this.free.includes(slot)) this.free.push(slot);
  }

  dataSize(slot) {
    return Math.max(0, slot.sah.getSize() - HEADER_SIZE);
  }

  // xOpen: a file id, or -SQLITE_CANTOPEN (no such file without CREATE, no free slot).
  openFile(path, flags) {
    if (!path) path = `/temp-${Math.random().toString(36).slice(2)}`;
    let slot = this.byPath.get(path);
    if (!slot) {
      if (!(flags & SQLITE_OPEN_CREATE)) return -SQLITE_CANTOPEN;
      slot = this.free.pop();
      if (!slot) {
        this.lastError = 'no free slot in the OPFS pool';
        return -SQLITE_CANTOPEN;
      }
      slot.sah.truncate(HEADER_SIZE);
      this.writeHeader(slot, path, flags, 0);
      slot.sah.flush();
      this.byPath.set(path, slot);
    }
    const id = this.nextFileId++;
    this.files.set(id, { slot, path, flags });
    return id;
  }

  failed(e, rc) { this.lastError = `${e.name}: ${e.message}`; return rc; }

  // A read or a write between file `id`'s handle and `view` (the wasm heap);
  // `rc` when the handle throws.
  onBytes(id, view, rc, transfer) {
    try {
      return transfer(this.files.get(id).slot.sah, view);
    } catch (e) {
      return this.failed(e, rc);
    }
  }

  // The synchronous file operations the C VFS calls through EM_JS.
  vfsMethods() {
    const Module = this.api;
    return {
      xOpen: (path, flags) => {
        try {
          return this.openFile(path, flags);
        } catch (e) {
          return -this.failed(e, SQLITE_CANTOPEN);
        }
      },
      xClose: (id) => {
        const f = this.files.get(id);
        this.files.delete(id);
        try {
          if (f && f.flags & SQLITE_OPEN_DELETEONCLOSE) this.clearSlot(f.slot);
          else if (f) f.slot.sah.flush();
          return SQLITE_OK;
        } catch (e) {
          return this.failed(e, SQLITE_IOERR_DELETE);
        }
      },
      xRead: (id, ptr, n, offset) => this.onBytes(id, Module.HEAPU8.subarray(ptr, ptr + n), SQLITE_IOERR_READ, (sah, view) => {
        const got = sah.read(view, { at: HEADER_SIZE + offset });
        if (got < n) {
          view.fill(0, got);
          return SQLITE_IOERR_SHORT_READ;
        }
        return SQLITE_OK;
      }),
      xWrite: (id, ptr, n, offset) => this.onBytes(id, Module.HEAPU8.subarray(ptr, ptr + n), SQLITE_IOERR_WRITE,
        (sah, view) => (sah.write(view, { at: HEADER_SIZE + offset }) === n ? SQLITE_OK : SQLITE_IOERR_WRITE)),
      xTruncate: (id, size) => {
        try {
          this.files.get(id).slot.sah.truncate(HEADER_SIZE + size);
          return SQLITE_OK;
        } catch (e) {
          return this.failed(e, SQLITE_IOERR_TRUNCATE);
        }
      },
      xSync: (id) => {
        try {
          this.files.get(id).slot.sah.flush();
          return SQLITE_OK;
        } catch (e) {
          return this.failed(e, SQLITE_IOERR_FSYNC);
        }
      },
      xFileSize: (id) => {
        try {
          return this.dataSize(this.files.get(id).slot);
        } catch (e) {
          return this.failed(e, -1);
        }
      },
      xDelete: (path) => {
        try {
          const slot = this.byPath.get(path);
          if (slot) this.clearSlot(slot);
          return SQLITE_OK;
        } catch (e) {
          return this.failed(e, SQLITE_IOERR_DELETE);
        }
      },
      xAccess: (path) => (this.byPath.has(path) ? 1 : 0),
    };
  }

  // The copies: [{name, size, importedAt}] (importedAt: RFC 3339 or null).
  list() {
    const out = [];
    for (const [path, slot] of this.byPath) {
      if (!(slot.flags & SQLITE_OPEN_MAIN_DB) || path.endsWith(BEFORE)) continue;
      const name = path.slice(1);
      const copy = {
        name,
        size: this.dataSize(slot),
        importedAt: slot.importedAt ? new Date(slot.importedAt).toISOString().replace(/\.\d{3}Z$/, 'Z') : null,
        open: this.openDbs.has(name),
      };
      if (slot.flags & DAMAGED) copy.damaged = slot.note;
      if (slot.flags & UNCHECKED) copy.checking = true;
      if (this.refused.has(name)) copy.importRefused = `${this.refused.get(name)}; the copy from before that import is back`;
      out.push(copy);
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  has(name) {
    return this.byPath.has(`/${name}`);
  }

  // Stores `bytes` as copy `name` (opfs-copies.mjs importBytes): {name, size}.
  async importDb(name, bytes, options = {}) {
    checkCopyName(name);
    return importBytes(this, name, bytes, options);
  }

  // The copies imported from bytes whose full check has not run (a tab
  // closed before it could): the worker checks them after it starts.
  uncheckedCopies() {
    return [...this.byPath].filter(([, slot]) => slot.flags & UNCHECKED).map(([path]) => path.slice(1));
  }

  // SQLite's full integrity check of copy `name` (opfs-copies.mjs checkCopy):
  // {name, ok: true}, or {name, ok: false, problem, restored}.
  async checkCopy(name) {
    checkCopyName(name);
    return checkCopy(this, name);
  }

  // Streams a File or Blob into OPFS as copy `name` (opfs-copies.mjs
  // importFile): {name, size}.
  async importFile(name, file, options = {}) {
    checkCopyName(name);
    return importFile(this, name, file, options);
  }

  // A read-only connection over `file` (openFileReadOnly), for `fn(db)`.
  previewFile(file, fn, onError = null) {
    let opened = null;
    try {
      opened = this.openFileReadOnly(file);
      opened.db.exec('SELECT count(*) FROM sqlite_schema');
      fn(opened.db);
    } catch (e) {
      // No preview: the card comes from the stored copy instead.
      if (onError) onError(e);
    } finally {
      if (opened) opened.db.close();
    }
  }

  // A read-only Database over `file` (fileHandle below) as a pseudo-slot
  // that is never listed: {db, handle}; closing the db forgets the slot.
  openFileReadOnly(file, options = {}) {
    const path = `/~file-${this.nextFileId++}`;
    const handle = fileHandle(file, { ...options, slotHeader: HEADER_SIZE });
    this.byPath.set(path, { fileName: '', sah: handle, path, flags: 0, importedAt: 0 });
    let db;
    try {
      db = this.api.Database.openFile(path, { vfs: VFS_NAME, readOnly: true });
    } catch (e) {
      this.byPath.delete(path);
      throw e;
    }
    const close = db.close.bind(db);
    db.close = () => {
      try {
        close();
      } finally {
        this.byPath.delete(path);
      }
    };
    return { db, handle };
  }

  // The copy's bytes as a fresh Uint8Array.
  exportDb(name) {
    checkCopyName(name);
    const db = this.openDbs.get(name);
    if (db) return db.export();
    const slot = this.byPath.get(`/${name}`);
    if (!slot) throw new Error(`no copy named "${name}" in OPFS`);
    const out = new Uint8Array(this.dataSize(slot));
    slot.sah.read(out, { at: HEADER_SIZE });
    return out;
  }

  // The copy as a File, the slot's header in front ({file, headerBytes}), for
  // Inspect's worker: taken between operations, after a crash's journal rolled
  // back; reading it fails once the copy changes (then it is taken again).
  async fileOf(name) {
    await this.openDb(name);
    const slot = this.byPath.get(`/${name}`);
    const handle = await this.dir.getFileHandle(slot.fileName);
    return { file: await handle.getFile(), headerBytes: HEADER_SIZE };
  }

  deleteDb(name) {
    checkCopyName(name);
    if (this.openDbs.has(name)) throw new Error(`copy "${name}" is open: close it before deleting it`);
    const slot = this.byPath.get(`/${name}`);
    if (!slot) throw new Error(`no copy named "${name}" in OPFS`);
    const journal = this.byPath.get(`/${name}-journal`);
    if (journal) this.clearSlot(journal);
    this.clearSlot(slot);
    const before = this.byPath.get(`/${name}${BEFORE}`);
    if (before) this.clearSlot(before);
    this.verified.delete(name);
    this.refused.delete(name);
    return { name, deleted: true };
  }

  // The copy as a sql.js-compatible Database whose commits are durable in
  // OPFS. One connection per copy: a second open returns the same object.
  async openDb(name, { create = false } = {}) {
    checkCopyName(name);
    const existing = this.openDbs.get(name);
    if (existing && existing.db) return existing;
    if (!create && !this.has(name)) throw new Error(`no copy named "${name}" in OPFS`);
    const slot = this.byPath.get(`/${name}`);
    if (slot && slot.flags & DAMAGED) {
      throw new Error(`copy "${name}" is damaged (${slot.note}): export it to look at it, or delete it and import it again`);
    }
    await this.ensureFree(create && !this.has(name) ? 3 : 2);
    const db = this.api.Database.openFile(`/${name}`, { vfs: VFS_NAME, create });
    try {
      db.exec('PRAGMA journal_mode = DELETE; SELECT count(*) FROM sqlite_schema');
    } catch (e) {
      db.close();
      throw new Error(`copy "${name}" could not be opened: ${e.message}`);
    }
    if (create) {
      const slot = this.byPath.get(`/${name}`);
      if (!slot.importedAt) {
        this.writeHeader(slot, slot.path, SQLITE_OPEN_MAIN_DB, Date.now());
        slot.sah.flush();
      }
    }
    const close = db.close.bind(db);
    db.close = () => {
      this.openDbs.delete(name);
      close();
    };
    this.openDbs.set(name, db);
    return db;
  }

  closeDb(name) {
    const db = this.openDbs.get(name);
    if (db) db.close();
  }

  // Closes every database and handle and lets another tab have the pool.
  close() {
    for (const name of [...this.openDbs.keys()]) {
      try {
        this.closeDb(name);
      } catch {
        // closing is best effort: the handles are released below anyway
      }
    }
    for (const slot of this.slots) {
      try {
        slot.sah.close();
      } catch {
        // already closed
      }
    }
    this.slots = [];
    this.byPath.clear();
    this.free = [];
    if (this.releaseLock) this.releaseLock();
    this.releaseLock = null;
  }
}

// A read-only Database over `file` in a worker that holds no pool (Inspect's):
// the VFS over a pool of pseudo-slots only. {db, handle}
export function openFileDatabase(api, file, options = {}) {
  if (api.pulseOpfs && !api.pulseFilePool) throw new Error('this module holds an OPFS pool: use its openFileReadOnly');
  if (!api.pulseFilePool) {
    const pool = new OpfsPool(api, null);
    api.pulseOpfs = pool.vfsMethods();
    const rc = api._pulse_opfs_register();
    if (rc !== SQLITE_OK) throw new Error(`could not register the file VFS (SQLite code ${rc})`);
    api.pulseFilePool = pool;
  }
  return api.pulseFilePool.openFileReadOnly(file, options);
}
