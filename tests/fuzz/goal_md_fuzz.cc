// memory/goal.md: the owner may edit it by hand, so it is outside input.
// Parsed, then saved through the API as an owner's edit is, then shown as the
// Pulse tab shows it.
#include "core/goal/goal_memory.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  using nlohmann::json;
  std::string text = fuzz::Text(data, size);
  ParsedMemory parsed = ParseGoalMemory(text);
  (void)parsed;
  fuzz::Opened& o = fuzz::TheWorkflow();
  Result<json> before = CallApi(o.ctx, "memory.show", json::object());
  std::string base = before.ok() && (*before)["hash"].is_string() ? (*before)["hash"].get<std::string>() : "";
  (void)CallApi(o.ctx, "memory.save", json{{"text", text}, {"base_hash", base}});
  Result<json> shown = CallApi(o.ctx, "memory.show", json::object());
  if (shown.ok()) (void)shown->dump();
  return 0;
}
