// The server's Env: POSIX files and the real clock, except that the clock can
// be read from a file (`pulse serve --now-file F`), re-read on every call, so
// a test moves the server's time by rewriting one file. Safe to share across
// threads (no state beyond the path).
#pragma once

#include <cstdint>
#include <mutex>
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

// A clock that moves on from a clock that stands still: while `base` keeps
// giving the same time (a --now-file that holds one time, as the demo's
// does), the seconds since are added; when it moves (the real clock, or the
// file rewritten) it is `base` again. The outbox's deliveries count their
// retries on it, so a retry comes on the demo's frozen clock too.
class MovingClockEnv : public DelegatingEnv {
 public:
  explicit MovingClockEnv(Env* base) : DelegatingEnv(base) {}
  int64_t NowSeconds() override;

 private:
  std::mutex mu_;
  int64_t set_ = INT64_MIN;  // the base clock's last time
  int64_t wall_ = 0;         // the real clock when it was first seen
};

}  // namespace pulse::serve
