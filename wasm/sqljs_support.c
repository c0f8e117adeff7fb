// C helpers behind the sql.js-compatible Database (wasm/sqljs-api.mjs): the
// two SQLite calls whose 64-bit arguments the JS side cannot pass as plain
// numbers in this build (WASM_BIGINT=0), database images in and out; and the
// heap figure the leak checks read.
#include <malloc.h>
#include <sqlite3.h>

// Opens an in-memory connection over `n` bytes at `data`, which must come
// from sqlite3_malloc: SQLite owns them afterwards, even on failure.
// Returns an SQLite result code; *out is the connection (close it on error).
int pulse_db_from_bytes(unsigned char* data, int n, sqlite3** out) {
  int rc = sqlite3_open_v2(":memory:", out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0);
  if (rc != SQLITE_OK) {
    sqlite3_free(data);
    return rc;
  }
  return sqlite3_deserialize(*out, "main", data, n, n,
                             SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
}

// The database image of `db`'s main schema, in memory the caller releases
// with sqlite3_free; *n gets its size. NULL with *n == 0: an empty database;
// NULL with *n == -1: out of memory.
unsigned char* pulse_db_to_bytes(sqlite3* db, int* n) {
  sqlite3_int64 size = 0;
  unsigned char* p = sqlite3_serialize(db, "main", &size, 0);
  *n = p ? (int)size : (size == 0 ? 0 : -1);
  return p;
}


// Bytes of the heap in use (the allocator's own count): what the leak checks
// of the JS callbacks compare before and after many calls.
int pulse_heap_in_use(void) { return (int)mallinfo().uordblks; }
