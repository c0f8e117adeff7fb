// The module's Embind registrations: the Pulse facade (wasm/pulse_facade.h)
// and the typed values it takes and gives. Declarations only; conversions
// are in embind_helpers.h, behaviour in the facade and the core. The JS face
// (Module.Pulse: errors thrown as Error with .code) is wasm/pulse-post.js.
//
// Registered when the facade is first used (pulse-post.js calls
// pulse_register_facade once, before the first Module.PulseFacade), not as
// the module starts: a page or program that only opens databases never runs
// them, and loading the module costs what Embind's own built-in types do
// (bench/anchors.mjs, module load in Node: ~0.8 ms of a cold start).
#include <emscripten/bind.h>

#include "wasm/embind_helpers.h"
#include "wasm/pulse_facade.h"

namespace {

using emscripten::val;
using pulse::wasm::Facade;

// `db` is the sqlite3* a JS Database holds (0: no database).
Facade* NewFacade(uintptr_t db) { return new Facade(reinterpret_cast<sqlite3*>(db)); }

// Each returns the result, or an Error value the JS face throws (a throw
// from inside the module would skip its stack restore and destructors).
val Call(Facade& f, const std::string& method, const std::string& args_json, double now) {
  pulse::Result<nlohmann::json> r = f.Call(method, args_json, now);
  return r.ok() ? pulse::wasm::JsonToVal(*r) : pulse::wasm::ErrorToVal(r.status());
}
val AgentStarted(Facade& f, const pulse::AgentStart& e, double now) {
  return pulse::wasm::ResultToVal(f.AgentStarted(e, now));
}
val AgentCompleted(Facade& f, const pulse::AgentCompletion& e, double now) {
  return pulse::wasm::ResultToVal(f.AgentCompleted(e, now));
}

}  // namespace

extern "C" void pulse_register_facade() {
  using namespace emscripten;
  using pulse::AgentCompletion;
  using pulse::AgentStart;
  using pulse::wasm::AgentLogWrite;

  // Field names are the JSON API's (agent_log.started / completed); `at` is
  // seconds since the epoch, NaN for "now".
  value_object<AgentStart>("AgentStart")
      .field("session", &AgentStart::session_id)
      .field("agent", &AgentStart::agent_id)
      .field("name", &AgentStart::name)
      .field("kind", &AgentStart::kind)
      .field("parent", &AgentStart::parent_execution_id)
      .field("pulse_run_id", &AgentStart::pulse_run_id)
      .field("at", &pulse::wasm::EventAtToJs<AgentStart>, &pulse::wasm::EventAtFromJs<AgentStart>);
  value_object<AgentCompletion>("AgentCompletion")
      .field("session", &AgentCompletion::session_id)
      .field("agent", &AgentCompletion::agent_id)
      .field("status", &AgentCompletion::status)
      .field("result", &AgentCompletion::result)
      .field("error", &AgentCompletion::error)
      .field("duration", &AgentCompletion::duration)
      .field("at", &pulse::wasm::EventAtToJs<AgentCompletion>, &pulse::wasm::EventAtFromJs<AgentCompletion>);
  value_object<AgentLogWrite>("AgentLogWrite")
      .field("recorded", &AgentLogWrite::recorded)
      .field("warning", &AgentLogWrite::warning);

  class_<Facade>("PulseFacade")
      .constructor(&NewFacade, allow_raw_pointers())
      .function("call", &Call)
      .function("agentStarted", &AgentStarted)
      .function("agentCompleted", &AgentCompleted);
}
