// The tick's import of schedule-runs.json, skipped while the file holds what
// the last import of this database took in. The import only adds runs not
// yet known and nothing removes a run's facts, so a file read in whole
// before adds nothing the second time; what it costs (parse every run, look
// each up) is most of a quiet visit.
#pragma once

#include <string>

#include "core/db.h"
#include "core/env.h"
#include "core/goal_facts.h"
#include "core/workflow_config.h"

namespace pulse::serve {

// As ImportScheduleRunsFile; when the file's size and content hash are the ones
// recorded in the database by the last import that succeeded, nothing is
// read from it beyond the hash and nothing is imported.
Result<ImportCounts> ImportScheduleRunsOnChange(Env& env, Db& db, const WorkflowConfig& config,
                                                const std::string& path);

}  // namespace pulse::serve
