#include "core/goal/goal_recovery.h"

#include <cmath>
#include <cstdio>

#include "core/base/time_util.h"

namespace pulse {

namespace {

std::string Number(double v) {
  char buf[48];
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

std::string Day(int64_t t) { return FormatTime(t).substr(0, 10); }

}  // namespace

RecoveryStep GoalRecoveryStep(const std::optional<MeasuredState>& last, const GoalCheck& check,
                              const std::string& pulse_name, int64_t now) {
  RecoveryStep step;
  if (!check.has_goal || check.status == GoalStatus::kNoGoal) {
    step.next = last.value_or(MeasuredState{});
    return step;
  }
  const bool measured = check.status != GoalStatus::kNotMeasured;
  step.next = MeasuredState{measured, last && last->measured == measured ? last->since : now};
  step.changed = !last || last->measured != measured;
  if (!last || last->measured || !measured) return step;
  step.send = true;
  step.title = pulse_name + ": measured again";
  std::string reading = check.metric_name;
  if (check.value) reading += " " + Number(*check.value);
  if (check.target) reading += " of " + Number(*check.target);
  const int64_t at = check.last_measured_by_run_at.value_or(now);
  step.text = pulse_name + ": the goal is measured again — " + reading + " (read by a workflow run at " +
              FormatTime(at) + "). It had not been measured by a run since " + Day(last->since) +
              ". Goal status: " + GoalStatusWords(check.status) + ".";
  return step;
}

Result<std::optional<MeasuredState>> LoadMeasuredState(Db& db) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT value, at FROM pulse_notify_state WHERE key = 'goal_measured'"));
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<MeasuredState>();
  return std::optional<MeasuredState>(MeasuredState{st.Text(0) == "1", st.Time(1).value_or(0)});
}

Status SaveMeasuredState(Db& db, const MeasuredState& state) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "INSERT INTO pulse_notify_state(key, value, at) VALUES('goal_measured', ?, ?)"
      " ON CONFLICT(key) DO UPDATE SET value = excluded.value, at = excluded.at"));
  st.Bind(1, state.measured ? "1" : "0").Bind(2, FormatTime(state.since));
  return st.Run();
}

}  // namespace pulse
