// Asks between the chats and Pulse, kept in the workflow database
// (pulse_asks, pulse_ask_threads) so a thread survives a server restart and
// the browser shows them from the file alone.
//
// ask_pulse: a Builder chat, a Run chat, a step or a bot channel asks Pulse.
// Each ask is one call (a call id and a row) and one turn in Pulse's
// conversation. A thread (thread_id) continues a topic for at most
// kThreadMaxRounds rounds: Pulse's turn ends with decision lines —
// `question: ...` keeps the thread open for the caller's answer,
// `decision: ...` with `owner_needed: yes|no (why)` closes it. A closed
// thread, round 7, an unknown thread, another workflow's thread and another
// caller's thread are refused. At most kAsksPerHour rounds start per workflow
// per hour; an ask over the cap is queued and starts when the next slot frees.
//
// ask_builder: Pulse asks the workflow's Builder chat (a question, or a fix
// within its levels); the same table, direction "ask_builder", its own cap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/status.h"

namespace pulse {

inline constexpr int kThreadMaxRounds = 6;
inline constexpr int kAsksPerHour = 20;  // per workflow and direction
inline constexpr int64_t kAskWindowSeconds = 3600;
inline constexpr int kAskPulseWaitDefault = 60;
inline constexpr int kAskBuilderWaitDefault = 90;
inline constexpr int kAskWaitMax = 120;
inline constexpr size_t kMaxAskMessageBytes = 20000;

enum class AskDirection { kToPulse, kToBuilder };
const char* AskDirectionName(AskDirection d);  // "ask_pulse", "ask_builder"

// What the end of one of Pulse's ask turns says. Lines are found anywhere
// in the reply (the last of each kind wins), in any case, with list marks or
// bold around the key ("- **decision:** ...").
struct DecisionLines {
  std::optional<std::string> decision;
  std::optional<std::string> question;
  std::optional<bool> owner_needed;
  std::string owner_needed_why;  // the parenthesis after yes|no
  // A decision counts only with its owner_needed line: a reply without both
  // is answered as a question, never as a decision.
  bool decided() const { return decision.has_value() && owner_needed.has_value(); }
};
DecisionLines ParseDecisionLines(const std::string& reply);

// "Pulse recommended X because Y; done." from a decision's text: Y is what
// follows " because " in it, else "…" for the caller to fill in.
std::string DoneLine(const std::string& decision);

// One ask, either direction.
struct AskRecord {
  int64_t id = 0;
  std::string call_id;
  AskDirection direction = AskDirection::kToPulse;
  std::string caller;   // ask_pulse: builder, run, step, bot; ask_builder: pulse
  std::string session;  // who asked: the chat's or step's session, or Pulse's
  std::string account;
  bool owner_relay = false;  // a person's attended Builder chat with write access
  std::string thread_id;
  int round = 0;
  std::string kind;            // ask_builder: question | fix
  std::string target_session;  // ask_builder: the Builder chat asked
  std::string message;
  // queued, running, answered, failed, timeout, interrupted; ask_builder
  // also no_builder_chat, busy, decision, builder_failed.
  std::string status;
  std::string answer;
  DecisionLines lines;  // ask_pulse, once answered
  bool thread_open = false;
  std::string error;
  int64_t created_at = 0;
  std::optional<int64_t> started_at;   // nullopt while queued
  std::optional<int64_t> slot_at;      // queued: when its slot frees
  std::optional<int64_t> answered_at;
  int64_t turn_id = 0;
  nlohmann::json detail = nlohmann::json::object();

