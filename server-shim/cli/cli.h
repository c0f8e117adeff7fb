// The `pulse` command line: each subcommand lives in its own cli_*.cc and
// registers itself with PULSE_REGISTER_COMMAND, so files do not depend on
// each other. Exit status (docs/cli.md): 0 success, 1 the command ran and
// found a problem it reports, 2 bad usage or bad input.
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/model/model_spec.h"
#include "core/base/env.h"
#include "core/base/status.h"
#include "core/workflow/handle.h"
#include "core/store/workspace.h"

namespace pulse::serve {
struct SandboxOptions;
struct ServeOptions;
class TurnManager;
class LoopbackMcp;
}

namespace pulse::cli {

// Options every subcommand shares, filled by CLI11.
struct Globals {
  std::string workspace;
  std::string workflow;
  std::string now;  // RFC 3339; empty: the clock
  std::string now_file;  // a file holding the RFC 3339 time (as `pulse serve --now-file`)
  bool json = false;
};

struct State {
  Globals globals;
  int exit_code = 0;
  std::unique_ptr<FixedClockEnv> env;  // the clock stands at --now (or the real now)
  // Which clock `env` stands on, for the commands that name it: "--now",
  // "--now-file <path>", "the demo clock in <path>", "the system clock".
  std::string clock;
};

using CommandSetup = void (*)(CLI::App& app, State& state);

struct CommandRegistrar {
  CommandRegistrar(const char* name, CommandSetup setup);
};

#define PULSE_REGISTER_COMMAND(name, setup) \
  static ::pulse::cli::CommandRegistrar pulse_registrar_##setup(name, setup)

// Adds --workspace/--workflow/--now/--now-file/--json to a subcommand.
void AddCommonOptions(CLI::App* sub, State& state, bool needs_workflow = true);

// The runner sandbox's flags (--sandbox-allow-write/-read, --runner-user,
// --runner-tracking), for every command that takes --runner or --builder;
// check them with serve::CheckSandboxOptions before running anything.
void AddSandboxOptions(CLI::App* sub, serve::SandboxOptions& s);

// A session token from --token, --token-file FILE or $MCP_API_TOKEN (what
// a runner has): the file and the environment keep it off the command line,
// where every local user can read it (/proc/<pid>/cmdline).
struct SessionTokenFlags {
  std::string token;
  std::string file;
};
void AddSessionTokenOptions(CLI::App* sub, SessionTokenFlags& t, const char* what);
// The token given (or, `from_env`, $MCP_API_TOKEN), or InvalidArgument
// naming the flag; "" when none was given and it is not `required`.
Result<std::string> SessionToken(const SessionTokenFlags& t, bool required, bool from_env = true);

// Env for this invocation; InvalidArgument when --now is not a time.
Result<Env*> GetEnv(State& state);
// The same for a command that judges the workspace (`status`, `check`):
// without --now or --now-file, a workspace's .pulse/demo-now (the demo's
// clock, which `pulse serve` is given by scripts/run.sh) is the clock, so the
// command agrees with the Pulse tab; state.clock names the clock either way.
Result<Env*> GetJudgingEnv(State& state);
// "On the demo clock: 2026-10-07T12:00:00Z (demo-workspace/.pulse/demo-now; --now for another time)."
std::string ClockLine(const State& state);

// Opens the named workflow (workflow.json parsed, database ready).
Result<std::unique_ptr<WorkflowHandle>> OpenFromFlags(State& state);
// NotFound when `workspace` is not a directory; InvalidArgument naming the
// right flags when it is a workflow's own folder (…/Workflow/substack).
Status CheckWorkspace(Env& env, const std::string& workspace);

// CLI::Range for a real-number flag (seconds): CLI11's Range lets "nan"
// through, since every comparison with NaN is false, so a value that is not
// a finite number is refused first, then the range is checked.
CLI::Validator FiniteRange(double min, double max);

// --model, --model-url, --model-key-env, --model-max-steps, --model-timeout:
// every command that runs a turn (serve, talk, pass, ask, pre-run).
void AddModelOptions(CLI::App* sub, ModelFlags& flags);
// The flags checked together with --runner (which excludes --model);
// InvalidArgument naming the flag.
Status CheckTurnFlags(const ModelFlags& model, const std::string& runner);

// A one-shot command whose turn has a runner (--runner claude|codex or a
// command): serves Pulse's MCP on loopback for it (`*mcp`, kept until the
// turn is over) and tells `turns` its URL. Nothing without a runner.
Status ServeRunnerMcp(Env* env, const serve::ServeOptions& options, const std::string& workflow,
                      serve::TurnManager& turns, std::unique_ptr<serve::LoopbackMcp>* mcp);

// Every command's --help: plain flags, one example, the exit codes (cli_help.cc).
void FinishHelp(CLI::App& app);
// The one line for a usage error: "did you mean" for a mistyped command or
// flag, and the command's own --help to read.
std::string UsageError(CLI::App& app, int argc, char** argv, const std::string& error);

// Goal statuses worst first (what `pulse status` sorts by and what
// `--fail-on` accepts): off_track, not_measured, at_risk, on_track, no_goal.
int StatusRank(const std::string& status);
// "--fail-on a,b": goal statuses and attention kinds (core/attention/
// attention.h); InvalidArgument for an empty list or item, or naming the one
// unknown, with "did you mean" for a near miss.
Result<std::vector<std::string>> ParseFailOn(const std::string& list);
// Why `doc` (a goal status document or a `pulse status` row) meets --fail-on:
// "is not_measured", "needs attention: needs_reauth"; "" when it does not.
// Snoozed attention items never count.
std::string FailOnReason(const nlohmann::json& doc, const std::vector<std::string>& fail_on);
// The nearest of `names` to `typed` (a mistyped name), or "".
std::string Nearest(const std::string& typed, const std::vector<std::string>& names);

// Prints "pulse: <message>" on stderr and returns the exit status for it.
int Fail(const Status& status);
// Opens the workflow named by the flags and calls one API method on it (the
// method the server and the browser call); on failure prints the reason,
// sets the exit status and returns nothing.
std::optional<nlohmann::json> CallOnWorkflow(State& state, const char* method, const nlohmann::json& args);
// A value as a printed line shows it: a string as it is, null as nothing,
// anything else as JSON.
std::string JsonText(const nlohmann::json& v);
// Prints a JSON document (pretty when `pretty`).
void PrintJson(const nlohmann::json& doc);

}  // namespace pulse::cli
