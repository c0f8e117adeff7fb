// `pulse token rotate`: a new owner token for the workspace. The token is
// printed once, on stdout (the only place it ever appears); the workspace
// keeps its hash, and a running server refuses the old token from its next
// request on.
#include "server-shim/cli/cli.h"
#include "server-shim/http/owner_token.h"

namespace pulse::cli {
namespace {

void Setup(CLI::App& app, State& state) {
  CLI::App* token = app.add_subcommand("token", "the owner token: the secret that lets the Pulse tab act as the owner");
  token->require_subcommand(1);
  CLI::App* rotate = token->add_subcommand(
      "rotate", "make a new owner token, print it once and make the old one stop working");
  AddCommonOptions(rotate, state, /*needs_workflow=*/false);
  rotate->callback([&state] {
    Env* env = DefaultEnv();
    if (!env->IsDirectory(state.globals.workspace)) {
      state.exit_code = Fail(Status::InvalidArgument(state.globals.workspace + ": workspace directory does not exist"));
      return;
    }
    Result<std::string> t = serve::RotateOwnerToken(state.globals.workspace);
    if (!t.ok()) {
      state.exit_code = Fail(t.status());
      return;
    }
    if (state.globals.json) {
      PrintJson(nlohmann::json{{"token", *t}, {"hash_file", serve::OwnerTokenHashPath(state.globals.workspace)}});
    } else {
      std::cout << *t << std::endl;
      std::cerr << "pulse: new owner token above (shown once; only its hash is kept in "
                << serve::OwnerTokenHashPath(state.globals.workspace) << "); the old token no longer works"
                << std::endl;
    }
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("token", Setup);
}  // namespace pulse::cli
