// A workflow database's change stamp, read from the file system without
// opening the database: what the server's caches key on so a read answered
// from memory is exactly what opening the database afresh would answer.
//
// No descriptor of a database file is ever opened here outside SQLite: on
// POSIX, closing any descriptor of a file drops every advisory lock the
// process holds on it, so an open()/close() of db.sqlite beside the server's
// own connections would drop SQLite's locks, and an outside reader closing
// its connection would then take the database for unused, checkpoint it and
// delete the WAL and shm under the server ("How To Corrupt An SQLite Database
// File", 2.2). Identity, size and time come from stat(2) (no descriptor); the
// header bytes are read through SQLite's own file layer (the default VFS),
// which keeps a descriptor of a locked file open rather than close it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace pulse::serve {

// One file's identity and content marks. Every committed write changes at
// least one of them: in WAL mode a commit appends frames to db.sqlite-wal
// (its size grows) or restarts the WAL (its header's checkpoint counter and
// salts change); in rollback mode it bumps the file change counter in the
// database header (bytes 24..27) and rewrites db.sqlite.
struct FileStamp {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;
  std::string header;  // the first bytes: 100 of a database, 32 of a WAL
  bool operator==(const FileStamp& o) const {
    return exists == o.exists && dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns &&
           header == o.header;
  }
};

struct DbStamp {
  FileStamp db, wal;
  bool operator==(const DbStamp& o) const { return db == o.db && wal == o.wal; }
  bool operator!=(const DbStamp& o) const { return !(*this == o); }
};

// The stat of the file or folder at `path` (no header; no descriptor is
// opened, so a FIFO or a locked database file is stamped like any other);
// exists=false when absent.
FileStamp StampFile(const std::string& path);
// db.sqlite and db.sqlite-wal together, with their headers read through
// SQLite's file layer.
DbStamp StampDatabase(const std::string& db_path);

}  // namespace pulse::serve
