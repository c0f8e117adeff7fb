// The context facts read from the runs (core/facts/goal_context_facts.h): every
// run is a pulse_fact_runs row (run.json as snapshotted) or a goal_run_facts
// row no pulse_fact_runs row has the run_id of (the runs only the after-run
// hook or schedule-runs.json recorded). From them: run_health's counts,
// failed runs, CONCERNS: lines and schedules, login_hints, and error_rate
// (the share since the last check against the 14-day median daily share).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/store/db.h"
#include "core/facts/goal_context_facts.h"
#include "core/base/status.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

// Fills f->run_health (all but open_issues and unreadable), f->login_hints
// and f->error_rate for f->since .. f->now.
Status ReadRunFacts(Db& db, const WorkflowConfig& config, ContextFacts* f);

// A column's bytes as stored (no repair), valid until the next Step: for
// comparing with other stored text, never for showing.
std::string_view StoredText(const Statement& q, int col);

// The login hints in `text` (one a line, the first pattern naming it), for
// the run `run_id`, until `out` holds kFactsListMax.
void AddLoginHints(const std::string& run_id, int64_t at, const char* where, const std::string& text,
                   std::vector<LoginHint>* out);

}  // namespace pulse
