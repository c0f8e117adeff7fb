// A copy's bytes in the OPFS pool (opfs-pool.mjs): stored into a free pool
// file and named only once SQLite has read their schema, and checked in
// full by SQLite after an import from bytes. Each function takes the pool
// it works on.
// The constants here are the pool files' format, shared with opfs-pool.mjs.
import { sqliteHeaderProblem } from './sqlite-header.mjs';

export const HEADER_SIZE = 4096;
export const SQLITE_OPEN_MAIN_DB = 0x100;
// The pool's own bits in a slot's flags, above SQLite's open flags: a copy
// imported from bytes whose full integrity check has not run yet, and one
// that failed it.
export const UNCHECKED = 0x40000000;
export const DAMAGED = 0x20000000;
// The copy an import from bytes replaces is kept under this suffix (no copy
// name has a '~') until the new one has passed its check.
export const BEFORE = '~before';
export const VFS_NAME = 'opfs-pulse';
const CHUNK = 4 << 20;

// SQLite's full integrity check of copy `name`: {name, ok: true}, or
// {name, ok: false, problem, restored}. A copy that fails it is closed;
// when an import replaced a copy that is still kept aside, that copy takes
// the name back (restored: true, and list() says why under importRefused),
// else the copy stays, marked damaged (list() says so, opening it is
// refused naming the problem; export and delete still work), across
// reloads. A copy already checked since its import answers at once, and
// so does one whose import was undone (that import's verdict).
export async function checkCopy(pool, name) {
  const path = `/${name}`;
  const slot = pool.byPath.get(path);
  if (!slot) throw new Error(`no copy named "${name}" in OPFS`);
  if (slot.flags & DAMAGED) return { name, ok: false, problem: slot.note, restored: false };
  // The last import's verdict, once its check has put the copy before it back.
  if (pool.refused.has(name)) return { name, ok: false, problem: pool.refused.get(name), restored: true };
  if (pool.verified.has(name)) return { name, ok: true };
  let result;
  const open = pool.openDbs.get(name);
  let db = open || null;
  try {
    if (!db) db = pool.api.Database.openFile(path, { vfs: VFS_NAME });
    const out = db.exec('PRAGMA integrity_check(1)');
    result = out.length ? String(out[0].values[0][0]) : 'no answer';
  } catch (e) {
    result = e && e.message ? e.message : String(e);
  } finally {
    if (db && !open) db.close();
  }
  const before = pool.byPath.get(path + BEFORE);
  if (result === 'ok') {
    if (slot.flags & UNCHECKED) {
      pool.writeHeader(slot, path, slot.flags & ~UNCHECKED, slot.importedAt);
      slot.sah.flush();
    }
    if (before) pool.clearSlot(before);
    pool.verified.add(name);
    return { name, ok: true };
  }
  // One line: SQLite's answer starts "*** in database main ***" on a line of its own.
  const problem = `SQLite's integrity check failed: ${result.replace(/\s*\n\s*/g, ' ')}`;
  pool.closeDb(name);
  const journal = pool.byPath.get(`${path}-journal`);
  if (journal) pool.clearSlot(journal);
  if (before) {
    // The damaged copy goes first: a crash in between leaves only the
    // kept copy, which the next start names again (openSlots).
    pool.clearSlot(slot);
    renameSlot(pool, before, path);
    pool.refused.set(name, problem);
    return { name, ok: false, problem, restored: true };
  }
  pool.writeHeader(slot, path, (slot.flags & ~UNCHECKED) | DAMAGED, slot.importedAt, problem);
  slot.sah.flush();
  return { name, ok: false, problem, restored: false };
}

// Writes copy `name` into a free pool file and only then names it:
// `write(sah)` puts the bytes after an empty header, so until the header
// names them a crash or a failure leaves the old copy as it was. `head` is
// the file's first 100 bytes: a WAL-mode file is switched to rollback mode
// (WAL needs shared memory this VFS does not have). Before it is named,
// SQLite reads the stored file's schema on a connection of its own: a file
// whose tables it cannot read (`what` names it) replaces nothing. A
// journal left by the old copy must never be played back onto the new
// one, so it goes first. With `unchecked` the new copy waits for
// checkCopy, and the copy it replaces is kept aside until then (the last
// checked one, when several imports come before a check). With `size` (the
// bytes to come) the file takes its length first, in one step: each write
// that lengthened it would ask the browser for quota again (a 135 MB import
// in 4 MB chunks wrote in ~45 ms against ~28 ms so; bench/anchors.mjs --only opfs).
export async function storeCopy(pool, name, head, what, write, { unchecked = false, size = 0 } = {}) {
  await pool.ensureFree(1);
  const path = `/${name}`;
  const slot = pool.free.pop();
  try {
    slot.sah.truncate(HEADER_SIZE);
    if (size > 0) slot.sah.truncate(HEADER_SIZE + size);
    await write(slot.sah);
    if (head[18] === 2 || head[19] === 2) slot.sah.write(new Uint8Array([1, 1]), { at: HEADER_SIZE + 18 });
    slot.sah.flush();
  } catch (e) {
    pool.clearSlot(slot);
    throw new Error(`could not store copy "${name}" in OPFS: ${e.message}`);
  }
  const unreadable = schemaProblem(pool, slot);
  if (unreadable) {
    pool.clearSlot(slot);
    throw new Error(`${what} is not a usable SQLite database: ${unreadable}`);
  }
  const journal = pool.byPath.get(`${path}-journal`);
  if (journal) pool.clearSlot(journal);
  const old = pool.byPath.get(path);
  const before = pool.byPath.get(path + BEFORE);
  if (old && unchecked && !(old.flags & (UNCHECKED | DAMAGED))) {
    // The old copy aside first: a crash before the new one is named
    // leaves no copy of this name, and the next start names it again.
    if (before) pool.clearSlot(before);
    renameSlot(pool, old, path + BEFORE);
  } else if (old) {
    pool.clearSlot(old);
    if (before && !unchecked) pool.clearSlot(before);
  } else if (before) {
    pool.clearSlot(before);
  }
  pool.writeHeader(slot, path, SQLITE_OPEN_MAIN_DB | (unchecked ? UNCHECKED : 0), Date.now());
  slot.sah.flush();
  pool.byPath.set(path, slot);
  pool.verified.delete(name);
  pool.refused.delete(name);
}

