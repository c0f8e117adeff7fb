// A workflow database's change stamp, read from the file system without
// opening the database: what the server's caches key on so a read answered
// from memory is exactly what opening the database afresh would answer.
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

// `header_bytes` of the file at `path` with its stat; exists=false when absent.
FileStamp StampFile(const std::string& path, size_t header_bytes);
// db.sqlite and db.sqlite-wal together.
DbStamp StampDatabase(const std::string& db_path);

}  // namespace pulse::serve
