// The one check of a SQLite database file's 100-byte header, shared by the
// page (data/local-store.mjs: a file is refused before anything is sent to
// the worker) and the WASM module's JS layer (sqljs-api.mjs, which the build
// copies this file next to: new Database(bytes), the OPFS imports).
//
// A whole database starts with "SQLite format 3\0", has a page size that is
// a power of two from 512 to 65536, is a whole number of pages long, and —
// when the header's page count is valid — exactly that many pages.

const MAGIC = 'SQLite format 3\0';

// `head`: at least the file's first 100 bytes; `size`: the file's length;
// `what`: how the problem names the file. Returns {problem} ('' when the
// header is good) and, when it is, {pageSize, pageCount}.
export function readSqliteHeader(head, size, what) {
  const bad = (problem) => ({ problem, pageSize: 0, pageCount: 0 });
  if (size === 0) return bad(`${what} is empty (0 bytes): not a SQLite database`);
  if (size < 100 || head.length < 100) {
    return bad(`${what} is not a SQLite database: only ${size} bytes, shorter than the 100-byte header`);
  }
  for (let i = 0; i < 16; i++) {
    if (head[i] !== MAGIC.charCodeAt(i)) return bad(`${what} is not a SQLite database (no "SQLite format 3" header)`);
  }
  let pageSize = (head[16] << 8) | head[17];
  if (pageSize === 1) pageSize = 65536;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    return bad(`${what} is not a valid SQLite database: bad page size ${pageSize} in the header`);
  }
  if (size % pageSize !== 0) {
    return bad(`${what} is truncated: ${size} bytes is not a whole number of ${pageSize}-byte pages`);
  }
  const u32 = (o) => ((head[o] << 24) | (head[o + 1] << 16) | (head[o + 2] << 8) | head[o + 3]) >>> 0;
  const pageCount = u32(28);
  // The in-header size is only valid when "version-valid-for" matches the
  // change counter (SQLite's own rule); older writers leave it stale.
  if (pageCount !== 0 && u32(92) === u32(24)) {
    const expected = pageCount * pageSize;
    if (size < expected) {
      return bad(`${what} is truncated: the header says ${pageCount} pages of ${pageSize} bytes (${expected} bytes) but there are only ${size}`);
    }
    if (size > expected) return bad(`${what} is not a valid SQLite database: ${size} bytes where the header says ${expected}`);
  }
  return { problem: '', pageSize, pageCount: size / pageSize };
}

// The problem with a file's header, or '' when it is a whole SQLite database.
export function sqliteHeaderProblem(head, size, what) {
  return readSqliteHeader(head, size, what).problem;
}
