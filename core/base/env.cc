#include "core/base/env.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pulse {

namespace {

// Files through POSIX calls, not std::filesystem and file streams: those
// and the locales behind them are a large share of the WebAssembly module.
bool Stat(const std::string& path, struct stat* st) { return ::stat(path.c_str(), st) == 0; }

Status TooLarge(const std::string& path, int64_t bytes) {
  return Status::InvalidArgument(path + ": too large (" + std::to_string(bytes) + " bytes; the bound is " +
                                 std::to_string(kMaxReadFileBytes) + ")");
}

bool IsDir(const std::string& path) {
  struct stat st;
  return Stat(path, &st) && S_ISDIR(st.st_mode);
}

// Every missing directory down to `path` (mkdir -p); errno on failure.
int MakeDirs(const std::string& path) {
  if (path.empty()) return EINVAL;
  struct stat st;
  if (Stat(path, &st)) return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
  for (size_t at = path.find('/', 1);; at = path.find('/', at + 1)) {
    std::string prefix = path.substr(0, at);
    if (!prefix.empty() && prefix.back() != '/' && ::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) return errno;
    if (at == std::string::npos) break;
  }
  return IsDir(path) ? 0 : ENOTDIR;
}

// A name next to `path` no other thread or process of ours uses.
std::string UniqueSibling(const std::string& path, const char* tag) {
  static std::atomic<uint64_t> counter{0};
  return path + tag + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

// Writes `content` to a fresh sibling of `path` and fsyncs it.
Status WriteTemp(const std::string& path, const std::string& content, mode_t mode, std::string* tmp_out) {
  std::string tmp = UniqueSibling(path, ".tmp-");
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return Status::IoError(path + ": cannot write: " + std::strerror(errno));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::IoError(path + ": write failed: " + err);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Status::IoError(path + ": sync failed: " + err);
  }
  *tmp_out = tmp;
  return Status::OK();
}

#if defined(__linux__) && defined(RENAME_EXCHANGE)
std::string DirOf(const std::string& path) {
  size_t cut = path.find_last_of('/');
  return cut == std::string::npos ? "." : cut == 0 ? "/" : path.substr(0, cut);
}

// Holds an exclusive flock(2) on a directory while alive: Pulse's writers of
// the files in it (processes or threads) take turns. Best effort: where the
// directory cannot be locked the swap still compares what it replaces.
class DirLock {
 public:
  explicit DirLock(const std::string& dir) : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ >= 0) {
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~DirLock() {
    if (fd_ >= 0) ::close(fd_);  // closing drops the lock
  }
  void SyncDir() const {
    if (fd_ >= 0) (void)::fsync(fd_);
  }

 private:
  int fd_;
};

// What a writer killed mid-swap left beside `path` ("<name>.tmp-<pid>-<n>",
// "<name>.pulse-old-<pid>-<n>"): removed once that process is gone.
void RemoveLeftovers(const std::string& path) {
  const std::string dir = DirOf(path);
  const std::string base = path.substr(path.find_last_of('/') + 1);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    for (const char* tag : {".tmp-", ".pulse-old-"}) {
      std::string prefix = base + tag;
      if (name.compare(0, prefix.size(), prefix) != 0) continue;
      long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
      if (pid > 0 && pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
        ::unlink((dir + "/" + name).c_str());
      }
    }
  }
  ::closedir(d);
}

// SwapFile on Linux: the new text is written beside the file, then swapped
// in with renameat2(RENAME_EXCHANGE), so the name always holds a whole file
// (the old or the new: it is never missing, even when the writer is killed
// mid-swap) and what it held comes back to be compared. When that is not
// what was read, another writer got there first: the exchange is undone and
// the caller re-reads. Where the file system cannot exchange, the compare
// and a plain rename(2) happen under the directory lock.
// The whole file, false when it cannot be opened.
bool ReadWhole(const std::string& path, std::string* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

Status ExchangeFile(const std::string& path, const std::string& expected, const std::string& content, mode_t mode) {
  DirLock lock(DirOf(path));
  RemoveLeftovers(path);
  std::string tmp;
  PULSE_RETURN_IF_ERROR(WriteTemp(path, content, mode, &tmp));
  struct Unlink {
    const std::string& p;
    ~Unlink() { ::unlink(p.c_str()); }
  } cleanup{tmp};
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    std::string was;
    if (ReadWhole(tmp, &was) && was == expected) {
      lock.SyncDir();
      return Status::OK();
    }
    // Theirs goes back the same way (the name still never empty).
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) != 0) {
      return Status::IoError(path + ": cannot put back another writer's text: " + std::strerror(errno));
    }
    return Status::Conflict(path + ": changed by another writer since Pulse read it");
  }
  const int e = errno;
  if (e == ENOENT) return Status::Conflict(path + ": taken away by another writer while Pulse was writing");
  if (e != EINVAL && e != ENOSYS && e != ENOTSUP && e != EOPNOTSUPP) {
    return Status::IoError(path + ": cannot swap: " + std::strerror(e));
  }
  // No exchange here: compare, then rename(2), under the directory lock.
  std::string now;
  if (!ReadWhole(path, &now)) return Status::Conflict(path + ": taken away by another writer while Pulse was writing");
  if (now != expected) return Status::Conflict(path + ": changed by another writer since Pulse read it");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Status::IoError(path + ": rename failed: " + std::strerror(errno));
  lock.SyncDir();
  return Status::OK();
}
#endif

