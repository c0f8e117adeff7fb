// The `pulse` command line: each subcommand lives in its own cli_*.cc and
// registers itself with PULSE_REGISTER_COMMAND, so files do not depend on
// each other. Exit status (CONTRACT.md): 0 success, 1 the command ran and
// found a problem it reports, 2 bad usage or bad input.
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/env.h"
#include "core/status.h"
#include "core/workspace.h"

namespace pulse::cli {

// Options every subcommand shares, filled by CLI11.
struct Globals {
  std::string workspace;
  std::string workflow;
  std::string now;  // RFC 3339; empty: the clock
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

// Adds --workspace/--workflow/--now/--json to a subcommand.
void AddCommonOptions(CLI::App* sub, State& state, bool needs_workflow = true);

// Env for this invocation; InvalidArgument when --now is not a time.
Result<Env*> GetEnv(State& state);

// Opens the named workflow (workflow.json parsed, database ready).
Result<OpenedWorkflow> OpenFromFlags(State& state);

// Prints "pulse: <message>" on stderr and returns the exit status for it.
int Fail(const Status& status);
// Prints a JSON document (pretty when `pretty`).
void PrintJson(const nlohmann::json& doc);

}  // namespace pulse::cli