// '' when SQLite reads the schema of the unnamed `slot` (under a private
// path for the moment), else why not.
function schemaProblem(pool, slot) {
  const probe = `/~import-${pool.nextFileId++}`;
  pool.byPath.set(probe, slot);
  let db = null;
  try {
    db = pool.api.Database.openFile(probe, { vfs: VFS_NAME });
    db.exec('SELECT count(*) FROM sqlite_schema');
    return '';
  } catch (e) {
    return e && e.message ? e.message : String(e);
  } finally {
    if (db) db.close();
    pool.byPath.delete(probe);
  }
}

// Stores `bytes` as copy `name` the way importFile streams a File: the
// header checks first (magic, page size, the length against the header's
// page count), then the bytes into a free pool file, named only once
// SQLite has read their schema from it. No copy of the bytes in the wasm
// heap and no integrity pass before the answer: SQLite's full check comes
// after (checkCopy; the worker runs it once this has answered, so the page
// draws first), reading the stored pages through the VFS. Until it has
// passed, the copy this one replaced is kept aside, and a failed check
// puts it back: bad bytes never cost the copy that was there. The copy
// must not be open.
export async function importBytes(pool, name, bytes, { onProgress } = {}) {
  const what = `the file for copy "${name}"`;
  const problem = sqliteHeaderProblem(bytes.subarray(0, 100), bytes.length, what);
  if (problem) throw new Error(problem);
  if (pool.openDbs.has(name)) throw new Error(`copy "${name}" is open: close it before importing over it`);
  await storeCopy(pool, name, bytes, what, async (sah) => {
    for (let at = 0; at < bytes.length; at += CHUNK) {
      const part = bytes.subarray(at, Math.min(at + CHUNK, bytes.length));
      if (sah.write(part, { at: HEADER_SIZE + at }) !== part.length) throw new Error('short write');
      if (onProgress) onProgress(at + part.length, bytes.length);
    }
  }, { unchecked: true, size: bytes.length });
  return { name, size: bytes.length };
}

// Stores a File or Blob as copy `name` by streaming it into a pool slot:
// no whole-file buffer, no in-memory copy and no integrity pass, so a
// 100 MB workflow database is stored about as fast as it can be read (the
// Pulse tab's path, web/local-store.mjs). The header is checked first
// (magic, page size, the length against the header's page count), so a file
// that is not SQLite, or a truncated one, is refused before anything is
// written; the copy is named only after its last byte is written, and it
// must then open and show its schema, or it is removed again. Either way a
// failure leaves every other copy as it was.
//
// `preview(db)`, when given, runs first on a read-only connection that
// reads the File itself, page by page (FileReaderSync), so the Pulse tab
// can show the goal status card from the few pages the goal check needs
// while the whole file is still being stored. A preview that fails is
// skipped; the import goes on.
export async function importFile(pool, name, file, { onProgress, preview } = {}) {
  const what = `the file for copy "${name}"`;
  const size = file.size;
  const head = new Uint8Array(await file.slice(0, 100).arrayBuffer());
  const problem = sqliteHeaderProblem(head, size, what);
  if (problem) throw new Error(problem);
  if (preview && typeof FileReaderSync === 'function') pool.previewFile(file, preview);
  if (pool.openDbs.has(name)) throw new Error(`copy "${name}" is open: close it before importing over it`);
  if (pool.has(name)) throw new Error(`a copy named "${name}" exists: delete it first or choose another name`);
  await storeCopy(pool, name, head, what, async (sah) => {
    const reader = file.stream().getReader();
    let at = 0;
    let reported = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (sah.write(value, { at: HEADER_SIZE + at }) !== value.length) throw new Error('short write');
      at += value.length;
      // Chunks are small (64 KB): report each 1% only, not flood the page.
      if (onProgress && (at - reported >= size / 100 || at === size)) {
        reported = at;
        onProgress(at, size);
      }
    }
    if (at !== size) throw new Error(`read ${at} of ${size} bytes: the file changed while it was read`);
  }, { size });
  try {
    await pool.openDb(name);
  } catch (e) {
    pool.deleteDb(name);
    throw new Error(`${what} is not a usable SQLite database: ${e.message.replace(/^copy "[^"]*" could not be opened: /, '')}`);
  }
  return { name, size };
}

// Gives `slot` another path (its flags and import time kept), durably.
function renameSlot(pool, slot, path) {
  if (pool.byPath.get(slot.path) === slot) pool.byPath.delete(slot.path);
  pool.writeHeader(slot, path, slot.flags, slot.importedAt, slot.note);
  slot.sah.flush();
  pool.byPath.set(path, slot);
}
