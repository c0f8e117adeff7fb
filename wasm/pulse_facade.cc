#include "wasm/pulse_facade.h"

#include <cmath>
#include <cstdio>

#include "core/api/api.h"
#include "core/base/env.h"
#include "core/base/json_limits.h"

namespace pulse::wasm {

using nlohmann::json;

namespace {

// The browser's `now`: NaN for the real clock, else seconds since the epoch
// within the years ParseTime reads (0000 to 9999). Anything else is refused
// before it is converted (a double past int64's range does not convert).
Result<int64_t> NowFrom(double now_seconds) {
  constexpr double kFirst = -62167219200;  // 0000-01-01T00:00:00Z
  constexpr double kLast = 253402300799;  // 9999-12-31T23:59:59Z
  if (std::isnan(now_seconds)) return DefaultEnv()->NowSeconds();
  if (!(now_seconds >= kFirst && now_seconds <= kLast)) {
    char shown[32];
    std::snprintf(shown, sizeof shown, "%g", now_seconds);
    return Status::InvalidArgument(std::string("now: ") + shown + " is not a time in seconds (years 0000 to 9999)");
  }
  return static_cast<int64_t>(std::floor(now_seconds));
}

// Best effort, as agent_log.started/completed: a write that fails is told
// to the caller as data and logged once per call.
AgentLogWrite Written(const Status& s, const char* method) {
  if (s.ok()) return AgentLogWrite{true, ""};
  DefaultEnv()->Log(LogLevel::kWarn, std::string(method) + ": not recorded: " + s.message());
  return AgentLogWrite{false, s.message()};
}

}  // namespace

Facade::Facade(sqlite3* db) {
  if (db) db_ = Db::Borrow(db, "database");
}

Facade::~Facade() = default;

Result<json> Facade::Call(const std::string& method, const std::string& args_json, double now_seconds) {
  PULSE_ASSIGN_OR_RETURN(int64_t now, NowFrom(now_seconds));
  FixedClockEnv env(DefaultEnv(), now);
  // Bounded: a document nested deeper than any Pulse writes is refused
  // before anything recurses over it (the module's stack is small).
  PULSE_ASSIGN_OR_RETURN(json args, ParseJsonBounded(args_json.empty() ? "{}" : args_json, method + ": arguments"));
  if (!db_) {
    ApiContext ctx;
    ctx.env = &env;
    return CallApi(ctx, method, args);
  }
  PULSE_RETURN_IF_ERROR(EnsureHandle());
  PULSE_RETURN_IF_ERROR(handle_->Refresh());
  if (handle_->generation() != ctx_generation_) {
    ctx_ = ContextFor(*handle_);
    ctx_generation_ = handle_->generation();
  }
  // This call's clock, for this call only.
  ctx_.env = &env;
  handle_->set_env(&env);
  Result<json> out = CallApi(ctx_, method, args);
  ctx_.env = DefaultEnv();
  handle_->set_env(DefaultEnv());
  return out;
}

Status Facade::EnsureHandle() {
  if (handle_) return Status::OK();
  PULSE_ASSIGN_OR_RETURN(handle_, WorkflowHandle::Borrow(*db_, *DefaultEnv()));  // ensures the schema
  return Status::OK();
}

Status Facade::EnsureAgentLog() {
  if (workspace_path_) return Status::OK();
  if (!db_) {
    workspace_path_ = "";
    return Status::OK();
  }
  PULSE_RETURN_IF_ERROR(EnsureHandle());
  PULSE_RETURN_IF_ERROR(handle_->Refresh());
  writer_ = std::make_unique<AgentLogWriter>(*db_);
  workspace_path_ = handle_->workflow().empty() ? "" : handle_->agent_log_key();
  return Status::OK();
}

Result<AgentLogWrite> Facade::AgentStarted(const AgentStart& start, double now_seconds) {
  PULSE_RETURN_IF_ERROR(ValidateAgentStart(start));
  PULSE_RETURN_IF_ERROR(EnsureAgentLog());
  // Workflow-scoped only, as agent_log.started: no workflow, nothing written.
  if (workspace_path_->empty()) return AgentLogWrite{false, "no workflow"};
  PULSE_ASSIGN_OR_RETURN(int64_t now, NowFrom(now_seconds));
  return Written(writer_->Started(*workspace_path_, start, now), "agent_log.started");
}

Result<AgentLogWrite> Facade::AgentCompleted(const AgentCompletion& done, double now_seconds) {
  PULSE_RETURN_IF_ERROR(ValidateAgentCompletion(done));
  PULSE_RETURN_IF_ERROR(EnsureAgentLog());
  if (workspace_path_->empty()) return AgentLogWrite{false, "no workflow"};
  PULSE_ASSIGN_OR_RETURN(int64_t now, NowFrom(now_seconds));
  return Written(writer_->Completed(*workspace_path_, done, now), "agent_log.completed");
}

}  // namespace pulse::wasm
