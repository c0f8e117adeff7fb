#include "server-shim/db_stamp.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <memory>

namespace pulse::serve {

namespace {

// The first `n` bytes (at most `size`, the file's size by stat) of a
// database (`type` SQLITE_OPEN_MAIN_DB) or of its WAL (SQLITE_OPEN_WAL), read
// through the default VFS; empty when the file cannot be opened or is
// shorter by now. The unix VFS shares one record per inode with every
// connection of this process: a database file this process holds locks on
// is not closed when its handle is (the descriptor is kept for the next
// open of that file instead), so the connections' locks stay. SQLite takes
// no lock on a WAL file.
std::string ReadHeader(const std::string& db_path, int type, size_t n, int64_t size) {
  sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
  if (!vfs) return "";
  // The name laid out as SQLite hands it to xOpen (database, journal and WAL
  // names, each double-NUL terminated).
  std::unique_ptr<const char, void (*)(sqlite3_filename)> name(
      sqlite3_create_filename(db_path.c_str(), (db_path + "-journal").c_str(), (db_path + "-wal").c_str(), 0, nullptr),
      sqlite3_free_filename);
  if (!name) return "";
  const char* path = type == SQLITE_OPEN_WAL ? sqlite3_filename_wal(name.get()) : name.get();
  std::unique_ptr<sqlite3_file, void (*)(void*)> file(static_cast<sqlite3_file*>(sqlite3_malloc(vfs->szOsFile)),
                                                      sqlite3_free);
  if (!file) return "";
  std::fill_n(reinterpret_cast<char*>(file.get()), vfs->szOsFile, '\0');
  int out_flags = 0;
  int rc = vfs->xOpen(vfs, path, file.get(), SQLITE_OPEN_READONLY | type, &out_flags);
  std::string header;
  if (rc == SQLITE_OK) {
    header.resize(std::min(n, static_cast<size_t>(size)));
    // SQLITE_IOERR_SHORT_READ when the file shrank since the stat.
    if (file->pMethods->xRead(file.get(), header.data(), static_cast<int>(header.size()), 0) != SQLITE_OK) {
      header.clear();
    }
  }
  // xClose runs whenever xOpen left methods set, failed or not.
  if (file->pMethods) file->pMethods->xClose(file.get());
  return header;
}

FileStamp StampDatabaseFile(const std::string& db_path, int type, size_t header_bytes) {
  FileStamp f = StampFile(type == SQLITE_OPEN_WAL ? db_path + "-wal" : db_path);
  if (f.exists && f.size > 0) f.header = ReadHeader(db_path, type, header_bytes, f.size);
  return f;
}

}  // namespace

FileStamp StampFile(const std::string& path) {
  FileStamp f;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return f;
  f.exists = true;
  f.dev = st.st_dev;
  f.ino = st.st_ino;
  f.size = static_cast<int64_t>(st.st_size);
  f.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return f;
}

DbStamp StampDatabase(const std::string& db_path) {
  DbStamp s;
  s.wal = StampDatabaseFile(db_path, SQLITE_OPEN_WAL, 32);
  // An empty WAL holds no frames: it is the same database as no WAL at all
  // (a reader's connection creates one where the last writer deleted it).
  if (s.wal.size == 0) s.wal = FileStamp{};
  s.db = StampDatabaseFile(db_path, SQLITE_OPEN_MAIN_DB, 100);
  return s;
}

}  // namespace pulse::serve
