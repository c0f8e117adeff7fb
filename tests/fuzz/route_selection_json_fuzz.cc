// route_selection.json ({"route": "..."}) from a run's folder.
#include "core/goal/goal_facts.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  Result<nlohmann::json> doc = ParseJsonText(fuzz::Text(data, size), "route_selection.json");
  if (!doc.ok()) return 0;
  Result<std::string> route = ParseRouteSelection(*doc, "route_selection.json");
  if (route.ok()) (void)nlohmann::json(*route).dump();
  return 0;
}
