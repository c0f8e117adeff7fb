// A read-only stand-in for a FileSystemSyncAccessHandle over a File, for
// the OPFS VFS (opfs-pool.mjs openFileReadOnly): the Pulse tab's preview of
// a chosen file and Inspect's worker read databases through it.
//
// A read-only stand-in for a sync access handle over a File or Blob, read
// with FileReaderSync (a dedicated Worker's only synchronous way to read a
// File; a round trip to the browser costs about as much for 1 KB as for
// 64 KB, and a sync access handle cannot be had while the pool holds the
// file). Reads go through 64 KB blocks, the last `cacheBytes` of them kept;
// a run of reads moving forward (a scan) reads ahead, up to 2 MB at a time.
// `headerBytes`: the bytes before the database in the File (a pool slot's
// header), so SQLite's offsets land where a slot's would. A WAL-mode file
// reads in rollback mode (no -wal, no shared memory). A File changed after
// it was taken cannot be read any more (the browser says NotReadableError):
// the read fails, and the caller takes the File again.
const BLOCK = 64 << 10;
export function fileHandle(file, { headerBytes = 0, cacheBytes = 32 << 20, slotHeader = 0 } = {}) {
  const HEADER_SIZE = slotHeader;
  const reader = new FileReaderSync();
  const blocks = new Map();
  const maxBlocks = Math.max(4, Math.floor(cacheBytes / BLOCK));
  const dbSize = file.size - headerBytes;
  let lastMiss = -2;
  let run = 1;
  const load = (i) => {
    run = i === lastMiss + 1 ? Math.min(run * 2, 32) : 1;
    const n = Math.min(run, Math.ceil(file.size / BLOCK) - i);
    const bytes = new Uint8Array(reader.readAsArrayBuffer(file.slice(i * BLOCK, (i + n) * BLOCK)));
    for (let k = 0; k < n; k++) {
      if (blocks.size >= maxBlocks) blocks.delete(blocks.keys().next().value);
      blocks.set(i + k, bytes.subarray(k * BLOCK, (k + 1) * BLOCK));
    }
    lastMiss = i + n - 1;
    return blocks.get(i);
  };
  const block = (i) => {
    const b = blocks.get(i);
    if (!b) return load(i);
    blocks.delete(i);
    blocks.set(i, b);
    return b;
  };
  const handle = {
    reads: 0,
    // Bytes [at, at + view.length) of the database as a slot holds it
    // (after HEADER_SIZE), into `view`; the count read.
    read(view, { at }) {
      try {
        return readInto(view, at);
      } catch (e) {
        handle.failure = e.name || 'Error';
        throw e;
      }
    },
    // A fresh Uint8Array of the database's bytes [offset, offset + n).
    readAt(offset, n) {
      const out = new Uint8Array(n);
      handle.read(out, { at: HEADER_SIZE + offset });
      return out;
    },
    write() { throw new Error('this file is read-only'); },
    truncate() { throw new Error('this file is read-only'); },
    getSize: () => HEADER_SIZE + dbSize,
    flush() {},
  };
  function readInto(view, at) {
    const off = at - HEADER_SIZE;
    if (off >= dbSize) return 0;
    const end = Math.min(dbSize, off + view.length);
    let pos = off;
    while (pos < end) {
      const abs = pos + headerBytes;
      const b = block(Math.floor(abs / BLOCK));
      const from = abs % BLOCK;
      const n = Math.min(b.length - from, end - pos);
      view.set(b.subarray(from, from + n), pos - off);
      pos += n;
    }
    for (const i of [18, 19]) if (off <= i && i < end && view[i - off] === 2) view[i - off] = 1;
    handle.reads++;
    return end - off;
  }
  return handle;
}

