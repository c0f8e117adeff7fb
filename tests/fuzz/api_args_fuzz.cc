// The WASM facade's arguments: what the browser passes to Module.pulseCall —
// a method name and its arguments as JSON text — through the same steps the
// facade takes on a database opened in the scratch workspace: a bounded JSON
// parse, a context from the database alone (its stored snapshot), CallApi,
// and the reply rendered as JSON. The first byte picks the method.
#include "core/goal_facts.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  using nlohmann::json;
  if (size == 0) return 0;
  const std::vector<ApiMethod>& methods = Api().methods();
  std::string method = methods[data[0] % methods.size()].name;
  Result<json> args = ParseJsonText(fuzz::Text(data + 1, size - 1), method + ": arguments");
  if (!args.ok()) return 0;
  fuzz::Opened& o = fuzz::TheWorkflow();
  Result<ApiContext> ctx = ContextFromDb(*o.w.db, o.env);
  if (!ctx.ok()) abort();  // the snapshot that OpenWorkflow stored must load
  Result<json> out = CallApi(*ctx, method, *args);
  std::string reply = out.ok() ? json{{"result", *out}}.dump() : out.status().message();
  (void)reply;
  return 0;
}