class PosixEnv : public Env {
 public:
  int64_t NowSeconds() override {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  void Log(LogLevel level, const std::string& message) override {
    if (level == LogLevel::kDebug) return;
    const char* tag = level == LogLevel::kError ? "error" : level == LogLevel::kWarn ? "warning" : "info";
    std::string line = std::string("pulse: ") + tag + ": " + message + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }

  Result<std::string> ReadFile(const std::string& path) override {
    struct stat st;
    if (!Stat(path, &st)) return Status::NotFound(path + ": no such file");
    if (S_ISDIR(st.st_mode)) return Status::InvalidArgument(path + ": is a directory, not a file");
    // O_NONBLOCK: a FIFO put there after the check must not block the open.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      // Gone between the check and the open (a writer swapping it): missing.
      if (!Stat(path, &st)) return Status::NotFound(path + ": no such file");
      return Status::IoError(path + ": cannot read: " + std::strerror(errno));
    }
    // What was opened, not what was checked: only a regular file is read,
    // and no more of it than the bound, even when it grows while read.
    Status refused;
    if (::fstat(fd, &st) != 0) refused = Status::IoError(path + ": cannot read: " + std::strerror(errno));
    else if (!S_ISREG(st.st_mode)) refused = Status::InvalidArgument(path + ": not a regular file");
    else if (st.st_size > kMaxReadFileBytes) refused = TooLarge(path, st.st_size);
    if (!refused.ok()) {
      ::close(fd);
      return refused;
    }
    std::string out;
    out.reserve(static_cast<size_t>(st.st_size));
    char buf[65536];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ::close(fd);
        return Status::IoError(path + ": read failed");
      }
      if (n == 0) break;
      if (static_cast<int64_t>(out.size()) + n > kMaxReadFileBytes) {
        ::close(fd);
        return TooLarge(path, static_cast<int64_t>(out.size()) + n);
      }
      out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
  }

  Status WriteFileAtomic(const std::string& path, const std::string& content) override {
    std::string tmp;
    PULSE_RETURN_IF_ERROR(WriteTemp(path, content, 0644, &tmp));
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      std::string err = std::strerror(errno);
      ::unlink(tmp.c_str());
      return Status::IoError(path + ": rename failed: " + err);
    }
    return Status::OK();
  }

  Status SwapFile(const std::string& path, const std::string& expected, const std::string& content) override {
    struct stat st;
    mode_t mode = ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    return ExchangeFile(path, expected, content, mode);
#else
    std::string tmp;
    PULSE_RETURN_IF_ERROR(WriteTemp(path, content, mode, &tmp));
    std::string aside = UniqueSibling(path, ".pulse-old-");
    // Take the current file away atomically: whatever another writer put
    // there last is now ours to compare, and nobody can replace it unseen.
    if (::rename(path.c_str(), aside.c_str()) != 0) {
      std::string err = std::strerror(errno);
      int e = errno;
      ::unlink(tmp.c_str());
      if (e == ENOENT) return Status::Conflict(path + ": taken away by another writer while Pulse was writing");
      return Status::IoError(path + ": cannot swap: " + err);
    }
    Result<std::string> current = ReadFile(aside);
    bool same = current.ok() && *current == expected;
    // Ours when it matched, else the file we took goes back; link(2) never
    // replaces a file another writer put in place in the meantime.
    const std::string& in = same ? tmp : aside;
    int linked = ::link(in.c_str(), path.c_str());
    int e = errno;
    ::unlink(tmp.c_str());
    ::unlink(aside.c_str());
    if (!same) return Status::Conflict(path + ": changed by another writer since Pulse read it");
    if (linked != 0) {
      if (e == EEXIST) return Status::Conflict(path + ": rewritten by another writer while Pulse was writing");
      return Status::IoError(path + ": cannot swap: " + std::strerror(e));
    }
    return Status::OK();
#endif
  }

  bool FileExists(const std::string& path) override {
    struct stat st;
    return Stat(path, &st);
  }

  bool IsDirectory(const std::string& path) override { return IsDir(path); }

  Status CreateDirs(const std::string& path) override {
    int err = MakeDirs(path);
    if (err != 0) return Status::IoError(path + ": cannot create directory: " + std::strerror(err));
    return Status::OK();
  }

  Result<std::vector<std::string>> ListDir(const std::string& dir) override {
    if (!IsDir(dir)) return Status::NotFound(dir + ": no such directory");
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return Status::IoError(dir + ": cannot list: " + std::strerror(errno));
    std::vector<std::string> names;
    errno = 0;
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    int err = errno;
    ::closedir(d);
    if (err != 0) return Status::IoError(dir + ": cannot list: " + std::strerror(err));
    std::sort(names.begin(), names.end());
    return names;
  }

  Result<int64_t> ModifiedAt(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return Status::NotFound(path + ": no such file");
    return static_cast<int64_t>(st.st_mtime);
  }

  Result<int64_t> FileSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return Status::NotFound(path + ": no such file");
    return static_cast<int64_t>(st.st_size);
  }
};

}  // namespace

Result<int64_t> Env::FileSize(const std::string& path) {
  PULSE_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return static_cast<int64_t>(text.size());
}

Status Env::SwapFile(const std::string& path, const std::string& expected, const std::string& content) {
  Result<std::string> current = ReadFile(path);
  if (!current.ok()) return current.status();
  if (*current != expected) return Status::Conflict(path + ": changed by another writer since Pulse read it");
  return WriteFileAtomic(path, content);
}

Env* DefaultEnv() {
  static PosixEnv env;
  return &env;
}

}  // namespace pulse
