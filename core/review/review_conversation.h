// The Workflow Review's own conversation, kept apart from Pulse's goal
// conversation (core/conversation/conversation.h): every review is one turn of it, in its
// own session (schedule-review--<hash>-r<N>), with what the review was told
// (the revision and its due set), the reviewer's final reply and the
// outcome its receipt gave. It lives in the workflow database
// (pulse_review_turns), so the browser shows it from the file alone, and the
// next review's runner is handed the earlier turns to continue from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/status.h"

namespace pulse {

inline constexpr const char* kReviewConversationTitle = "Workflow Review";
// Turns one read gives, and the turns a runner replays.
inline constexpr int kReviewViewTurns = 20;
inline constexpr size_t kReviewTextBytes = 8000;
inline constexpr size_t kReviewReplyBytes = 16000;

struct ReviewTurn {
  int64_t id = 0;
  std::string session;
  std::string revision;
  std::string trigger;
  std::string pulse_run_id;
  std::string text;     // what the review was told
  std::string reply;    // the reviewer's final reply ("" while running)
  std::string state;    // running, completed, failed, interrupted
  std::string outcome;  // clean, broken, unfinished (the review record's)
  std::string error;
  int64_t started_at = 0;
  int64_t finished_at = 0;  // 0 while running
  nlohmann::json ToJson() const;
};

class ReviewConversation {
 public:
  ReviewConversation(Db& db, std::string workflow) : db_(db), workflow_(std::move(workflow)) {}

  // Appends a running turn; `text` is bounded to kReviewTextBytes (UTF-8 kept whole).
  Result<int64_t> Begin(const std::string& session, const std::string& revision, const std::string& trigger,
                        const std::string& pulse_run_id, const std::string& text, int64_t now);
  // How the review ended: the reply (repaired and bounded here), the outcome
  // and, for a runner that failed, the reason.
  Status Finish(int64_t id, const std::string& state, const std::string& reply, const std::string& outcome,
                const std::string& error, int64_t now);
  // Turns a server that is gone left running become interrupted.
  Result<int> RecoverInterrupted(int64_t now);
  // The newest `limit` turns, oldest first (empty before the first review).
  Result<std::vector<ReviewTurn>> Recent(int limit = kReviewViewTurns);
  // {title, workflow, turns: [...], total}: what the Pulse tab and review.state show.
  Result<nlohmann::json> ViewJson(int limit = kReviewViewTurns);

 private:
  Db& db_;
  std::string workflow_;
};

}  // namespace pulse
