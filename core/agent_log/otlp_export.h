// The agent log as OpenTelemetry traces: every finished agent-log row is a
// span, and every decision of the autonomy guard is a tool-call span under
// the turn that made it, encoded as OTLP/HTTP JSON
// (ExportTraceServiceRequest). The rules live here; the HTTP POST is the
// server's (server-shim/observe/otlp_exporter.h).
//
// Spans follow the OpenTelemetry GenAI conventions:
//  - an agent row: name "invoke_agent <agent name>", gen_ai.operation.name
//    invoke_agent, gen_ai.agent.name, gen_ai.agent.id,
//    gen_ai.conversation.id (the session), pulse.workflow, pulse.run_id,
//    pulse.session, pulse.agent.kind, pulse.agent.status; status ERROR with
//    the row's error for a failed agent (failed, error, interrupted,
//    timeout, cancelled), OK for a completed one;
//  - a guarded tool call: name "execute_tool <tool>", gen_ai.operation.name
//    execute_tool, gen_ai.tool.name, pulse.guard.rule, pulse.guard.outcome
//    (allowed | refused), pulse.guard.level; a refused call has status
//    ERROR with the guard's reason.
// Ids are derived by hashing, so the same row always gives the same span:
// the trace is the row's pulse_run_id, or its session when it has none (per
// workflow); the span is (workflow, session, agent); the parent is the
// parent agent's span in the same session (parent_execution_id); a tool
// call's parent is the span of the turn that was running in its session (a
// helper session counts as its root's).
//
// Export is at-least-once and never twice for what a collector has
// acknowledged: a durable cursor in the workflow database
// (pulse_otlp_export) names the last completion (the agent log's
// completed_seq) and the last guard decision sent; a batch is read after
// it, and the cursor moves only once the collector said 2xx. The cursor
// starts at the log's end the first time an exporter meets a workflow: what
// finished before is history, sent on request (`pulse agent-log export-otlp
// --since T`) and recorded as sent, so it goes once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/agent_log/agent_log.h"
#include "core/autonomy/tool_sessions.h"
#include "core/store/db.h"
#include "core/base/status.h"

namespace pulse {

Status EnsureOtlpExportSchema(Db& db);

// ---- ids ----

// 32 lowercase hex digits (16 bytes): the trace of a Pulse run (or of a
// session with no run) in a workflow.
std::string OtlpTraceId(const std::string& workflow, const std::string& run_or_session);
// 16 lowercase hex digits (8 bytes): an agent row's span.
std::string OtlpAgentSpanId(const std::string& workflow, const std::string& session, const std::string& agent);
// 16 lowercase hex digits: the span of the guard decision with this id.
std::string OtlpToolSpanId(const std::string& workflow, int64_t guard_decision_id);

// ---- spans ----

// What a model-driven agent used. The agent log does not record a model or
// its tokens yet (Pulse's own model loop will): the exporter passes what it
// knows and the span carries gen_ai.request.model and gen_ai.usage.* only
// when given.
struct OtlpModelUsage {
  std::string model;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
};

// One finished agent-log row as an OTLP span (JSON mapping: hex ids, times
// as decimal strings of nanoseconds, enums as numbers).
nlohmann::json AgentRowSpan(const std::string& workflow, const AgentLogRow& row,
                            const OtlpModelUsage* usage = nullptr);

// The turn a tool call belongs to: its trace and span.
struct OtlpParent {
  std::string trace_id;
  std::string span_id;
  std::string run_id;
};
// One guard decision as an OTLP span, under `parent` when known (else in
// the trace of its own session).
nlohmann::json GuardDecisionSpan(const std::string& workflow, const GuardRecord& decision,
                                 const std::optional<OtlpParent>& parent);

// ExportTraceServiceRequest for one workflow's spans.
nlohmann::json OtlpTraceRequest(const std::string& instance, nlohmann::json spans);

// The collector's answer to one POST: 2xx taken; 429, 502, 503, 504 and no
// answer (connection refused, timeout) retried later; any other status is a
// request the collector will never take (dropped, said once).
enum class OtlpAnswer { kTaken, kRetry, kDrop };
OtlpAnswer ClassifyOtlpAnswer(int http_status, bool transport_error);
// Seconds to wait before attempt `failures` + 1 after `failures` failed ones
// in a row: 1, 2, 4, ... up to 60.
double OtlpBackoffSeconds(int failures);

// ---- the durable cursor ----

struct OtlpCursor {
  int64_t origin_seq = 0;    // completions up to here are history
  int64_t seq = 0;           // the last completion sent live
  int64_t origin_guard = 0;  // guard decisions up to here are history
  int64_t guard_id = 0;      // the last guard decision sent live
  std::optional<int64_t> history_since;  // history at or after this time was sent
};

// The workflow's cursor; the first call puts it at the log's end (the
// latest completion and guard decision so far).
Result<OtlpCursor> LoadOrStartOtlpCursor(Db& db);

// One batch to send and where it leaves the reader once the collector took
// it (the live cursor, or a position in the history).
template <typename Position>
struct OtlpSpans {
  nlohmann::json spans = nlohmann::json::array();
  Position next;
  int agent_spans = 0;
  int tool_spans = 0;
  bool empty() const { return agent_spans + tool_spans == 0; }
};
using OtlpBatch = OtlpSpans<OtlpCursor>;

// Up to `max_spans` agent spans (rows completed after the cursor, in the
// order they finished) and up to `max_spans` tool-call spans (guard
// decisions after the cursor).
Result<OtlpBatch> NextOtlpBatch(Db& db, const std::string& workflow, const OtlpCursor& cursor, int max_spans);

// Moves the stored cursor from `from` to `to`; Conflict (nothing changed)
// when another exporter moved it meanwhile.
Status CommitOtlpCursor(Db& db, const OtlpCursor& from, const OtlpCursor& to);

// History: the rows finished before the cursor's origin and the guard
// decisions up to it, that started or completed (were made) at or after
// `since` and not already sent by an earlier history export, a batch at a
// time after `after` (the position a previous batch returned; {0, 0} to
// begin).
struct OtlpHistoryPosition {
  int64_t rowid = 0;
  int64_t guard_id = 0;
};
using OtlpHistoryBatch = OtlpSpans<OtlpHistoryPosition>;
Result<OtlpHistoryBatch> NextOtlpHistoryBatch(Db& db, const std::string& workflow, const OtlpCursor& cursor,
                                              int64_t since, const OtlpHistoryPosition& after, int max_spans);
// Records that history from `since` on was sent (the earliest such time is
// kept).
Status MarkOtlpHistorySent(Db& db, int64_t since);

}  // namespace pulse
