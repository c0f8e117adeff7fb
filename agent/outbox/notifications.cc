#include "agent/outbox/notifications.h"

#include "agent/outbox/outbox.h"
#include "agent/turns/pulse_turns.h"
#include "core/goal/goal_check.h"
#include "core/goal/goal_recovery.h"

namespace pulse {

using nlohmann::json;

Result<int64_t> SendNeedsYou(ApiContext& ctx, int64_t decision_id, const std::string& question,
                             const std::vector<std::string>& options) {
  OutboxMessage m;
  m.kind = "needs_you";
  m.title = PulseName(ctx.workflow) + " needs you";
  m.text = PulseName(ctx.workflow) + " needs you: " + question;
  if (!options.empty()) {
    m.text += "\nOptions:";
    for (const std::string& o : options) m.text += "\n- " + o;
  }
  m.text += "\nAnswer in the Pulse tab's Needs you (decision " + std::to_string(decision_id) + ").";
  m.payload = {{"decision_id", decision_id}};
  return AddOutboxMessage(*ctx.db, m, ctx.env->NowSeconds());
}

Result<std::optional<int64_t>> NoteGoalRecovery(ApiContext& ctx) {
  if (!ctx.config.HasGoal()) return std::optional<int64_t>();
  const int64_t now = ctx.env->NowSeconds();
  PULSE_ASSIGN_OR_RETURN(std::optional<MeasuredState> last, LoadMeasuredState(*ctx.db));
  // Nothing to record or send while the goal is as measured (or not) as the
  // last visit found it: the whole check only when that flips (the tick asks
  // on every visit).
  PULSE_ASSIGN_OR_RETURN(bool measured, GoalMeasuredNow(*ctx.db, ctx.config, now));
  if (last && measured == last->measured) return std::optional<int64_t>();
  // The first visit only records the state, as GoalRecoveryStep would with
  // no last state (a recovery needs a time it was not measured): no check.
  if (!last) {
    PULSE_RETURN_IF_ERROR(SaveMeasuredState(*ctx.db, MeasuredState{measured, now}));
    return std::optional<int64_t>();
  }
  PULSE_ASSIGN_OR_RETURN(GoalCheck check, RunGoalCheck(*ctx.db, ctx.config, ctx.workflow, now, false));
  RecoveryStep step = GoalRecoveryStep(last, check, PulseName(ctx.workflow), now);
  if (!step.changed) return std::optional<int64_t>();
  Transaction tx(*ctx.db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_RETURN_IF_ERROR(SaveMeasuredState(*ctx.db, step.next));
  std::optional<int64_t> sent;
  if (step.send) {
    OutboxMessage m;
    m.kind = "pulse_recovery";
    m.title = step.title;
    m.text = step.text;
    m.payload = {{"check", check.ToJson()}};
    PULSE_ASSIGN_OR_RETURN(int64_t id, AddOutboxMessage(*ctx.db, m, now));
    sent = id;
  }
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return sent;
}

}  // namespace pulse
