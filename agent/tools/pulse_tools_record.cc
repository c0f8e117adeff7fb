// The Pulse tools that record work for later or for the owner:
// create_decision_request, record_pulse_focus_area, record_pulse_goal_memory,
// record_pulse_qa_request, record_pulse_fast_request and ask_builder
// (agent/turns/pulse_ask_builder.cc). Each is carried out through the core's typed
// services (decisions, focus areas, goal memory, requests, asks) or refused
// with a reason; none is a no-op.
#include <algorithm>
#include <cctype>

#include "agent/outbox/notifications.h"
#include "agent/turns/pulse_asks.h"
#include "agent/tools/pulse_tools.h"
#include "core/api/decisions.h"
#include "core/api/focus_areas.h"
#include "core/conversation/conversation.h"
#include "core/conversation/pulse_requests.h"
#include "core/autonomy/tool_catalog.h"

namespace pulse {

using nlohmann::json;

namespace {

// The call this decision request stands in for: the latest refusal in the
// session since its previous decision request (the row of this very call,
// recorded by the guard a moment ago, is skipped).
Result<std::optional<RefusedCall>> RefusalBefore(Db& db, const std::string& session) {
  std::optional<RefusedCall> found;
  if (session.empty()) return found;
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT tool, tool_normalized, rule, reason, at, allowed FROM pulse_guard_decisions"
      " WHERE session = ? ORDER BY id DESC LIMIT 50"));
  q.Bind(1, session);
  bool skipped_self = false;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    bool is_request = q.Text(1) == "create_decision_request";
    if (is_request && !skipped_self) {
      skipped_self = true;
      continue;
    }
    if (is_request) break;
    if (q.Int64(5) == 0) {
      found = RefusedCall{q.Text(0), q.Text(2), q.Text(3), q.Text(4), session};
      break;
    }
  }
  return found;
}

Result<json> CreateDecisionRequest(ApiContext& ctx, const std::string& session, const Args& a) {
  DecisionRequest req;
  PULSE_RETURN_IF_ERROR(a.Text("question", &req.question));
  PULSE_RETURN_IF_ERROR(a.OptStringList("options", &req.options));
  PULSE_RETURN_IF_ERROR(a.OptString("blocks", &req.blocks));
  PULSE_RETURN_IF_ERROR(a.OptString("why", &req.why));
  req.raised_by = "pulse";
  PULSE_ASSIGN_OR_RETURN(req.refused_call, RefusalBefore(*ctx.db, session));
  ContextDecisions decisions(ctx);
  PULSE_ASSIGN_OR_RETURN(int64_t id, CreateDecision(decisions.get(), req));
  // The owner hears of it where they are (webhook, Slack channel), not only in the tab.
  PULSE_ASSIGN_OR_RETURN(int64_t message, SendNeedsYou(ctx, id, req.question, req.options));
  json out = {{"decision_id", id}, {"status", "pending"}, {"outbox_id", message}};
  if (req.refused_call) {
    json call = {{"tool", req.refused_call->tool}, {"rule", req.refused_call->rule},
                 {"reason", req.refused_call->reason}};
    out["context"] = {{"refused_call", call}};
  }
  return out;
}

Result<json> RecordFocusArea(ApiContext& ctx, const Args& a) {
  FocusChange change;
  // Pulse proposes, tracks and closes; confirming, rejecting, extending and
  // dropping are the owner's.
  PULSE_RETURN_IF_ERROR(ReadFocusChange(a, {FocusAction::kPropose, FocusAction::kTrack, FocusAction::kClose}, &change));
  return ApplyFocusChangeJson(ctx, change);
}

// Whether the session's turn is the owner's own voice: the conversation turn
// it runs is the owner's (Talk to Pulse, a relay from the owner's Builder
// chat). Only then may Pulse write the owner's lasting direction as an
// owner_answer line.
Result<bool> OwnerRelayTurn(ApiContext& ctx, const std::string& session) {
  PULSE_ASSIGN_OR_RETURN(std::optional<ConversationTurn> turn,
                         Conversation(*ctx.db, ctx.workflow).RunningTurnOf(session));
  return turn && turn->caller == Caller::kOwner;
}

