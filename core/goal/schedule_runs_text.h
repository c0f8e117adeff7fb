// schedule-runs.json read straight from its text into RunRecords, with no
// JSON tree in between. The tick reads a workflow's file whenever it changed
// (every day the platform appends a run, and on each pass of a first import:
// --import-batch), and a tree of 1,000 runs is ~10,000 allocations; here a
// run costs its strings. The answer is ParseScheduleRuns(ParseJsonBounded(
// text, source), source)'s, errors word for word
// (tests/cpp/goal/schedule_runs_text_test.cc compares them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/goal/goal_facts.h"
#include "core/base/status.h"

namespace pulse {

Result<std::vector<RunRecord>> ParseScheduleRunsText(std::string_view text, const std::string& source);

}  // namespace pulse
