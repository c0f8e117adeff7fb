#include "core/api_access.h"

namespace pulse {

bool IsReadOnlyCall(std::string_view method, const nlohmann::json& args) {
  static const char* kReads[] = {
      "pulse.version",     "pulse.methods",       "pulse.config",      "pulse.tools",
      "goal.check",        "goal.readings",       "goal.runs_by_route", "goal.check_due",
      "agent_log.show",    "decision.list",       "memory.show",       "autonomy.levels",
      "autonomy.catalog",  "autonomy.decisions",  "outbox.list",
  };
  for (const char* m : kReads) {
    if (method != m) continue;
    if (method == "goal.check" && args.is_object()) {
      auto it = args.find("record");
      if (it != args.end() && !(it->is_boolean() && !it->get<bool>()) && !it->is_null()) return false;
    }
    return true;
  }
  return false;
}

bool IsServerOnlyMethod(std::string_view method) {
  return method == "session.open" || method == "session.resolve" || method == "session.close" ||
         method == "pulse.tool_call" || method == "turn.rules" || method == "turn.context" ||
         method == "turn.check_due" || method == "agent_log.started" || method == "agent_log.completed" ||
         method == "outbox.mark";
}

}  // namespace pulse
