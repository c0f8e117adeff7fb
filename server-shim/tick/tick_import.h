// The tick's import of schedule-runs.json, skipped while the file holds what
// the last import of this database took in. The import only adds runs not
// yet known and nothing removes a run's facts, so a file read in whole
// before adds nothing the second time; what it costs (parse every run, look
// each up) is most of a quiet visit.
#pragma once

#include <string>

#include "core/store/db.h"
#include "core/base/env.h"
#include "core/goal/goal_facts.h"
#include "core/workflow/workflow_config.h"

namespace pulse::serve {

// As ImportScheduleRunsFile; when the file's size and content hash are the ones
// recorded in the database by the last import that took in the whole file,
// nothing is read from it beyond the hash and nothing is imported.
// `max_runs` > 0: at most that many new runs, the newest first; with runs
// left (`remaining` > 0) the file is not marked as taken in, so the next
// call imports the next ones. `max_runs` < 0: nothing now; `remaining` is 1
// when the file changed since its last whole import (it is not parsed).
Result<ImportCounts> ImportScheduleRunsOnChange(Env& env, Db& db, const WorkflowConfig& config,
                                                const std::string& path, int max_runs = 0);

}  // namespace pulse::serve