  bool finished() const { return status != "queued" && status != "running"; }
  // What the caller does next (ask_pulse): act, ask the owner once, answer
  // Pulse's question in the thread, or wait.
  std::string Next() const;
  // {call_id, status, answer, decision, owner_needed, owner_needed_why,
  //  pulse_question, thread_id, round, max_rounds, thread_open, next, ...}
  nlohmann::json ToJson() const;
};

struct AskThread {
  std::string id;
  std::string caller, session;
  int rounds = 0;
  bool open = true;
  std::string decision;
  int64_t opened_at = 0;
  std::optional<int64_t> closed_at;
  nlohmann::json ToJson() const;
};

Status EnsureAsksSchema(Db& db);

// Asks queued past the hourly cap, waiting for their slot (the tick visits
// a workflow with any every tick).
Result<int64_t> QueuedAskCount(Db& db);

// A new ask_pulse call. `thread_id` empty opens a new thread.
struct NewAskPulse {
  std::string caller;  // builder, run, step, bot
  std::string session;
  std::string account;
  std::string message;
  std::string thread_id;
  bool owner_relay = false;
};

// The thread ids of `workflow` begin with this ("th-<sha256[:8]>-"), so a
// thread id of another workflow is told apart from an unknown one.
std::string ThreadIdPrefix(const std::string& workflow);

class Asks {
 public:
  Asks(Db& db, std::string workflow) : db_(db), workflow_(std::move(workflow)) {}

  // Records the call and its round: running when a slot is free, queued
  // (slot_at set) when kAsksPerHour rounds started in the last hour.
  // Refused: a closed thread, round kThreadMaxRounds + 1, another caller's
  // thread, another workflow's; NotFound: an unknown thread; InvalidArgument:
  // bad text.
  Result<AskRecord> OpenAskPulse(const NewAskPulse& ask, int64_t now);
  // Pulse's ask_builder call: running when a slot is free, else Refused
  // naming when the next slot frees.
  Result<AskRecord> OpenAskBuilder(const std::string& pulse_session, const std::string& kind,
                                   const std::string& message, const nlohmann::json& detail, int64_t now);
  // A queued ask whose slot has freed becomes running (true); false while
  // it waits or when it is not queued.
  Result<bool> StartIfSlotFree(const std::string& call_id, int64_t now);
  // The call id of the oldest queued ask of `direction` ("" when none waits):
  // what the tick starts once its slot frees, without the caller asking again.
  Result<std::string> OldestQueued(AskDirection direction);
  // The caller's read of an ask: NotFound for an unknown call id, Refused
  // when `session` is not the session that asked.
  Result<AskRecord> Load(const std::string& call_id, const std::string& session);
  Result<AskRecord> Get(const std::string& call_id);
  Result<AskThread> Thread(const std::string& thread_id);

  // The Pulse session the ask's turn runs in (the chain guard reads it).
  Status BindTurnSession(const std::string& call_id, const std::string& pulse_session);
  // Pulse's turn ended (ask_pulse): the reply's decision lines decide the
  // thread — a decision closes it, as does the last round; a question (or a
  // reply without the lines) keeps it open.
  Status FinishAskPulse(const std::string& call_id, int64_t turn_id, const std::string& reply, int64_t now);
  // Any ask ending without an answer (failed, timeout, interrupted,
  // builder_failed, no_builder_chat, busy, decision), or an ask_builder
  // answered (status "answered"); `detail` is merged into the row's.
  Status FinishAsk(const std::string& call_id, const std::string& status, const std::string& answer,
                   const std::string& error, const nlohmann::json& detail, int64_t now);
  // Asks left running by a server that is gone become interrupted.
  Result<int> RecoverInterrupted(int64_t now);

  // When the next slot of `direction` frees: nullopt when one is free now.
  Result<std::optional<int64_t>> NextSlotAt(AskDirection direction, int64_t now);
  // Newest first.
  Result<std::vector<AskRecord>> List(std::optional<AskDirection> direction, int limit = 100);
  // ask_builder answers since `since` (exclusive), oldest first: the goal
  // check's builder_asks.
  Result<std::vector<AskRecord>> BuilderAnswersSince(int64_t since, int limit = 50);

 private:
  Result<AskRecord> Insert(AskRecord r, int64_t now);
  Db& db_;
  std::string workflow_;
};

}  // namespace pulse
