// Pulse's conversation: one per workflow with a goal, kept in the workflow
// database so the browser shows it from the file alone. A conversation is a
// row of generations; each generation is one session
// (schedule-goallead--<sha256(workflow)[:16]>-g<N>, N the generation) that
// opens with the platform's charter, and every Pulse turn — the daily goal
// check, Goal Work, the owner's messages, asks — is appended to the current
// one with its text and the runner's final reply. After kRolloverDays days
// or kRolloverTurns turns the next goal check starts generation N+1 (the
// change is a turn of its own, so the conversation says why it moved on);
// goal memory carries what matters across.
//
// At most one turn runs in a conversation at a time: BeginTurn claims the
// conversation in the same transaction that appends the turn, so two
// schedulers (or a tick and `pulse pass`) racing for one workflow never
// start two turns; the loser gets Busy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/status.h"

namespace pulse {

constexpr int kRolloverDays = 30;
constexpr int kRolloverTurns = 90;
// A turn claimed longer ago than this with no end is taken for dead (a
// crashed server that never recorded it): the next turn may start.
constexpr int64_t kTurnLeaseSeconds = 3 * 3600;
// Entries one read of the conversation gives (the Pulse tab asks for more).
constexpr int kViewTurns = 200;
// Turns a runner is handed to replay beside the charter.
constexpr int kReplayTurns = 200;

// Who spoke. kPlatform: the charter and the generation log lines; kTick:
// the scheduler (goal check, pass); kOwner: the owner (Talk to Pulse, an
// owner relay from a Builder chat); kBuilder/kRun/kStep/kBot: ask_pulse
// callers that only ask for a recommendation.
enum class Caller { kPlatform, kTick, kOwner, kBuilder, kRun, kStep, kBot };
const char* CallerName(Caller c);
Result<Caller> ParseCaller(const std::string& text);

enum class TurnState { kRunning, kCompleted, kFailed, kInterrupted, kStopped };
const char* TurnStateName(TurnState s);

// One entry of the conversation, oldest first within its generation.
struct ConversationTurn {
  int64_t id = 0;
  int generation = 0;
  std::string at;           // RFC 3339
  std::string turn;         // charter, generation, goal_check, goal_work, ask_pulse, ...
  Caller caller = Caller::kPlatform;
  std::string account;      // who, for owner and chat callers
  std::string text;         // what the turn was told
  std::string reply;        // the runner's final reply ("" while running)
  TurnState state = TurnState::kCompleted;
  std::string error;        // why a turn failed or was interrupted
  std::string pulse_run_id;
  std::string thread_id;    // ask threads: the thread and its round
  int round = 0;
  std::string finished_at;
  nlohmann::json ToJson() const;
};

struct Generation {
  int number = 0;
  std::string session_id;
  std::string started_at;
  std::string reason;  // "first goal check", "90 turns", "30 days"
  int turns = 0;       // Pulse turns (the charter and log lines not counted)
  nlohmann::json ToJson() const;
};

// What a new turn carries in.
struct TurnStart {
  std::string turn;  // the turn kind's name
  Caller caller = Caller::kTick;
  std::string account;
  std::string text;
  std::string pulse_run_id;
  std::string thread_id;
  int round = 0;
};

// How a turn ended.
struct TurnEnd {
  TurnState state = TurnState::kCompleted;
  std::string reply;
  std::string error;
};

// The conversation as the Pulse tab, `pulse conversation show` and
// GET /conversation give it: every generation's header, and the turns of
// one generation (the current one unless asked), so a long history opens
// with one generation's rows.
struct ConversationView {
  bool exists = false;
  std::string workflow;
  std::string session_id;   // the current generation's
  int generation = 0;       // the current one
  std::vector<Generation> generations;
  int shown_generation = 0;
  std::vector<ConversationTurn> turns;
  bool stopped = false;     // the owner stopped the last turn; a new turn clears it
  bool running = false;     // a turn is running now
  int earlier_turns = 0;    // entries of the shown generation before the first one in `turns`
  nlohmann::json ToJson() const;
};

// Whether the next goal check starts a new generation.
struct RolloverDue {
  bool due = false;
  std::string reason;  // "30 days" / "90 turns"
};

// The session id of generation `n` of `workflow`'s conversation.
std::string ConversationSessionId(const std::string& workflow, int generation);

Status EnsureConversationSchema(Db& db);

class Conversation {
 public:
  Conversation(Db& db, std::string workflow) : db_(db), workflow_(std::move(workflow)) {}

  // The current generation; NotFound before the conversation exists.
  Result<Generation> Current();
  // The current generation, creating generation 1 (with `charter` as its
  // first turn) when there is none.
  Result<Generation> Ensure(const std::string& charter, int64_t now);
  // Pure rule on the current generation: kRolloverDays since it started or
  // kRolloverTurns turns in it.
  Result<RolloverDue> RolloverDueAt(int64_t now);
  // Starts generation N+1 with `charter` as its first turn and logs the
  // change in both generations. Refused while a turn runs.
  Result<Generation> Rollover(const std::string& charter, const std::string& reason, int64_t now);

  // Appends a running turn to the current generation and claims the
  // conversation for it; clears an earlier Stop. Busy while another turn
  // runs (within kTurnLeaseSeconds); NotFound before Ensure.
  Result<ConversationTurn> BeginTurn(const TurnStart& start, int64_t now);
  // Records how the turn ended and releases the conversation. Replies and
  // errors are bounded (kMaxReplyBytes) and must be UTF-8 (the caller
  // repairs a runner's bytes first).
  Status FinishTurn(int64_t turn_id, const TurnEnd& end, int64_t now);
  // The owner's Stop: the running turn (if any) is marked to stop; the
  // conversation stays stopped until the next turn.
  Result<bool> Stop(int64_t now);
  // A line from the platform in the current generation (not a Pulse turn,
  // so it never counts toward the rollover): a QA fix run's result, a pass's
  // note. NotFound before Ensure.
  Status AppendNote(const std::string& turn, const std::string& text, int64_t now);
  // The turn running now in the generation whose session is `session`;
  // none when that generation runs no turn (or no generation has it).
  Result<std::optional<ConversationTurn>> RunningTurnOf(const std::string& session);
  // Turns left running by a process that is gone become interrupted;
  // returns how many.
  Result<int> RecoverInterrupted(const std::string& why, int64_t now);

  // The turns of one generation, oldest first; with `limit`, only the
  // newest `limit` of those before turn `before_id` (0: the end).
  Result<std::vector<ConversationTurn>> Transcript(int generation, int limit = 0, int64_t before_id = 0);
  // What a runner replays: the generation's log lines and charter, and its
  // newest kReplayTurns turns (a generation swollen by asks stays bounded).
  Result<std::vector<ConversationTurn>> ReplayTranscript(int generation);
  // `generation` 0: the current one. The newest `limit` entries (before
  // `before_id` when given); earlier_turns says how many more there are.
  Result<ConversationView> View(int generation, int limit = kViewTurns, int64_t before_id = 0);

 private:
  Status AppendLine(int generation, const std::string& turn, const std::string& text, int64_t now);
  Db& db_;
  std::string workflow_;
};

constexpr size_t kMaxTurnTextBytes = 20000;
constexpr size_t kMaxReplyBytes = 16000;

}  // namespace pulse
