// `pulse info`: the workflow's configuration as Pulse reads it, and the API
// methods the core offers. Also proves a workflow opens cleanly.
#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "server-shim/cli/cli.h"

namespace pulse::cli {
namespace {

void Setup(CLI::App& app, State& state) {
  static bool with_methods = false;
  CLI::App* sub = app.add_subcommand("info", "show the workflow's Pulse configuration");
  AddCommonOptions(sub, state);
  sub->add_flag("--methods", with_methods, "also list the core's API methods (for developers)");
  sub->callback([&state] {
    Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
    if (!w.ok()) {
      state.exit_code = Fail(w.status());
      return;
    }
    ApiContext ctx = ServerContext(**w);
    Result<nlohmann::json> config = CallApi(ctx, "pulse.config", nlohmann::json::object());
    Result<nlohmann::json> methods = CallApi(ctx, "pulse.methods", nlohmann::json::object());
    if (!config.ok()) { state.exit_code = Fail(config.status()); return; }
    if (!methods.ok()) { state.exit_code = Fail(methods.status()); return; }
    nlohmann::json out = *config;
    if (with_methods) out["methods"] = *methods;
    if (state.globals.json) {
      PrintJson(out);
    } else {
      std::cout << "workflow " << ctx.workflow << (ctx.config.HasGoal() ? " (has a goal)" : " (no goal)") << "\n"
                << "database " << (*w)->paths()->db << "\n";
      if (with_methods) {
        for (const auto& m : *methods) std::cout << "  " << m["name"].get<std::string>() << "  " << m["summary"].get<std::string>() << "\n";
      } else {
        std::cout << "(pulse info --methods lists the core's API methods)\n";
      }
    }
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("info", Setup);
}  // namespace pulse::cli
