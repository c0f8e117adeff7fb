#include "core/decisions/recommendation.h"

#include <cctype>

#include "core/base/text.h"
#include "core/base/time_util.h"

namespace pulse {

std::string PulseName(const std::string& workflow) {
  std::string w = workflow;
  if (!w.empty()) w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
  return w + " Pulse";
}

// "subscribers 412 of 1000 (last measured 7 Oct; by a workflow run 17 Sep)"
std::string GoalKeyNumber(const GoalCheck& check) {
  if (!check.has_goal) return "";
  std::string s = check.metric_name + " " + (check.value ? FormatNumber(*check.value) : "unmeasured");
  if (check.target) s += " of " + FormatNumber(*check.target);
  std::string last = check.last_measured_at ? FormatShortDay(*check.last_measured_at) : "";
  std::string by_run = check.last_measured_by_run_at ? FormatShortDay(*check.last_measured_by_run_at) : "";
  if (!last.empty()) {
    s += " (last measured " + last;
    if (!by_run.empty() && by_run != last) s += "; by a workflow run " + by_run;
    s += ")";
  }
  return s;
}

GoalRecommendation BuildGoalRecommendation(const GoalCheck& check, const WorkflowConfig& config,
                                           const std::string& workflow) {
  std::string metric = config.primary_metric ? config.primary_metric->name : "the primary metric";
  std::string route = config.primary_metric && !config.primary_metric->route.empty() ? config.primary_metric->route
                                                                                      : "the goal route";
  GoalRecommendation rec;
  auto add = [&](const std::string& o) {
    for (const std::string& x : rec.options) if (x == o) return;
    rec.options.push_back(o);
  };
  if (check.HasAlarm(AlarmKind::kNotMeasured) || check.HasAlarm(AlarmKind::kGoalWorkWithoutReading)) {
    add("Add a step to " + route + " that records " + metric + " on every run");
  }
  if (check.HasAlarm(AlarmKind::kGoalWorkNotCompleted)) add("Make " + route + " the next scheduled run and fix what stops it");
  // Only a paused schedule can be resumed: with none paused, a silence is
  // something to look into, not to resume.
  bool paused = check.HasAlarm(AlarmKind::kSchedulesPaused) || config.AllSchedulesPaused();
  if (paused && (check.HasAlarm(AlarmKind::kNoRun) || check.HasAlarm(AlarmKind::kSchedulesPaused))) {
    add("Resume the paused schedules");
  } else if (check.HasAlarm(AlarmKind::kNoRun)) {
    add("Find out why no scheduled run started and fix it");
  }
  if (rec.options.empty()) add("Review the plan for " + route + " with Pulse and change what does not move " + metric);
  add("Leave it as it is for now");

  for (const Alarm& a : check.alarms) {
    if (!rec.why.empty()) rec.why += "; ";
    rec.why += a.message.empty() ? AlarmKindName(a.kind) : a.message;
  }
  if (rec.why.empty()) rec.why = metric + " is " + GoalStatusWords(check.status) + " against the line to the target";
  rec.evidence = GoalKeyNumber(check);
  if (rec.evidence.empty()) rec.evidence = "goal check of " + FormatTime(check.checked_at);
  rec.question = PulseName(workflow) + ": the goal is " + GoalStatusWords(check.status) + ". Which fix should come first?";
  rec.option = rec.options[0];
  // A paused workflow's check is report-only: Pulse is less sure the owner
  // wants anything running.
  rec.confidence = !check.alarms.empty() && !config.AllSchedulesPaused() ? Confidence::kHigh : Confidence::kMedium;
  rec.blocks = "the goal: " + metric;
  return rec;
}

}  // namespace pulse
