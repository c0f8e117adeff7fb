// `pulse pre-run` (Workflow Review before a run) and `pulse migrate`
// (pulse_mode -> after_run). The rules are core/review/workflow_review.h and
// core/workflow/after_run.h; pre-run runs the review, when one is due, through a
// TurnManager of this process (the built-in reviewer, or --runner).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <climits>
#include <cstdlib>

#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "server-shim/cli/cli.h"
#include "server-shim/http/loopback_mcp.h"
#include "server-shim/turns/prerun.h"
#include "server-shim/serve.h"

namespace pulse::cli {
namespace {

using nlohmann::json;

struct PreRunFlags {
  std::string step, runner;
  double timeout = 300;
  double wait = -1;
  ModelFlags model;
  serve::SandboxOptions sandbox;  // as `pulse serve`
};

void RunPreRun(State& state, const PreRunFlags& f) {
  if (Status s = CheckTurnFlags(f.model, f.runner); !s.ok()) { state.exit_code = Fail(s); return; }
  if (Status s = serve::CheckSandboxOptions(f.sandbox); !s.ok()) { state.exit_code = Fail(s); return; }
  Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
  if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
  spdlog::set_default_logger(spdlog::stderr_color_mt("pulse-pre-run"));
  serve::ServeOptions opt;
  char real[PATH_MAX];
  opt.workspace = ::realpath(state.globals.workspace.c_str(), real) ? real : state.globals.workspace;
  opt.runner = f.runner;
  opt.model = f.model;
  opt.review_timeout = f.timeout;
  opt.review_wait = f.wait >= 0 ? f.wait : f.timeout + 30;
  opt.sandbox = f.sandbox;
  opt.max_turns = 1;
  serve::TurnManager turns(state.env.get(), opt);
  // A runner reaches Pulse's tools over MCP: served here on loopback for the turn.
  std::unique_ptr<serve::LoopbackMcp> mcp;
  if (Status s = ServeRunnerMcp(state.env.get(), opt, state.globals.workflow, turns, &mcp); !s.ok()) { state.exit_code = Fail(s); return; }
  serve::PreRunRequest req;
  req.workflow = state.globals.workflow;
  req.step = f.step;
  Result<json> out = serve::PreRun(*state.env, opt, turns, req);
  turns.Drain();
  if (!out.ok()) { state.exit_code = Fail(out.status()); return; }
  const bool go = (*out)["go"] == true;
  if (state.globals.json) {
    PrintJson(*out);
  } else {
    std::cout << (go ? "go" : "stop") << ((*out).contains("reason") ? ": " + (*out)["reason"].get<std::string>() : "")
              << "\n";
  }
  if (!go) state.exit_code = 1;
}

void SetupPreRun(CLI::App& app, State& state) {
  static PreRunFlags f;
  CLI::App* sub = app.add_subcommand("pre-run", "Workflow Review before a run: go, or the reason not to");
  AddCommonOptions(sub, state);
  sub->add_option("--step", f.step, "the step the run executes (default: the whole workflow)");
  sub->add_option("--runner", f.runner, "review with this command (as `pulse serve --runner`); default: the built-in reviewer");
  sub->add_option("--review-timeout", f.timeout, "seconds before the review's runner is killed and the run goes (default 300)")
      ->check(FiniteRange(0.1, 86400.0));
  sub->add_option("--wait-seconds", f.wait, "seconds to wait for a review (default: the timeout plus 30)")
      ->check(FiniteRange(0.0, 86400.0));
  AddModelOptions(sub, f.model);
  AddSandboxOptions(sub, f.sandbox);
  sub->callback([&state] { RunPreRun(state, f); });
}

void SetupMigrate(CLI::App& app, State& state) {
  CLI::App* sub = app.add_subcommand("migrate", "pulse_mode -> after_run in workflow.json (also done at serve start)");
  AddCommonOptions(sub, state);
  sub->callback([&state] {
    Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
    if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
    ApiContext ctx = ServerContext(**w);
    Result<json> out = CallApi(ctx, "workflow.migrate", json::object());
    if (!out.ok()) { state.exit_code = Fail(out.status()); return; }
    if (state.globals.json) {
      PrintJson(*out);
    } else if ((*out)["written"] == true) {
      std::cout << "migrated: after_run from pulse_mode for " << (*out)["migrated"].dump() << ", pulse_mode in step for "
                << (*out)["in_step"].dump() << ((*out)["pulse_kept_on"] == true ? ", pulse.enabled kept on" : "") << "\n";
    } else {
      std::cout << "nothing to migrate\n";
    }
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("pre-run", SetupPreRun);
PULSE_REGISTER_COMMAND("migrate", SetupMigrate);
}  // namespace pulse::cli
