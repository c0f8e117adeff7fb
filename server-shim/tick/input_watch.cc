#include "server-shim/tick/input_watch.h"

#include <sys/stat.h>

#include <chrono>

namespace pulse::serve {

namespace {

bool EndsWith(const std::string& s, const char* tail) {
  std::string t(tail);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

constexpr int64_t kRacyNanos = 1000000000;

}  // namespace

PathStamp StampPath(const std::string& path) {
  PathStamp p;
  p.path = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    p.exists = true;
    p.dir = S_ISDIR(st.st_mode);
    p.dev = st.st_dev;
    p.ino = st.st_ino;
    p.size = static_cast<int64_t>(st.st_size);
    p.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  }
  // A SQLite file's commits may land in its WAL alone: stamp both, with
  // their headers (the change counter, the WAL's salts).
  if (!p.dir && EndsWith(path, ".sqlite")) {
    p.sqlite = true;
    p.db = StampDatabase(path);
  }
  return p;
}

int64_t WallNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void WatchSet::Add(PathStamp stamp) {
  if (!seen_.insert(stamp.path).second) return;
  stamps_.push_back(std::move(stamp));
}

void WatchSet::Merge(const WatchSet& other) {
  for (const PathStamp& s : other.stamps_) Add(s);
}

bool WatchSet::Fresh() const {
  for (const PathStamp& s : stamps_) {
    if (!(StampPath(s.path) == s)) return false;
  }
  return true;
}

bool WatchSet::Racy(int64_t wall_ns) const {
  for (const PathStamp& s : stamps_) {
    // A SQLite file's headers move with every commit whatever its times.
    if (s.exists && !s.sqlite && s.mtime_ns > wall_ns - kRacyNanos) return true;
  }
  return false;
}

void WatchingEnv::Watch(const std::string& path) {
  if (watched_->Has(path) || skip_.count(path)) return;
  watched_->Add(StampPath(path));
}

Result<std::string> WatchingEnv::ReadFile(const std::string& path) {
  Watch(path);
  return FixedClockEnv::ReadFile(path);
}

Status WatchingEnv::WriteFileAtomic(const std::string& path, const std::string& content) {
  Watch(path);
  return FixedClockEnv::WriteFileAtomic(path, content);
}

Status WatchingEnv::SwapFile(const std::string& path, const std::string& expected, const std::string& content) {
  Watch(path);
  return FixedClockEnv::SwapFile(path, expected, content);
}

bool WatchingEnv::FileExists(const std::string& path) {
  Watch(path);
  return FixedClockEnv::FileExists(path);
}

bool WatchingEnv::IsDirectory(const std::string& path) {
  Watch(path);
  return FixedClockEnv::IsDirectory(path);
}

Status WatchingEnv::CreateDirs(const std::string& path) {
  Watch(path);
  return FixedClockEnv::CreateDirs(path);
}

Result<std::vector<std::string>> WatchingEnv::ListDir(const std::string& dir) {
  Watch(dir);
  return FixedClockEnv::ListDir(dir);
}

Result<int64_t> WatchingEnv::ModifiedAt(const std::string& path) {
  Watch(path);
  return FixedClockEnv::ModifiedAt(path);
}

Result<int64_t> WatchingEnv::FileSize(const std::string& path) {
  Watch(path);
  return FixedClockEnv::FileSize(path);
}

}  // namespace pulse::serve
