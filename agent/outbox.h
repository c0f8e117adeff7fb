// The workflow's outbox (pulse_outbox): every message Pulse sends to the
// owner — the goal check's one `pulse_summary`, replies to "Talk to Pulse" —
// is stored here first, in the workflow database, so the Pulse tab and the
// browser copy show it even when no channel delivered it. Delivery (the
// server's webhook POST) is I/O outside the core; it only marks the outcome
// here, so a restart retries what was never delivered.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "core/status.h"

namespace pulse {

struct OutboxMessage {
  int64_t id = 0;
  std::string kind;          // pulse_summary, pulse_reply, ...
  std::string title;         // one line ("Substack Pulse: not measured")
  std::string text;          // the message body
  nlohmann::json payload;    // structured facts (the check document, decision id)
  std::string pulse_run_id;  // the turn that sent it (may be empty)
  int64_t created_at = 0;                // seconds since the epoch
  std::optional<int64_t> delivered_at;  // nullopt until a channel accepted it
  std::string delivery_error;
  int attempts = 0;
};


// Stores a message; returns its id. InvalidArgument when kind or text is empty.
Result<int64_t> AddOutboxMessage(Db& db, const OutboxMessage& message, int64_t now);

struct OutboxQuery {
  bool undelivered_only = false;
  std::string kind;        // empty: all kinds
  std::string pulse_run_id;
  int max_attempts = 0;    // with undelivered_only: skip messages tried this often (0: no limit)
  int limit = 200;         // newest `limit` messages, returned oldest first
};
Result<std::vector<OutboxMessage>> ListOutbox(Db& db, const OutboxQuery& query);

// Records one delivery attempt: delivered (sets delivered_at) or failed
// (keeps the error). NotFound for an unknown id.
Status MarkOutboxDelivery(Db& db, int64_t id, bool delivered, const std::string& error, int64_t now);

nlohmann::json OutboxMessageToJson(const OutboxMessage& m);


}  // namespace pulse
