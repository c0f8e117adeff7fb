// pulse: the native program. Parses the command line (CLI11) and runs the
// chosen subcommand; see cli.h for the exit-status contract.
#include <sqlite3.h>

#include <iostream>

#include "server-shim/cli/cli.h"

namespace pulse::cli {
void SetupAll(CLI::App& app, State& state);
}

int main(int argc, char** argv) {
  using namespace pulse::cli;
  CLI::App app{"Pulse: the goal owner and flight recorder for automated AI workflows", "pulse"};
  app.set_version_flag("--version", std::string("pulse ") + PULSE_VERSION + " (sqlite " + sqlite3_libversion() + ")");
  app.require_subcommand(1);
  State state;
  SetupAll(app, state);
  FinishHelp(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line naming the problem; usage errors exit 2.
    std::string what = e.what();
    std::cerr << "pulse: " << UsageError(app, argc, argv, what.empty() ? e.get_name() : what) << std::endl;
    return 2;
  }
  return state.exit_code;
}
