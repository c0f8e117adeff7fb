// Env: the seam for time, files and logging. Core code never reads the clock,
// touches a path or prints on its own; it asks the Env it was given, so tests
// use a fixed clock and a temp directory, and `--now` makes results
// reproducible.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace pulse {

// The most ReadFile takes from one file: far above any file Pulse reads (a
// schedule-runs.json of 100,000 runs is about 20 MB), low enough that a
// runaway or hostile file in the workspace cannot exhaust the memory.
inline constexpr int64_t kMaxReadFileBytes = int64_t{128} << 20;

enum class LogLevel { kDebug, kInfo, kWarn, kError };

class Env {
 public:
  virtual ~Env() = default;
  // Seconds since the Unix epoch, UTC.
  virtual int64_t NowSeconds() = 0;
  virtual void Log(LogLevel level, const std::string& message) = 0;

  // NotFound when the file is missing; InvalidArgument for what is not a
  // regular file (a directory, a FIFO that would block the reader, a device
  // such as /dev/zero) and for a file over kMaxReadFileBytes; IoError
  // otherwise.
  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  // Writes a sibling temp file, fsyncs it and renames it over `path`, so a
  // reader sees the old content or the new, never half of it.
  virtual Status WriteFileAtomic(const std::string& path, const std::string& content) = 0;
  // Compare-and-swap of a whole file: replaces `path` with `content` only
  // while it still holds exactly `expected`, else Conflict and the file is
  // left as the other writer made it. On Linux the new text (written and
  // fsynced beside it) is exchanged in with renameat2(RENAME_EXCHANGE), so
  // the name always holds a whole file, even when the writer is killed
  // mid-swap, and what it held comes back to be compared (a mismatch is
  // exchanged back); Pulse's writers of one folder take turns under a
  // flock(2) on it, and what a killed writer left beside the file is
  // removed. Elsewhere the current file is taken aside with rename(2) and the
  // new one linked in. The default (a check, then WriteFileAtomic) is for
  // single-writer Envs.
  virtual Status SwapFile(const std::string& path, const std::string& expected, const std::string& content);
  virtual bool FileExists(const std::string& path) = 0;
  virtual bool IsDirectory(const std::string& path) = 0;
  virtual Status CreateDirs(const std::string& path) = 0;
  // Names (not paths) of the entries in `dir`, sorted.
  virtual Result<std::vector<std::string>> ListDir(const std::string& dir) = 0;
  // Modification time in seconds since the epoch (NotFound when missing).
  virtual Result<int64_t> ModifiedAt(const std::string& path) = 0;
  // Size in bytes (NotFound when missing). Lets a reader refuse an outside
  // file over its bound before reading it; the default reads the file.
  virtual Result<int64_t> FileSize(const std::string& path);
};

// The real clock, POSIX files, warnings on stderr.
Env* DefaultEnv();

// Forwards every call to `base`; subclasses override what they change.
class DelegatingEnv : public Env {
 public:
  explicit DelegatingEnv(Env* base) : base_(base) {}

  int64_t NowSeconds() override { return base_->NowSeconds(); }
  void Log(LogLevel level, const std::string& message) override { base_->Log(level, message); }
  Result<std::string> ReadFile(const std::string& path) override { return base_->ReadFile(path); }
  Status WriteFileAtomic(const std::string& path, const std::string& content) override {
    return base_->WriteFileAtomic(path, content);
  }
  Status SwapFile(const std::string& path, const std::string& expected, const std::string& content) override {
    return base_->SwapFile(path, expected, content);
  }
  bool FileExists(const std::string& path) override { return base_->FileExists(path); }
  bool IsDirectory(const std::string& path) override { return base_->IsDirectory(path); }
  Status CreateDirs(const std::string& path) override { return base_->CreateDirs(path); }
  Result<std::vector<std::string>> ListDir(const std::string& dir) override { return base_->ListDir(dir); }
  Result<int64_t> ModifiedAt(const std::string& path) override { return base_->ModifiedAt(path); }
  Result<int64_t> FileSize(const std::string& path) override { return base_->FileSize(path); }

 protected:
  Env* base() const { return base_; }

 private:
  Env* base_;
};

// Delegates everything to `base` except the clock, which stands still at
// `now` until Set/Advance moves it.
class FixedClockEnv : public DelegatingEnv {
 public:
  FixedClockEnv(Env* base, int64_t now) : DelegatingEnv(base), now_(now) {}
  void Set(int64_t now) { now_ = now; }
  void Advance(int64_t seconds) { now_ += seconds; }

  int64_t NowSeconds() override { return now_; }

 private:
  int64_t now_;
};

// Wraps an Env and keeps every log line in memory (tests assert on them).
class CapturingEnv : public FixedClockEnv {
 public:
  using FixedClockEnv::FixedClockEnv;
  void Log(LogLevel level, const std::string& message) override { lines.push_back(message); }
  std::vector<std::string> lines;
};

}  // namespace pulse
