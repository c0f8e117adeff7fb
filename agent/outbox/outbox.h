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

#include "core/store/db.h"
#include "core/notify/delivery.h"
#include "core/base/status.h"

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
  std::vector<Delivery> deliveries;  // one per target (core/notify/delivery.h), filled by ListOutbox
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

// The message with `delivery` (its one state) and `deliveries` (per target).
nlohmann::json OutboxMessageToJson(const OutboxMessage& m);

// ---- deliveries (core/notify/delivery.h) ----

// Messages that have no delivery yet (new since the last delivery pass),
// oldest first. Messages delivered before deliveries were kept per target
// are left as they are.
Result<std::vector<OutboxMessage>> UnplannedOutbox(Db& db, int limit);
// Gives a message its targets, each queued (kTabOnlyTarget: not_sent).
Status PlanDeliveries(Db& db, int64_t message_id, const std::vector<std::string>& targets, int64_t now);

struct DueDelivery {
  OutboxMessage message;
  Delivery delivery;
};
// Deliveries to try now: queued ones, and retrying ones whose time came.
Result<std::vector<DueDelivery>> DueDeliveries(Db& db, int64_t now, int limit);
// The earliest time a retrying delivery waits for (nullopt: none waits).
Result<std::optional<int64_t>> NextRetryAt(Db& db);
// Records one attempt on one target: delivered, retrying at the backoff's
// time, or failed for good; the message's own delivered_at, error and
// attempts follow. NotFound for an unknown message or target.
Status RecordDeliveryAttempt(Db& db, int64_t message_id, const std::string& target, const DeliveryAnswer& answer,
                             int64_t now);
Result<std::vector<Delivery>> DeliveriesOf(Db& db, int64_t message_id);


}  // namespace pulse
