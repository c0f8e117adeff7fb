// run.json, as the after-run hook (finalize-run) reads it, then recorded.
#include "core/goal/goal_facts.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  Result<nlohmann::json> doc = ParseJsonText(fuzz::Text(data, size), "run.json");
  if (!doc.ok()) return 0;
  Result<RunRecord> run = ParseRunJson(*doc, "run.json");
  if (!run.ok()) return 0;
  fuzz::Opened& o = fuzz::TheWorkflow();
  (void)RecordRunFacts(*o.ctx.db, o.ctx.config, *run, o.env.NowSeconds());
  return 0;
}
