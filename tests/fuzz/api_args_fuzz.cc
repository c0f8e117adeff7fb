// The WASM facade's arguments: what the browser passes to Pulse.call — a
// method name and its arguments as JSON text — into the facade itself
// (wasm/pulse_facade.cc, plain C++ compiled natively here) over a workflow
// database opened in the scratch workspace, then the reply rendered as the
// bindings render it. The first byte picks the method; methods the browser
// build leaves out answer not_found there and run here.
#include "tests/fuzz/fuzz_util.h"
#include "wasm/pulse_facade.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  if (size == 0) return 0;
  const std::vector<ApiMethod>& methods = CoreApi().methods();
  std::string method = methods[data[0] % methods.size()].name;
  fuzz::Opened& o = fuzz::TheWorkflow();
  wasm::Facade facade(o.w.db->handle());
  Result<nlohmann::json> out = facade.Call(method, fuzz::Text(data + 1, size - 1), 1791363600);
  std::string reply = out.ok() ? nlohmann::json{{"result", *out}}.dump() : out.status().message();
  (void)reply;
  return 0;
}
