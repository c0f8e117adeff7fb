// Decision and ask texts, as an agent or the owner sends them: the input's
// lines are the question, an option, Pulse's reason and the owner's answer.
// The decision goes through create, recommend, answer and list, and the list
// must render as JSON whatever bytes were sent.
#include <sstream>
#include <vector>

#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  using nlohmann::json;
  std::vector<std::string> parts(4);
  std::istringstream in(fuzz::Text(data, size));
  for (std::string& p : parts) std::getline(in, p);
  fuzz::Opened& o = fuzz::TheWorkflow();
  Result<json> made = CallApi(o.ctx, "decision.create", json{{"question", parts[0]}, {"options", {parts[1], "no"}}});
  if (made.ok()) {
    json id = (*made)["id"];
    (void)CallApi(o.ctx, "decision.recommend",
                  json{{"id", id}, {"option", parts[1]}, {"why", parts[2]}, {"confidence", "high"}});
    (void)CallApi(o.ctx, "decision.answer", json{{"id", id}, {"text", parts[3]}, {"note", parts[2]}});
  }
  Result<json> list = CallApi(o.ctx, "decision.list", json{{"status", "all"}});
  if (list.ok()) (void)list->dump();
  return 0;
}
