// The server's Env: POSIX files and the real clock, except that the clock can
// be read from a file (`pulse serve --now-file F`), re-read on every call, so
// a test moves the server's time by rewriting one file. Safe to share across
// threads (no state beyond the path).
#pragma once

#include <string>

#include "core/base/env.h"

namespace pulse::serve {

class ServerEnv : public DelegatingEnv {
 public:
  explicit ServerEnv(std::string now_file) : DelegatingEnv(DefaultEnv()), now_file_(std::move(now_file)) {}

  // The time in --now-file when it holds one; the real clock otherwise (a
  // missing or malformed file falls back to the clock, with a warning).
  int64_t NowSeconds() override;
  void Log(LogLevel level, const std::string& message) override;

 private:
  std::string now_file_;
};

}  // namespace pulse::serve
