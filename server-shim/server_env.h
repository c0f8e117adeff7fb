// The server's Env: POSIX files and the real clock, except that the clock can
// be read from a file (`pulse serve --now-file F`), re-read on every call, so
// a test moves the server's time by rewriting one file. Safe to share across
// threads (no state beyond the path).
#pragma once

#include <string>

#include "core/env.h"

namespace pulse::serve {

class ServerEnv : public Env {
 public:
  explicit ServerEnv(std::string now_file) : base_(DefaultEnv()), now_file_(std::move(now_file)) {}

  // The time in --now-file when it holds one; the real clock otherwise (a
  // missing or malformed file falls back to the clock, with a warning).
  int64_t NowSeconds() override;
  void Log(LogLevel level, const std::string& message) override;
  Result<std::string> ReadFile(const std::string& path) override { return base_->ReadFile(path); }
  Status WriteFileAtomic(const std::string& path, const std::string& content) override {
    return base_->WriteFileAtomic(path, content);
  }
  bool FileExists(const std::string& path) override { return base_->FileExists(path); }
  bool IsDirectory(const std::string& path) override { return base_->IsDirectory(path); }
  Status CreateDirs(const std::string& path) override { return base_->CreateDirs(path); }
  Result<std::vector<std::string>> ListDir(const std::string& dir) override { return base_->ListDir(dir); }
  Result<int64_t> ModifiedAt(const std::string& path) override { return base_->ModifiedAt(path); }

 private:
  Env* base_;
  std::string now_file_;
};

}  // namespace pulse::serve