// consolidate with entries: [{section, text, source?}], Pulse's rewrite.
Result<json> ConsolidateByRewrite(ApiContext& ctx, const Args& a) {
  const json& list = *a.Find("entries");
  std::vector<MemoryLine> lines;
  for (size_t i = 0; i < list.size(); ++i) {
    Args e(a.where() + ": entries[" + std::to_string(i) + "]", list[i]);
    if (!list[i].is_object()) return e.Fail("must be an object {section, text}");
    std::string section, text, source = "Pulse inference";
    PULSE_RETURN_IF_ERROR(e.Text("section", &section));
    PULSE_RETURN_IF_ERROR(e.Text("text", &text));
    PULSE_RETURN_IF_ERROR(e.OptString("source", &source));
    MemoryLine line;
    PULSE_ASSIGN_OR_RETURN(line.section, ParseMemorySection(section));
    PULSE_ASSIGN_OR_RETURN(line.source, ParseMemorySource(source));
    line.text = text;
    lines.push_back(std::move(line));
  }
  PULSE_ASSIGN_OR_RETURN(json out, ConsolidateGoalMemoryAs(ctx, lines));
  out["action"] = "consolidate";
  out["rewrite"] = true;
  return out;
}

Result<json> RecordGoalMemory(ApiContext& ctx, const std::string& session, const Args& a) {
  std::string action = "add";
  PULSE_RETURN_IF_ERROR(a.OptString("action", &action));
  if (action == "consolidate") {
    if (a.Has("entries") && a.Find("entries")->is_array()) return ConsolidateByRewrite(ctx, a);
    if (a.Has("entries") && !(a.Find("entries")->is_number_integer() && a.Find("entries")->get<int64_t>() >= kGoalMemoryMaxEntries)) {
      return a.Error("entries", "consolidation keeps up to " + std::to_string(kGoalMemoryMaxEntries) +
                                    " entries, dropping duplicates and the oldest of Pulse's lines; a smaller "
                                    "number is not offered (the owner's lines are always kept)");
    }
    PULSE_ASSIGN_OR_RETURN(json out, ConsolidateGoalMemory(ctx));
    out["action"] = "consolidate";
    return out;
  }
  if (action != "add") return a.Error("action", "must be add or consolidate, not \"" + action + "\"");
  std::string section, text, source;
  PULSE_RETURN_IF_ERROR(a.Text("section", &section));
  PULSE_RETURN_IF_ERROR(a.Text("text", &text));
  PULSE_RETURN_IF_ERROR(a.OptString("source", &source));
  if (source.empty()) source = "Pulse inference";
  PULSE_ASSIGN_OR_RETURN(MemorySection parsed_section, ParseMemorySection(section));
  PULSE_ASSIGN_OR_RETURN(MemorySource parsed_source, ParseMemorySource(source));
  // Owner lines are written where an owner's answer is recorded
  // (decision.answer), and by Pulse only in a turn that is the owner's own
  // voice (an owner relay); otherwise its memory tool never speaks for the owner.
  if (parsed_source == MemorySource::kOwnerAnswer) {
    PULSE_ASSIGN_OR_RETURN(bool relay, OwnerRelayTurn(ctx, session));
    if (!relay) {
      return Status::Refused("record_pulse_goal_memory: \"source\" cannot be owner_answer here; only the owner's "
                             "own words (an answer to a decision, or an owner relay turn) write owner lines (use "
                             "pulse_inference, result or builder_answer)");
    }
  }
  PULSE_ASSIGN_OR_RETURN(json out, AddGoalMemoryEntry(ctx, parsed_section, parsed_source, text));
  out["action"] = "add";
  return out;
}

json RecordedJson(const RecordedRequest& r) {
  return json{{"request_id", r.request.id}, {"status", r.request.status}, {"coalesced", r.coalesced},
              {"request", r.request.ToJson()}};
}

Result<json> RecordRequestTool(ApiContext& ctx, const std::string& session, const Args& a, RequestKind kind) {
  NewRequest r;
  r.kind = kind;
  r.session = session;
  if (kind == RequestKind::kFast) {
    PULSE_RETURN_IF_ERROR(a.Text("why", &r.what));
  } else {
    PULSE_RETURN_IF_ERROR(a.Text("what", &r.what));
    PULSE_RETURN_IF_ERROR(a.OptString("why", &r.why));
  }
  PULSE_ASSIGN_OR_RETURN(RecordedRequest out, RecordRequest(*ctx.db, *ctx.env, r));
  return RecordedJson(out);
}

}  // namespace

Result<json> ExecuteRecordTool(ApiContext& ctx, const std::string& session, const std::string& name, const Args& a) {
  if (name == "create_decision_request") return CreateDecisionRequest(ctx, session, a);
  if (name == "record_pulse_focus_area") return RecordFocusArea(ctx, a);
  if (name == "record_pulse_goal_memory") return RecordGoalMemory(ctx, session, a);
  if (name == "record_pulse_qa_request") return RecordRequestTool(ctx, session, a, RequestKind::kQa);
  if (name == "record_pulse_fast_request") return RecordRequestTool(ctx, session, a, RequestKind::kFast);
  if (name == "ask_builder") return AskBuilderTool(ctx, session, a);
  return Status::NotFound("\"" + name + "\" is not one of Pulse's recording tools");
}

}  // namespace pulse
