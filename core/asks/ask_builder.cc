#include "core/asks/ask_builder.h"

#include <algorithm>
#include <cctype>

#include "core/asks/asks.h"
#include "core/facts/fact_snapshot.h"
#include "core/base/time_util.h"
#include "core/base/text.h"

namespace pulse {

using nlohmann::json;

namespace {

bool Contains(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

std::string Field(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

}  // namespace

Result<std::vector<ChatRow>> ReadChats(Db& db) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT session_id, kind, account, last_active_at, live, busy FROM pulse_fact_chats ORDER BY session_id"));
  std::vector<ChatRow> out;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    ChatRow c;
    c.session_id = st.Text(0);
    c.kind = st.Text(1);
    c.account = st.Text(2);
    c.last_active_at = st.Time(3);
    c.live = st.Int64(4) != 0;
    c.busy = st.Int64(5) != 0;
    out.push_back(c);
  }
  return out;
}

std::optional<std::vector<std::string>> AccountsWithRole(const WorkflowConfig& config,
                                                         const std::vector<std::string>& roles) {
  const json& raw = config.raw;
  if (!raw.is_object() || !raw.contains("access") || !raw["access"].is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const json& a : raw["access"]) {
    std::string account = Field(a, "account");
    if (!account.empty() && Contains(roles, Lower(Field(a, "role")))) out.push_back(account);
  }
  return out;
}

Result<std::optional<ChatRow>> SelectBuilderChat(const std::vector<ChatRow>& chats, const WorkflowConfig& config,
                                                 const std::string& named) {
  std::optional<std::vector<std::string>> owners = AccountsWithRole(config, {"owner"});
  std::vector<ChatRow> mine;
  for (const ChatRow& c : chats) {
    if (c.kind != "builder") continue;
    if (owners && !Contains(*owners, c.account)) continue;
    mine.push_back(c);
  }
  if (!named.empty()) {
    for (const ChatRow& c : mine) {
      if (c.session_id == named) return std::optional<ChatRow>(c);
    }
    return Status::Refused("builder_session_id: \"" + named + "\" is not one of the owner's Builder chats in chats.json");
  }
  // Live first, then the most recent; a chat with no time comes last.
  std::optional<ChatRow> best;
  auto better = [](const ChatRow& a, const ChatRow& b) {
    if (a.live != b.live) return a.live;
    return a.last_active_at.value_or(INT64_MIN) > b.last_active_at.value_or(INT64_MIN);
  };
  for (const ChatRow& c : mine) {
    if (!best || better(c, *best)) best = c;
  }
  return best;
}

bool IsOwnerRelay(const std::vector<ChatRow>& chats, const WorkflowConfig& config, const std::string& caller,
                  const std::string& session, const std::string& account) {
  if (caller != "builder" || account.empty() || HasUnattendedPrefix(session)) return false;
  bool listed = false;
  for (const ChatRow& c : chats) {
    if (c.session_id == session && c.kind == "builder" && c.account == account) listed = true;
  }
  if (!listed) return false;
  std::optional<std::vector<std::string>> writers = AccountsWithRole(config, {"owner", "editor"});
  return !writers || Contains(*writers, account);
}

Result<std::string> AskBuilderChainRefusal(Db& db, const std::string& pulse_session, const std::string& target) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT caller, session, thread_id FROM pulse_asks WHERE direction = 'ask_pulse' AND status = 'running'"
      " AND json_extract(detail, '$.pulse_session') = ? ORDER BY id DESC LIMIT 1"));
  st.Bind(1, pulse_session);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::string();
  const std::string caller = st.Text(0), asker = st.Text(1), thread = st.Text(2);
  if (caller == "builder") {
    return "a Builder chat (" + asker + ") started this exchange with ask_pulse (thread " + thread +
           "): Pulse answers in its reply and never asks a Builder chat back (no ping-pong)";
  }
  if (!target.empty() && target == asker) {
    return "builder_session_id " + target + " is the chat that asked (thread " + thread + "); Pulse never asks it back";
  }
  return std::string();
}

std::optional<std::string> ApplyMessageFor(const Decision& d, const json& fix) {
  if (d.status != DecisionStatus::kAnswered) return std::nullopt;
  const std::string chosen = d.Chosen();
  const std::string lower = Lower(chosen);
  if (chosen.empty() || lower.rfind("not now", 0) == 0 || lower.rfind("leave it", 0) == 0) return std::nullopt;
  const std::string id = std::to_string(d.id);
  std::string text;
  if (fix.is_object() && !Field(fix, "message").empty() && chosen == "Make this fix") {
    std::string title = Field(fix, "title");
    text = "The owner accepted Pulse's fix" + (title.empty() ? "" : " \"" + title + "\"") + " (decision " + id +
           "). Make this change in the plan, and only this one (no run, no send):\n" + Field(fix, "message");
    if (!Field(fix, "evidence").empty()) text += "\nEvidence: " + Field(fix, "evidence");
    if (!Field(fix, "why").empty()) text += "\nWhy: " + Field(fix, "why");
  } else {
    text = "The owner answered decision " + id + " (" + d.question + "): " + chosen +
           ". Apply it in the workflow as the owner chose; what needs a run or a send stays the owner's.";
  }
  if (!d.answer_note.empty()) text += "\nThe owner's note: " + d.answer_note;
  text += "\nWhen it is done, reply with one line saying what changed.";
  return text;
}

json BuilderStdin(const BuilderTurnRequest& r) {
  json held = r.turn == TurnKind::kBuilderFix ? json::array({"run", "outward"}) : json::array({"run", "outward", "change"});
  std::string reason = r.turn == TurnKind::kBuilderFix
                           ? "builder_fix: Change only (no run, no send; deletions, plan replacement and migrations refused)"
                           : "builder_question: Run, Outward and Change held (answer only; change, run and send nothing)";
  json out = {{"session_id", r.chat_session}, {"kind", r.kind},         {"message", r.message},
              {"held", held},                 {"held_reason", reason},  {"turn", TurnKindName(r.turn)},
              {"workflow", r.workflow},       {"wait_seconds", r.wait_seconds}};
  for (auto it = r.extra.begin(); it != r.extra.end(); ++it) {
    if (!out.contains(it.key())) out[it.key()] = it.value();
  }
  return out;
}

}  // namespace pulse
