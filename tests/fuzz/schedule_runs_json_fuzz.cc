// schedule-runs.json: the history of runs older than Pulse's own records,
// parsed and imported into the workflow database.
#include "core/goal_facts.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  Result<nlohmann::json> doc = ParseJsonText(fuzz::Text(data, size), "schedule-runs.json");
  if (!doc.ok()) return 0;
  Result<std::vector<RunRecord>> runs = ParseScheduleRuns(*doc, "schedule-runs.json");
  if (!runs.ok()) return 0;
  fuzz::Opened& o = fuzz::TheWorkflow();
  (void)ImportScheduleRuns(*o.ctx.db, o.ctx.config, *runs, o.env.NowSeconds());
  return 0;
}
