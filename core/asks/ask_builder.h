// The rules around the workflow's Builder chats (chats.json, snapshotted
// into pulse_fact_chats): which chat Pulse asks (ask_builder) and where the
// owner's accepted decisions are sent (the apply message); whether an ask
// from a Builder chat is the owner's voice (owner relay); the chain guard
// that keeps Pulse and a Builder chat from asking each other back; and the
// seam through which the server runs a Builder turn (--builder). Pulse never
// creates a chat.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/decisions/decisions.h"
#include "core/base/status.h"
#include "core/autonomy/tool_sessions.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

struct ChatRow {
  std::string session_id, kind, account;
  std::optional<int64_t> last_active_at;
  bool live = false, busy = false;
};

// The chats of the last chats.json snapshot.
Result<std::vector<ChatRow>> ReadChats(Db& db);

// The accounts with `role` in workflow.json's "access" list; nullopt when the
// workflow has no access list (a one-person workspace).
std::optional<std::vector<std::string>> AccountsWithRole(const WorkflowConfig& config,
                                                         const std::vector<std::string>& roles);

// The Builder chat to send to: `named` when it is one of the owner's Builder
// chats (Refused otherwise, naming it); else the owner's most recently active
// Builder chat, live ones first. nullopt: none. A busy chat is returned (the
// caller refuses it: "ask later").
Result<std::optional<ChatRow>> SelectBuilderChat(const std::vector<ChatRow>& chats, const WorkflowConfig& config,
                                                 const std::string& named);

// Whether an ask from `session` of `caller` is the owner's voice: a Builder
// chat (not an unattended session) listed in chats.json for `account`, and
// that account an owner or editor (any account when there is no access list).
bool IsOwnerRelay(const std::vector<ChatRow>& chats, const WorkflowConfig& config, const std::string& caller,
                  const std::string& session, const std::string& account);

// The chain guard for ask_builder from `pulse_session`: refused (the reason)
// when the ask_pulse turn running in that session was started by a Builder
// chat (no ping-pong), or when `target` is the chat that asked. "" allowed.
Result<std::string> AskBuilderChainRefusal(Db& db, const std::string& pulse_session, const std::string& target);

// What Pulse tells the Builder chat once the owner answered a decision
// (Accept or Change): nullopt for a dismissal and for the options that
// change nothing ("Not now", "Leave it as it is for now"). `fix`: the
// ask_builder fix the decision stands for ({message, title, evidence, why}),
// when it does.
std::optional<std::string> ApplyMessageFor(const Decision& answered, const nlohmann::json& fix);

// One Builder turn the server runs through its --builder command.
struct BuilderTurnRequest {
  std::string workflow;
  std::string workflow_dir;
  std::string chat_session;  // the Builder chat's session_id
  std::string kind;          // question | fix | apply
  std::string message;
  TurnKind turn = TurnKind::kBuilderQuestion;  // the hold: builder_question or builder_fix
  int wait_seconds = 90;
  nlohmann::json extra = nlohmann::json::object();  // title, evidence, why, decision_id
};
struct BuilderTurnResult {
  std::string status;  // answered | timeout | builder_failed
  std::string reply;
  std::string error;
  std::string guard_session;  // the guarded session the turn ran with
};
// The seam: the server's --builder command (server-shim), or none.
class BuilderChannel {
 public:
  virtual ~BuilderChannel() = default;
  virtual BuilderTurnResult Run(const BuilderTurnRequest& request) const = 0;
};
// {session_id, kind, message, held, held_reason, turn, ...extra}: what the
// --builder command reads on stdin.
nlohmann::json BuilderStdin(const BuilderTurnRequest& request);

}  // namespace pulse
