// The "opfs-pulse" SQLite VFS: database and journal files live in a pool of
// OPFS FileSystemSyncAccessHandles opened ahead of time by the JS pool
// (wasm/opfs-pool.mjs), the design of SQLite's opfs-sahpool. Every file
// operation is a synchronous call into that pool through EM_JS, so no
// ASYNCIFY and no COOP/COEP headers are needed; it only works in a dedicated
// Worker, where sync access handles exist.
//
// One connection per database copy: locking is a no-op because the pool is
// held exclusively by one worker (another tab cannot open the handles).
// Shared memory is not provided, so WAL is not possible; journal_mode is
// DELETE (the default) or TRUNCATE, and journals are pool files too, so a
// commit is durable once xSync has flushed the journal and the database.
#include <emscripten.h>
#include <emscripten/html5.h>
#include <sqlite3.h>

#include <cstring>

// JS side, installed as Module.pulseOpfs by the pool. Offsets and sizes cross
// as doubles (no BigInt in this build); results are SQLite codes or, for
// open and size, a non-negative value or a negative SQLite code.
EM_JS(int, pulse_opfs_js_open, (const char* name, int flags), {
  return Module.pulseOpfs.xOpen(name ? UTF8ToString(name) : "", flags);
});
EM_JS(int, pulse_opfs_js_close, (int id), { return Module.pulseOpfs.xClose(id); });
EM_JS(int, pulse_opfs_js_read, (int id, unsigned char* buf, int n, double offset),
      { return Module.pulseOpfs.xRead(id, buf, n, offset); });
EM_JS(int, pulse_opfs_js_write, (int id, const unsigned char* buf, int n, double offset),
      { return Module.pulseOpfs.xWrite(id, buf, n, offset); });
EM_JS(int, pulse_opfs_js_truncate, (int id, double size), { return Module.pulseOpfs.xTruncate(id, size); });
EM_JS(int, pulse_opfs_js_sync, (int id), { return Module.pulseOpfs.xSync(id); });
EM_JS(double, pulse_opfs_js_size, (int id), { return Module.pulseOpfs.xFileSize(id); });
EM_JS(int, pulse_opfs_js_delete, (const char* name), { return Module.pulseOpfs.xDelete(UTF8ToString(name)); });
EM_JS(int, pulse_opfs_js_access, (const char* name), { return Module.pulseOpfs.xAccess(UTF8ToString(name)); });
EM_JS(void, pulse_opfs_js_random, (unsigned char* buf, int n), {
  crypto.getRandomValues(HEAPU8.subarray(buf, buf + n));
});

namespace {

struct PulseFile {
  sqlite3_file base;
  int id;
};

int Close(sqlite3_file* f) { return pulse_opfs_js_close(reinterpret_cast<PulseFile*>(f)->id); }

int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 offset) {
  return pulse_opfs_js_read(reinterpret_cast<PulseFile*>(f)->id, static_cast<unsigned char*>(buf), n,
                            static_cast<double>(offset));
}

int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 offset) {
  return pulse_opfs_js_write(reinterpret_cast<PulseFile*>(f)->id, static_cast<const unsigned char*>(buf), n,
                             static_cast<double>(offset));
}

int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  return pulse_opfs_js_truncate(reinterpret_cast<PulseFile*>(f)->id, static_cast<double>(size));
}

int Sync(sqlite3_file* f, int) { return pulse_opfs_js_sync(reinterpret_cast<PulseFile*>(f)->id); }

int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  double s = pulse_opfs_js_size(reinterpret_cast<PulseFile*>(f)->id);
  if (s < 0) return SQLITE_IOERR_FSTAT;
  *size = static_cast<sqlite3_int64>(s);
  return SQLITE_OK;
}

// The pool is exclusive to this worker, so there is no one to lock against.
int Lock(sqlite3_file*, int) { return SQLITE_OK; }
int Unlock(sqlite3_file*, int) { return SQLITE_OK; }
int CheckReservedLock(sqlite3_file*, int* out) {
  *out = 0;
  return SQLITE_OK;
}
int FileControl(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }
int SectorSize(sqlite3_file*) { return 4096; }
int DeviceCharacteristics(sqlite3_file*) { return SQLITE_IOCAP_UNDELETABLE_WHEN_OPEN; }

const sqlite3_io_methods kIoMethods = {
    1,  // iVersion 1: no xShm*, so SQLite never tries WAL over this VFS
    Close, Read, Write, Truncate, Sync, FileSize, Lock, Unlock, CheckReservedLock,
    FileControl, SectorSize, DeviceCharacteristics,
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

int Open(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags, int* out_flags) {
  auto* file = reinterpret_cast<PulseFile*>(f);
  file->base.pMethods = nullptr;  // SQLite calls no xClose when open fails
  int id = pulse_opfs_js_open(name, flags);
  if (id < 0) return -id;
  file->id = id;
  file->base.pMethods = &kIoMethods;
  if (out_flags) *out_flags = flags;
  return SQLITE_OK;
}

int Delete(sqlite3_vfs*, const char* name, int) { return pulse_opfs_js_delete(name); }

int Access(sqlite3_vfs*, const char* name, int, int* out) {
  *out = pulse_opfs_js_access(name);
  return SQLITE_OK;
}

// Names are pool keys, not paths: "/<copy>" and "/<copy>-journal".
int FullPathname(sqlite3_vfs*, const char* name, int n, char* out) {
  int len = static_cast<int>(std::strlen(name));
  int lead = name[0] == '/' ? 0 : 1;
  if (len + lead + 1 > n) return SQLITE_CANTOPEN;
  if (lead) out[0] = '/';
  std::memcpy(out + lead, name, len + 1);
  return SQLITE_OK;
}

int Randomness(sqlite3_vfs*, int n, char* out) {
  pulse_opfs_js_random(reinterpret_cast<unsigned char*>(out), n);
  return n;
}

int Sleep(sqlite3_vfs*, int microseconds) { return microseconds; }

// iVersion 2 with xCurrentTimeInt64 (SQLITE_OMIT_DEPRECATED leaves xCurrentTime
// null, and datetime() would crash): Julian day in ms.
int CurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* out) {
  *out = static_cast<sqlite3_int64>(emscripten_date_now()) + 210866760000000LL;
  return SQLITE_OK;
}

int CurrentTime(sqlite3_vfs* vfs, double* out) {
  sqlite3_int64 ms = 0;
  CurrentTimeInt64(vfs, &ms);
  *out = ms / 86400000.0;
  return SQLITE_OK;
}

int GetLastError(sqlite3_vfs*, int, char*) { return 0; }

sqlite3_vfs g_vfs = {
    2, sizeof(PulseFile), 512, nullptr, "opfs-pulse", nullptr,
    Open, Delete, Access, FullPathname,
    nullptr, nullptr, nullptr, nullptr,  // no dynamic extensions
    Randomness, Sleep, CurrentTime, GetLastError, CurrentTimeInt64,
    nullptr, nullptr, nullptr};

}  // namespace

// Registers the VFS (not as the default). Called by the pool once its
// handles are open; returns an SQLite result code.
extern "C" EMSCRIPTEN_KEEPALIVE int pulse_opfs_register() {
  if (sqlite3_vfs_find("opfs-pulse")) return SQLITE_OK;
  return sqlite3_vfs_register(&g_vfs, 0);
}
