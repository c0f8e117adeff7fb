// A copy's bytes in the OPFS pool (opfs-pool.mjs): stored into a free pool
// file and named only once SQLite has read their schema, checked in full by
// SQLite after an import from bytes, and read from a File before they are
// stored (the Pulse tab's preview). Each function takes the pool it works on.
// The constants here are the pool files' format, shared with opfs-pool.mjs.

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
    pool.rename(before, path);
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
// checked one, when several imports come before a check).
export async function storeCopy(pool, name, head, what, write, { unchecked = false } = {}) {
  await pool.ensureFree(1);
  const path = `/${name}`;
  const slot = pool.free.pop();
  try {
    slot.sah.truncate(HEADER_SIZE);
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
    pool.rename(old, path + BEFORE);
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

// A read-only connection over `file` through a pseudo-slot whose handle
// reads the File (never listed, never written), for `fn(db)`.
export function previewFile(pool, file, fn, onError = null) {
  const path = `/~preview-${pool.nextFileId}`;
  const reader = new FileReaderSync();
  // Each File read is a round trip to the browser: read 256 KB blocks and
  // keep the last few, so the goal check's scattered page reads stay cheap.
  const BLOCK = 256 << 10;
  const blocks = new Map();
  const block = (i) => {
    let b = blocks.get(i);
    if (!b) {
      b = new Uint8Array(reader.readAsArrayBuffer(file.slice(i * BLOCK, (i + 1) * BLOCK)));
      if (blocks.size >= 64) blocks.delete(blocks.keys().next().value);
      blocks.set(i, b);
    }
    return b;
  };
  const sah = {
    read(view, { at }) {
      const off = at - HEADER_SIZE;
      if (off >= file.size) return 0;
      const end = Math.min(file.size, off + view.length);
      let pos = off;
      while (pos < end) {
        const b = block(Math.floor(pos / BLOCK));
        const from = pos % BLOCK;
        const n = Math.min(b.length - from, end - pos);
        view.set(b.subarray(from, from + n), pos - off);
        pos += n;
      }
      // A WAL-mode file is read in rollback mode (no -wal, no shared memory).
      for (const i of [18, 19]) if (off <= i && i < end && view[i - off] === 2) view[i - off] = 1;
      return end - off;
    },
    write() { throw new Error('the preview is read-only'); },
    truncate() { throw new Error('the preview is read-only'); },
    getSize: () => HEADER_SIZE + file.size,
    flush() {},
  };
  pool.byPath.set(path, { fileName: '', sah, path, flags: 0, importedAt: 0 });
  let db = null;
  try {
    db = pool.api.Database.openFile(path, { vfs: VFS_NAME });
    db.exec('SELECT count(*) FROM sqlite_schema');
    fn(db);
  } catch (e) {
    // No preview: the card comes from the stored copy instead.
    if (onError) onError(e);
  } finally {
    if (db) db.close();
    pool.byPath.delete(path);
  }
}
