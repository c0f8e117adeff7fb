// The recovery message: when a goal that was not measured by a workflow run
// is measured again, Pulse says so once, through the same channels that
// carried the alarm. Whether it was measured at the last look is kept in
// the workflow database (pulse_notify_state), so a restart neither repeats
// the message nor misses it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/store/db.h"
#include "core/goal/goal_check.h"
#include "core/base/status.h"

namespace pulse {

// What the last look saw: measured or not, and since when.
struct MeasuredState {
  bool measured = true;
  int64_t since = 0;
};

struct RecoveryStep {
  MeasuredState next;     // what to remember
  bool changed = false;   // `next` differs from what was remembered
  bool send = false;      // the goal is measured again: send the message
  std::string title;
  std::string text;
};

// The rule: a goal without a primary metric is left alone; the first look
// only remembers; not_measured -> measured sends one message naming the
// reading and how long it was unmeasured.
RecoveryStep GoalRecoveryStep(const std::optional<MeasuredState>& last, const GoalCheck& check,
                              const std::string& pulse_name, int64_t now);

Result<std::optional<MeasuredState>> LoadMeasuredState(Db& db);
Status SaveMeasuredState(Db& db, const MeasuredState& state);

}  // namespace pulse
