#include "server-shim/cli.h"

#include <iostream>
#include <vector>

#include "core/time_util.h"

namespace pulse::cli {

namespace {
std::vector<std::pair<const char*, CommandSetup>>& Registry() {
  static std::vector<std::pair<const char*, CommandSetup>> r;
  return r;
}
}  // namespace

CommandRegistrar::CommandRegistrar(const char* name, CommandSetup setup) { Registry().push_back({name, setup}); }

void AddCommonOptions(CLI::App* sub, State& state, bool needs_workflow) {
  sub->add_option("--workspace", state.globals.workspace, "the workspace directory (holds Workflow/)")->required();
  if (needs_workflow) {
    sub->add_option("--workflow", state.globals.workflow, "the workflow's slug (its folder under Workflow/)")
        ->required();
  }
  sub->add_option("--now", state.globals.now, "evaluate as of this RFC 3339 time (default: the clock)");
  sub->add_flag("--json", state.globals.json, "print one JSON document");
}

Result<Env*> GetEnv(State& state) {
  if (!state.env) {
    int64_t now = DefaultEnv()->NowSeconds();
    if (!state.globals.now.empty()) {
      Result<int64_t> t = ParseTime(state.globals.now);
      if (!t.ok()) return Status::InvalidArgument("--now: " + t.status().message());
      now = *t;
    }
    state.env = std::make_unique<FixedClockEnv>(DefaultEnv(), now);
  }
  return static_cast<Env*>(state.env.get());
}

Result<OpenedWorkflow> OpenFromFlags(State& state) {
  PULSE_ASSIGN_OR_RETURN(Env * env, GetEnv(state));
  if (!env->IsDirectory(state.globals.workspace)) {
    return Status::NotFound(state.globals.workspace + ": workspace directory does not exist");
  }
  return OpenWorkflow(*env, state.globals.workspace, state.globals.workflow);
}

int Fail(const Status& status) {
  std::cerr << "pulse: " << status.message() << std::endl;
  switch (status.code()) {
    case Code::kRefused:
    case Code::kConflict:
    case Code::kBusy:
      return 1;
    default:
      return 2;
  }
}

void PrintJson(const nlohmann::json& doc) { std::cout << doc.dump(2) << std::endl; }

void SetupAll(CLI::App& app, State& state) {
  for (auto& [name, setup] : Registry()) setup(app, state);
}

}  // namespace pulse::cli
