#include "server-shim/http/snapshot_route.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "core/base/env.h"
#include "core/store/snapshot.h"
#include "server-shim/http/http_util.h"

namespace pulse::serve {

void ReplySnapshot(const std::string& workspace, const std::string& workflow, Db& db, httplib::Response& res) {
  static std::atomic<uint64_t> counter{0};
  const std::string dir = workspace + "/.pulse/snapshots";
  Status made = DefaultEnv()->CreateDirs(dir);
  if (!made.ok()) return ReplyStatus(res, made);
  const std::string path =
      dir + "/" + workflow + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)) + ".sqlite";
  ::unlink(path.c_str());  // a leftover of an earlier process with the same pid
  Result<SnapshotInfo> info = SnapshotDatabase(db, path);
  int fd = info.ok() ? ::open(path.c_str(), O_RDONLY | O_CLOEXEC) : -1;
  ::unlink(path.c_str());
  ::unlink((path + "-journal").c_str());
  if (!info.ok()) return ReplyStatus(res, info.status());
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    if (fd >= 0) ::close(fd);
    return ReplyError(res, 500, "snapshot of " + workflow + ": the copy could not be read back");
  }
  spdlog::info("snapshot of {}: {} bytes ({} pages)", workflow, st.st_size, info->pages);
  res.status = 200;
  res.set_header("Cache-Control", "no-store");
  res.set_header("Content-Disposition", "attachment; filename=\"" + workflow + ".db.sqlite\"");
  res.set_content_provider(
      static_cast<size_t>(st.st_size), "application/vnd.sqlite3",
      [fd](size_t offset, size_t length, httplib::DataSink& sink) {
        char buf[1 << 16];
        ssize_t n = ::pread(fd, buf, std::min(length, sizeof(buf)), static_cast<off_t>(offset));
        if (n <= 0) return false;
        return sink.write(buf, static_cast<size_t>(n));
      },
      [fd](bool) { ::close(fd); });
}

}  // namespace pulse::serve
