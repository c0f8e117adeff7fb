// --platform: where tool calls that belong to the workflow platform go once
// the autonomy guard allowed them. Pulse itself never runs them; the
// operator's command does, and its answer is the call's result.
#include <spdlog/spdlog.h>

#include "core/base/json_limits.h"
#include "core/autonomy/tool_sessions.h"
#include "server-shim/serve.h"

namespace pulse::serve {

using nlohmann::json;

std::unique_ptr<PlatformForwarder> MakePlatformForwarder(const ServeOptions& options, const std::string& workflow) {
  if (options.platform.empty()) return nullptr;
  std::string command = options.platform;
  double timeout = options.platform_timeout;
  return std::make_unique<PlatformForwarder>(
      [command, timeout, workflow](const ToolSession& session, const std::string& tool,
                                   const json& args) -> Result<PlatformResult> {
        json call = {{"workflow", workflow}, {"session", session.id}, {"turn", TurnKindName(session.turn)},
                     {"tool", tool}, {"arguments", args}};
        ProcessResult p = RunProcess(command, call.dump() + "\n", {{"PULSE_WORKFLOW", workflow}}, timeout, nullptr, 2);
        PlatformResult out;
        if (!p.spawn_error.empty()) return Status::IoError("platform command: " + p.spawn_error);
        out.done = !p.timed_out && p.signal == 0 && p.exit_code == 0;
        Result<json> parsed = ParseJsonBounded(p.out, "platform answer");
        out.result = parsed.ok() ? *parsed : json(p.out);
        if (!out.done) {
          json failed = {{"answer", out.result}, {"exit_code", p.exit_code}, {"timed_out", p.timed_out}};
          if (!p.err.empty()) failed["stderr"] = p.err;
          out.result = failed;
          spdlog::warn("platform command: {} for {} did not succeed (exit {}{})", tool, workflow, p.exit_code,
                       p.timed_out ? ", timed out" : "");
        }
        return out;
      });
}

}  // namespace pulse::serve
