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

#include "core/base/env.h"
#include "core/base/status.h"
#include "core/workflow/handle.h"
#include "core/store/workspace.h"

namespace pulse::serve {
struct SandboxOptions;
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

// Opens the named workflow (workflow.json parsed, database ready).
Result<std::unique_ptr<WorkflowHandle>> OpenFromFlags(State& state);

// CLI::Range for a real-number flag (seconds): CLI11's Range lets "nan"
// through, since every comparison with NaN is false, so a value that is not
// a finite number is refused first, then the range is checked.
CLI::Validator FiniteRange(double min, double max);

// Every command's --help: plain flags, one example, the exit codes (cli_help.cc).
void FinishHelp(CLI::App& app);
// The one line for a usage error: "did you mean" for a mistyped command or
// flag, and the command's own --help to read.
std::string UsageError(CLI::App& app, int argc, char** argv, const std::string& error);

// Goal statuses worst first (what `pulse status` sorts by and what
// `--fail-on` accepts): off_track, not_measured, at_risk, on_track, no_goal.
int StatusRank(const std::string& status);
// "--fail-on a,b": the statuses, or InvalidArgument naming the one unknown.
Result<std::vector<std::string>> ParseFailOn(const std::string& list);

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
