#include "server-shim/db_stamp.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pulse::serve {

FileStamp StampFile(const std::string& path, size_t header_bytes) {
  FileStamp f;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return f;
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    f.exists = true;
    f.dev = st.st_dev;
    f.ino = st.st_ino;
    f.size = static_cast<int64_t>(st.st_size);
    f.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    f.header.resize(header_bytes);
    ssize_t n = ::pread(fd, f.header.data(), header_bytes, 0);
    f.header.resize(n > 0 ? static_cast<size_t>(n) : 0);
  }
  ::close(fd);
  return f;
}

DbStamp StampDatabase(const std::string& db_path) {
  DbStamp s;
  s.wal = StampFile(db_path + "-wal", 32);
  // An empty WAL holds no frames: it is the same database as no WAL at all
  // (a reader's connection creates one where the last writer deleted it).
  if (s.wal.size == 0) s.wal = FileStamp{};
  s.db = StampFile(db_path, 100);
  return s;
}

}  // namespace pulse::serve
