// A property, not only "no crash": every call tests/fuzz/guard_spellings.h
// makes from the input (soul.md written through shell quoting, escapes,
// braces, parameter defaults, globs, cp into its folder, patches with git's
// quoted names; refused tools under look-alike names, directly or through
// wrappers; notify_user with a key of its own in a run_failed turn) is
// refused by the guard with every level at its most permissive. A call the
// guard allows aborts the run, printing it.
#include <cstdio>
#include <cstdlib>

#include "core/autonomy/autonomy.h"
#include "core/autonomy/tool_sessions.h"
#include "tests/fuzz/guard_spellings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  fuzz::Choices in(data, size);
  fuzz::GuardCall call = fuzz::MakeRefusedCall(in);
  AutonomyLevels levels;
  levels.run = levels.outward = levels.change = Level::kAuto;
  levels.unclassified = "allow";
  Result<TurnKind> turn = ParseTurnKind(call.turn);
  if (!turn.ok()) abort();
  GuardDecision d = DecideToolCall(*turn, levels, false, call.tool, call.args);
  if (d.allowed) {
    std::fprintf(stderr, "guard allowed %s: %s %s %s -> %s\n", call.what.c_str(), call.turn.c_str(),
                 call.tool.c_str(), call.args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str(),
                 d.reason.c_str());
    abort();
  }
  return 0;
}
