// schedule-runs.json: the history of runs older than Pulse's own records,
// parsed and imported into the workflow database. Both readers run on every
// input: the one the tick uses (ParseScheduleRunsText, no JSON tree) must give
// the runs, or the error, that ParseScheduleRuns gives on the tree.
#include <cstdlib>
#include <cstdio>

#include "core/goal/goal_facts.h"
#include "core/goal/schedule_runs_text.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

bool SameRuns(const std::vector<pulse::RunRecord>& a, const std::vector<pulse::RunRecord>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const pulse::RunRecord& x = a[i];
    const pulse::RunRecord& y = b[i];
    if (x.run_id != y.run_id || x.schedule_id != y.schedule_id || x.trigger != y.trigger ||
        x.started_at != y.started_at || x.finished_at != y.finished_at || x.status != y.status ||
        x.error != y.error || x.route != y.route) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  const std::string text = fuzz::Text(data, size);
  Result<std::vector<RunRecord>> direct = ParseScheduleRunsText(text, "schedule-runs.json");
  Result<nlohmann::json> doc = ParseJsonText(text, "schedule-runs.json");
  Result<std::vector<RunRecord>> runs =
      doc.ok() ? ParseScheduleRuns(*doc, "schedule-runs.json") : Result<std::vector<RunRecord>>(doc.status());
  const bool same = direct.ok() == runs.ok() &&
                    (runs.ok() ? SameRuns(*direct, *runs) : direct.status().message() == runs.status().message());
  if (!same) {
    std::fprintf(stderr, "ParseScheduleRunsText disagrees with the tree:\n  text: %s\n  tree: %s\n",
                 direct.ok() ? "runs" : direct.status().message().c_str(),
                 runs.ok() ? "runs" : runs.status().message().c_str());
    std::abort();
  }
  if (!runs.ok()) return 0;
  fuzz::Opened& o = fuzz::TheWorkflow();
  (void)ImportScheduleRuns(*o.ctx.db, o.ctx.config, *runs, o.env.NowSeconds());
  return 0;
}
