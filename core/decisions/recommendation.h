// Recommendation: which fix Pulse recommends for a goal that is not on
// track, the one batched decision the rules runner raises (and the tab
// shows, from the database alone, through goal.recommendation). Pure: it
// depends only on the goal check and the workflow's configuration.
#pragma once

#include <string>
#include <vector>

#include "core/decisions/decisions.h"
#include "core/goal/goal_check.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

// The one batched decision for a check that is not on track: the fixes in
// the order Pulse recommends them, the first recommended.
struct GoalRecommendation {
  std::string question;
  std::vector<std::string> options;
  std::string option;  // the recommended one: options[0]
  std::string why;
  std::string evidence;
  Confidence confidence = Confidence::kMedium;  // high with alarms and schedules running, else medium
  std::string blocks;
};
// Pure: depends only on the check and the workflow's configuration.
GoalRecommendation BuildGoalRecommendation(const GoalCheck& check, const WorkflowConfig& config,
                                           const std::string& workflow);

// The owner-facing name: "Substack Pulse".
std::string PulseName(const std::string& workflow);

// "subscribers 412 of 1000 (last measured 7 Oct; by a workflow run 17 Sep)";
// empty without a goal.
std::string GoalKeyNumber(const GoalCheck& check);

}  // namespace pulse
