#include "agent/turns/pulse_conversation.h"

#include "agent/turns/pulse_turns.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

std::string ConversationCharter(const std::string& workflow) {
  return CharterCommon(workflow) +
         " This is your one conversation about the goal of \"" + workflow +
         "\": the daily goal check, Goal Work in each full Pulse pass, the owner's messages and the chats' asks all "
         "come to you here, each as a turn that begins with its own instructions. Read goal memory first; soul.md wins "
         "on conflict. Every turn ends with your reply on stdout. After " +
         std::to_string(kRolloverDays) + " days or " + std::to_string(kRolloverTurns) +
         " turns a new generation of this conversation begins with this charter again; what must last goes to goal "
         "memory.";
}

bool RunsInConversation(const ApiContext& ctx, TurnKind kind) {
  return ctx.config.HasGoal() && (kind == TurnKind::kGoalCheck || kind == TurnKind::kGoalWork ||
                                  kind == TurnKind::kAskPulse || kind == TurnKind::kRunFailed);
}

Result<std::string> PrepareConversationTurn(ApiContext& ctx, TurnKind kind) {
  Conversation conversation(*ctx.db, ctx.workflow);
  const int64_t now = ctx.env->NowSeconds();
  const std::string charter = ConversationCharter(ctx.workflow);
  PULSE_ASSIGN_OR_RETURN(Generation g, conversation.Ensure(charter, now));
  if (kind == TurnKind::kGoalCheck) {
    PULSE_ASSIGN_OR_RETURN(RolloverDue due, conversation.RolloverDueAt(now));
    if (due.due) {
      Result<Generation> next = conversation.Rollover(charter, due.reason, now);
      // A turn still running keeps this generation; the next check moves on.
      if (next.ok()) g = *next;
      else if (next.status().code() != Code::kBusy) return next.status();
    }
  }
  return g.session_id;
}

json ConversationTurnHandle::ContinuityJson() const {
  json list = json::array();
  for (const ConversationTurn& t : transcript) {
    json item = {{"at", t.at}, {"turn", t.turn}, {"caller", CallerName(t.caller)}, {"text", t.text},
                 {"reply", t.reply}, {"state", TurnStateName(t.state)}};
    if (!t.error.empty()) item["error"] = t.error;
    list.push_back(item);
  }
  return json{{"session_id", session.session.id},
              {"restored_conversation_session_id", session.session.id},
              {"generation", turn.generation},
              {"turn_id", turn.id},
              {"transcript", list}};
}

Result<ConversationTurnHandle> BeginConversationTurn(ApiContext& ctx, TurnKind kind, const TurnStart& start) {
  Conversation conversation(*ctx.db, ctx.workflow);
  const int64_t now = ctx.env->NowSeconds();
  PULSE_ASSIGN_OR_RETURN(Generation g, conversation.Ensure(ConversationCharter(ctx.workflow), now));
  ConversationTurnHandle h;
  PULSE_ASSIGN_OR_RETURN(h.transcript, conversation.ReplayTranscript(g.number));
  PULSE_ASSIGN_OR_RETURN(h.turn, conversation.BeginTurn(start, now));
  Result<OpenedSession> session = OpenConversationTurnSession(*ctx.db, g.session_id, kind, now);
  if (!session.ok()) {
    (void)conversation.FinishTurn(h.turn.id, TurnEnd{TurnState::kFailed, "", session.status().message()}, now);
    return session.status();
  }
  h.session = *session;
  return h;
}

Status EndConversationTurn(ApiContext& ctx, int64_t turn_id, TurnState state, const std::string& reply,
                           const std::string& error) {
  Conversation conversation(*ctx.db, ctx.workflow);
  TurnEnd end;
  end.state = state;
  end.reply = std::string(Utf8Prefix(RepairUtf8(reply), kMaxReplyBytes - 8));
  end.error = std::string(Utf8Prefix(RepairUtf8(error), 4000));
  return conversation.FinishTurn(turn_id, end, ctx.env->NowSeconds());
}

std::string ConversationTurnText(TurnKind kind, const std::string& message, const std::string& trigger,
                                 const std::string& caller, const std::string& account) {
  const bool owner = caller == "owner";
  std::string head = std::string("PULSE TURN ") + TurnKindName(kind) + (trigger.empty() ? "" : " (" + trigger + ")");
  Result<std::string> part = TurnInstruction(kind, false, owner);
  std::string text = head + (part.ok() ? "\n" + *part : "");
  if (!message.empty()) {
    std::string who = account.empty() ? "Someone" : account;
    text += owner ? "\n\nThe owner wrote:\n" + message
                  : "\n\n" + who + " (not the owner" + (caller.empty() ? "" : "; caller " + caller) + ") wrote:\n" + message;
  }
  return std::string(Utf8Prefix(text, kMaxTurnTextBytes));
}

}  // namespace pulse
