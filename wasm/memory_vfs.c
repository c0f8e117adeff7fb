// SQLite's default VFS in the WASM module (SQLITE_OS_OTHER: SQLite's unix
// VFS is left out). Every database here is in memory (`new Database()`,
// `new Database(bytes)`, the facade's copies, temp tables and statement
// journals: SQLITE_TEMP_STORE=2) or a copy in the OPFS pool, which has its own
// VFS (wasm/opfs_vfs.cc). So this VFS opens no file: what it gives SQLite is
// the clock, randomness and sleep, which ":memory:" connections and the memdb
// VFS take from the default VFS. A file name on it (ATTACH 'x.db', VACUUM
// INTO 'x.db', PRAGMA temp_store=FILE) fails with "unable to open database
// file"; the unix VFS would have written into Emscripten's in-memory file
// system, which nothing here reads.
#include <time.h>
#include <unistd.h>

#include "sqlite3.h"

static int MemoryOpen(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  (void)vfs;
  (void)name;
  (void)flags;
  (void)out_flags;
  file->pMethods = 0;
  return SQLITE_CANTOPEN;
}

static int MemoryDelete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  (void)vfs;
  (void)name;
  (void)sync_dir;
  return SQLITE_IOERR_DELETE_NOENT;
}

static int MemoryAccess(sqlite3_vfs* vfs, const char* name, int flags, int* out) {
  (void)vfs;
  (void)name;
  (void)flags;
  *out = 0;
  return SQLITE_OK;
}

static int MemoryFullPathname(sqlite3_vfs* vfs, const char* name, int size, char* out) {
  (void)vfs;
  sqlite3_snprintf(size, out, "%s", name);
  return SQLITE_OK;
}

// The system's randomness (Emscripten: crypto.getRandomValues), as the unix
// VFS read it from /dev/urandom.
static int MemoryRandomness(sqlite3_vfs* vfs, int n, char* out) {
  (void)vfs;
  for (int at = 0; at < n; at += 256) {
    int part = n - at < 256 ? n - at : 256;
    if (getentropy(out + at, part) != 0) return at;
  }
  return n;
}

static int MemorySleep(sqlite3_vfs* vfs, int micros) {
  (void)vfs;
  usleep(micros);
  return micros;
}

// Milliseconds since the Julian epoch, as the unix VFS computes them.
static int MemoryCurrentTimeInt64(sqlite3_vfs* vfs, sqlite3_int64* now) {
  (void)vfs;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  *now = (sqlite3_int64)24405875 * 8640000 + (sqlite3_int64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
  return SQLITE_OK;
}

// The memdb VFS calls this one directly.
static int MemoryCurrentTime(sqlite3_vfs* vfs, double* now) {
  sqlite3_int64 ms = 0;
  MemoryCurrentTimeInt64(vfs, &ms);
  *now = ms / 86400000.0;
  return SQLITE_OK;
}

static int MemoryGetLastError(sqlite3_vfs* vfs, int size, char* out) {
  (void)vfs;
  (void)size;
  (void)out;
  return 0;
}

static sqlite3_vfs memory_vfs = {
    2,                       // iVersion: xCurrentTimeInt64
    sizeof(sqlite3_file),    // szOsFile
    512,                     // mxPathname, as the unix VFS
    0,                       // pNext
    "pulse-memory",          // zName
    0,                       // pAppData
    MemoryOpen,
    MemoryDelete,
    MemoryAccess,
    MemoryFullPathname,
    0,                       // xDlOpen: no extensions (SQLITE_OMIT_LOAD_EXTENSION)
    0,
    0,
    0,
    MemoryRandomness,
    MemorySleep,
    MemoryCurrentTime,
    MemoryGetLastError,
    MemoryCurrentTimeInt64,
    0,                       // xSetSystemCall
    0,
    0,
};

int sqlite3_os_init(void) { return sqlite3_vfs_register(&memory_vfs, 1); }

int sqlite3_os_end(void) { return SQLITE_OK; }
