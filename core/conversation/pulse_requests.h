// Requests Pulse records for later work (pulse_requests in the workflow
// database), each listed and visible in the tab:
// - qa: "check this" (record_pulse_qa_request); the fix run that answers it
//   writes its result back here.
// - fast: "run the full pass earlier" (record_pulse_fast_request). A pending
//   fast request absorbs a second one; the pass scheduler takes them with
//   TakePendingFastRequests, so each starts at most one earlier pass.
// - builder_ask: Pulse's ask_builder calls, with what became of each (no
//   Builder chat to ask; a fix raised as a decision).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/env.h"
#include "core/base/status.h"

namespace pulse {

constexpr int kMaxPendingQaRequests = 20;

enum class RequestKind { kQa, kFast, kBuilderAsk };
const char* RequestKindName(RequestKind k);
Result<RequestKind> ParseRequestKind(const std::string& text);

struct PulseRequest {
  int64_t id = 0;
  RequestKind kind = RequestKind::kQa;
  std::string what;     // qa: what to check; fast: why; builder_ask: the message
  std::string why;
  std::string session;  // the session that asked ("" the owner)
  std::string status;   // pending | taken | done (builder_ask: no_builder_chat | decision)
  std::string created_at, taken_at, taken_by, result;
  nlohmann::json detail = nlohmann::json::object();  // builder_ask: kind, title, evidence, decision_id, ...
  nlohmann::json ToJson() const;
};

Status EnsureRequestsSchema(Db& db);

struct NewRequest {
  RequestKind kind = RequestKind::kQa;
  std::string what;
  std::string why;
  std::string session;
  std::string status = "pending";
  nlohmann::json detail = nlohmann::json::object();
};

// What recording came to: the request, and whether a pending one of the
// same kind absorbed it (fast only).
struct RecordedRequest {
  PulseRequest request;
  bool coalesced = false;
};

// InvalidArgument for empty, non-UTF-8 or over-long text; Refused past
// kMaxPendingQaRequests pending QA requests.
Result<RecordedRequest> RecordRequest(Db& db, Env& env, const NewRequest& request);
// Newest first; `kind`/`status` filter when set. At most `limit` rows.
Result<std::vector<PulseRequest>> ListRequests(Db& db, std::optional<RequestKind> kind, const std::string& status,
                                               int limit = 200);
// The pass scheduler's call: every pending fast request, oldest first,
// marked taken by `taken_by` in one transaction (so two callers never both
// take one).
Result<std::vector<PulseRequest>> TakePendingFastRequests(Db& db, Env& env, const std::string& taken_by);
// A taken or pending request's result (a QA fix run's), marking it done.
Status CompleteRequest(Db& db, Env& env, int64_t id, const std::string& result);

// ---- QA fix runs ----
// The tick takes the oldest pending QA request for one fix run (status
// taken, taken_by the fix run's pulse_run_id) in one transaction, so two
// ticks never start two runs for it. A request whose run never started is
// given back; a run's end stores its short result and closes the request for
// good (done, or failed with the reason): a failed fix run is never retried
// by itself, the owner or Pulse asks again with a new request.
Result<std::optional<PulseRequest>> TakeNextQaRequest(Db& db, Env& env, const std::string& taken_by);
Status ReleaseQaRequest(Db& db, int64_t id);
// The fix run that took it (its pulse_run_id), once the run was started.
Status MarkQaRequestTakenBy(Db& db, int64_t id, const std::string& taken_by);

struct QaResult {
  std::string status;            // completed | failed
  std::string technical_review;  // the fix run's one-paragraph review ("" when it failed)
  std::string reason;            // why it came to that (the runner's error when failed)
  std::string pulse_run_id;
  std::string finished_at;
  nlohmann::json ToJson() const;
};
// Stores `result` in the request (detail.qa_result, and a one-line result)
// and sets it done (completed) or failed. Conflict when already closed.
Status FinishQaRequest(Db& db, int64_t id, const QaResult& result);
// QA requests still taken by a run that no longer exists (the server stopped
// under it) become failed with `why`; returns how many.
Result<int> FailAbandonedQaRequests(Db& db, const std::string& why, int64_t now);
// Open QA requests (pending or taken): run_health's open issue count.
Result<int64_t> OpenQaRequestCount(Db& db);
// QA requests no fix run has taken yet (the tick starts one when any waits).
Result<int64_t> PendingQaRequestCount(Db& db);

}  // namespace pulse
