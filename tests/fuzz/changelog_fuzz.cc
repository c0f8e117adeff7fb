// planning/changelog.jsonl, the plan's changes one JSON line each: the goal
// check's snapshot copies its lines into the database (a bad line is skipped
// and named), the context facts read them back, and the Workflow Review
// reads the file itself for the changes since the last review. Both replies
// must render as JSON.
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  using nlohmann::json;
  fuzz::Opened& o = fuzz::TheWorkflow();
  fuzz::WriteWorkflowFile("planning/changelog.jsonl", fuzz::Text(data, size));
  Result<json> facts = CallApi(o.ctx, "goal.facts", json::object());
  if (facts.ok()) (void)facts->dump();
  Result<json> review = CallApi(o.ctx, "review.state", json::object());
  if (review.ok()) (void)review->dump();
  return 0;
}
