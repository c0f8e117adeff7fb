#include "server-shim/server_env.h"

#include <spdlog/spdlog.h>

#include "core/base/time_util.h"

namespace pulse::serve {

int64_t ServerEnv::NowSeconds() {
  if (now_file_.empty()) return base()->NowSeconds();
  Result<std::string> text = base()->ReadFile(now_file_);
  if (!text.ok()) return base()->NowSeconds();
  std::string t = *text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  Result<int64_t> at = ParseTime(t);
  if (!at.ok()) {
    spdlog::warn("--now-file {}: {}; using the clock", now_file_, at.status().message());
    return base()->NowSeconds();
  }
  return *at;
}

int64_t MovingClockEnv::NowSeconds() {
  const int64_t set = base()->NowSeconds();
  const int64_t wall = DefaultEnv()->NowSeconds();
  std::lock_guard<std::mutex> l(mu_);
  if (set != set_) {
    set_ = set;
    wall_ = wall;
  }
  return set + (wall - wall_);
}

void ServerEnv::Log(LogLevel level, const std::string& message) {
  switch (level) {
    case LogLevel::kDebug: spdlog::debug("{}", message); break;
    case LogLevel::kInfo: spdlog::info("{}", message); break;
    case LogLevel::kWarn: spdlog::warn("{}", message); break;
    case LogLevel::kError: spdlog::error("{}", message); break;
  }
}

}  // namespace pulse::serve
