// The agent log as OTLP spans: stable ids, the GenAI attributes, a failed
// agent's status, tool calls under their turn, the durable cursor (no span
// lost or sent twice across a reopen) and history sent once.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/agent_log/agent_log.h"
#include "core/agent_log/otlp_export.h"
#include "core/autonomy/tool_sessions.h"
#include "core/store/db.h"
#include "core/store/schema.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::TempDir;

constexpr const char* kWorkflow = "substack";

struct Log {
  TempDir dir;
  std::string path = dir.Join("db.sqlite");
  std::unique_ptr<Db> db;
  std::string wp = AgentLogWorkspacePath(kWorkflow);

  Log() { Reopen(); }
  void Reopen() {
    db.reset();
    db = Db::Open(path).value();
    EXPECT_TRUE(EnsureSchema(*db).ok());
  }
  void Start(const std::string& session, const std::string& agent, const std::string& at, const std::string& run = "",
             const std::string& parent = "") {
    AgentStart s;
    s.session_id = session;
    s.agent_id = agent;
    s.name = "agent " + agent;
    s.kind = "goal_check";
    s.pulse_run_id = run;
    s.parent_execution_id = parent;
    s.at = T(at);
    ASSERT_TRUE(AgentLogWriter(*db).Started(wp, s, T(at)).ok());
  }
  void Done(const std::string& session, const std::string& agent, const std::string& at,
            const std::string& status = "completed", const std::string& error = "") {
    AgentCompletion d;
    d.session_id = session;
    d.agent_id = agent;
    d.status = status;
    d.error = error;
    d.at = T(at);
    ASSERT_TRUE(AgentLogWriter(*db).Completed(wp, d, T(at)).ok());
  }
  void Guard(const std::string& session, const std::string& tool, bool allowed, const std::string& at) {
    GuardRecord r;
    r.session = session;
    r.turn = "goal_check";
    r.tool = tool;
    r.tool_normalized = tool;
    r.tool_class = "run";
    r.rule = allowed ? "pulse_tool" : "run_at_ask";
    r.level = "ask";
    r.reason = allowed ? "allowed" : "Run is at ask: create a decision request instead";
    r.allowed = allowed;
    r.at = T(at);
    ASSERT_TRUE(AppendGuardRecord(*db, r).ok());
  }
};

std::string Attr(const json& span, const std::string& key) {
  for (const json& a : span["attributes"]) {
    if (a["key"] == key) {
      const json& v = a["value"];
      return v.contains("stringValue") ? v["stringValue"].get<std::string>() : v["intValue"].get<std::string>();
    }
  }
  return "<absent>";
}

bool IsHex(const std::string& s, size_t n) {
  return s.size() == n && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST(OtlpExport, IdsAreStableHashesOfTheRunSessionAndAgent) {
  EXPECT_TRUE(IsHex(OtlpTraceId(kWorkflow, "pr-1"), 32));
  EXPECT_EQ(OtlpTraceId(kWorkflow, "pr-1"), OtlpTraceId(kWorkflow, "pr-1"));
  EXPECT_NE(OtlpTraceId(kWorkflow, "pr-1"), OtlpTraceId(kWorkflow, "pr-2"));
  EXPECT_NE(OtlpTraceId(kWorkflow, "pr-1"), OtlpTraceId("digest", "pr-1"));
  EXPECT_TRUE(IsHex(OtlpAgentSpanId(kWorkflow, "s", "a"), 16));
  // The parts are kept apart: ("s", "ab") is not ("sa", "b").
  EXPECT_NE(OtlpAgentSpanId(kWorkflow, "s", "ab"), OtlpAgentSpanId(kWorkflow, "sa", "b"));
  EXPECT_NE(OtlpToolSpanId(kWorkflow, 1), OtlpToolSpanId(kWorkflow, 2));
}

TEST(OtlpExport, AFinishedRowIsAGenAiInvokeAgentSpan) {
  AgentLogRow row;
  row.session_id = "schedule-goallead--ab-g1";
  row.agent_id = "pulse-turn-goal_check-1";
  row.name = "substack Pulse: goal_check (tick)";
  row.kind = "goal_check";
  row.pulse_run_id = "pr-20261007T120000Z-abc-1";
  row.status = "failed";
  row.error = "runner exited with status 3: boom";
  row.started_at = T("2026-10-07T12:00:00Z");
  row.completed_at = T("2026-10-07T12:00:05Z");
  json span = AgentRowSpan(kWorkflow, row);
  EXPECT_EQ(span["traceId"], OtlpTraceId(kWorkflow, row.pulse_run_id));
  EXPECT_EQ(span["spanId"], OtlpAgentSpanId(kWorkflow, row.session_id, row.agent_id));
  EXPECT_FALSE(span.contains("parentSpanId"));
  EXPECT_EQ(span["name"], "invoke_agent substack Pulse: goal_check (tick)");
  EXPECT_EQ(span["startTimeUnixNano"], std::to_string(T("2026-10-07T12:00:00Z")) + "000000000");
  EXPECT_EQ(span["endTimeUnixNano"], std::to_string(T("2026-10-07T12:00:05Z")) + "000000000");
  EXPECT_EQ(span["status"]["code"], 2);
  EXPECT_EQ(span["status"]["message"], "runner exited with status 3: boom");
  EXPECT_EQ(Attr(span, "gen_ai.operation.name"), "invoke_agent");
  EXPECT_EQ(Attr(span, "gen_ai.agent.name"), row.name);
  EXPECT_EQ(Attr(span, "gen_ai.agent.id"), row.agent_id);
  EXPECT_EQ(Attr(span, "pulse.workflow"), kWorkflow);
  EXPECT_EQ(Attr(span, "pulse.run_id"), row.pulse_run_id);
  EXPECT_EQ(Attr(span, "error.type"), "failed");
  // No model is known for this agent: no model attributes.
  EXPECT_EQ(Attr(span, "gen_ai.request.model"), "<absent>");
  OtlpModelUsage usage{"gpt-x", 120, 30};
  json with_model = AgentRowSpan(kWorkflow, row, &usage);
  EXPECT_EQ(Attr(with_model, "gen_ai.request.model"), "gpt-x");
  EXPECT_EQ(Attr(with_model, "gen_ai.usage.input_tokens"), "120");
  EXPECT_EQ(Attr(with_model, "gen_ai.usage.output_tokens"), "30");
  // A model turn's row carries its tokens (Pulse's own model turns): they
  // are the span's usage with no caller's usage given; none when 0.
  EXPECT_EQ(Attr(span, "gen_ai.usage.input_tokens"), "<absent>");
  row.tokens_in = 36900;
  row.tokens_out = 270;
  json with_tokens = AgentRowSpan(kWorkflow, row);
  EXPECT_EQ(Attr(with_tokens, "gen_ai.usage.input_tokens"), "36900");
  EXPECT_EQ(Attr(with_tokens, "gen_ai.usage.output_tokens"), "270");
  row.tokens_in = row.tokens_out = 0;

  // No run: the session is the trace; a parent agent is the parent span.
  row.pulse_run_id.clear();
  row.parent_execution_id = "gate-1";
  row.status = "completed";
  row.error.clear();
  span = AgentRowSpan(kWorkflow, row);
  EXPECT_EQ(span["traceId"], OtlpTraceId(kWorkflow, row.session_id));
  EXPECT_EQ(span["parentSpanId"], OtlpAgentSpanId(kWorkflow, row.session_id, "gate-1"));
  EXPECT_EQ(span["status"]["code"], 1);
  EXPECT_EQ(Attr(span, "pulse.run_id"), "<absent>");
}

TEST(OtlpExport, CompletionsAreNumberedInTheOrderTheyFinish) {
  Log log;
  log.Start("s", "a", "2026-10-07T10:00:00Z");
  log.Start("s", "b", "2026-10-07T10:00:00Z");
  log.Done("s", "b", "2026-10-07T10:01:00Z");
  // Backdated: finished later, at an earlier time; the number follows the write.
  log.Done("s", "a", "2026-10-07T09:00:00Z", "failed", "x");
  Result<std::vector<FinishedAgentRow>> rows = ReadCompletedAfter(*log.db, 0, 10);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].row.agent_id, "b");
  EXPECT_EQ((*rows)[0].seq, 1);
  EXPECT_EQ((*rows)[1].row.agent_id, "a");
  EXPECT_EQ((*rows)[1].seq, 2);
  EXPECT_EQ(*LatestCompletedSeq(*log.db), 2);
  // The next number is read from the index, not by a scan.
  Result<Statement> plan = log.db->Prepare(
      "EXPLAIN QUERY PLAN SELECT completed_seq FROM background_agent_log WHERE completed_seq IS NOT NULL"
      " ORDER BY completed_seq DESC LIMIT 1");
  ASSERT_TRUE(plan.ok());
  std::string detail;
  while (*plan->Step()) detail += plan->Text(3) + ";";
  EXPECT_NE(detail.find("background_agent_log_by_completed_seq"), std::string::npos) << detail;
}

TEST(OtlpExport, TheCursorStartsAtTheEndAndMovesOnlyWhenCommitted) {
  Log log;
  log.Start("s", "old", "2026-10-07T10:00:00Z");
  log.Done("s", "old", "2026-10-07T10:01:00Z");
  Result<OtlpCursor> cursor = LoadOrStartOtlpCursor(*log.db);
  ASSERT_TRUE(cursor.ok());
  EXPECT_EQ(cursor->origin_seq, 1);
  EXPECT_EQ(cursor->seq, 1);
  Result<OtlpBatch> none = NextOtlpBatch(*log.db, kWorkflow, *cursor, 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());  // what finished before is history

  log.Start("s", "n1", "2026-10-07T11:00:00Z", "pr-1");
  log.Start("s", "n2", "2026-10-07T11:00:00Z", "pr-1");
  log.Start("s", "running", "2026-10-07T11:00:00Z", "pr-1");
  log.Done("s", "n1", "2026-10-07T11:01:00Z");
  log.Done("s", "n2", "2026-10-07T11:02:00Z");
  Result<OtlpBatch> first = NextOtlpBatch(*log.db, kWorkflow, *cursor, 1);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->agent_spans, 1);
  EXPECT_EQ(first->spans[0]["spanId"], OtlpAgentSpanId(kWorkflow, "s", "n1"));
  // Not committed (the collector never answered, the server died): after a
  // reopen the same batch comes again, nothing is lost.
  log.Reopen();
  cursor = LoadOrStartOtlpCursor(*log.db);
  Result<OtlpBatch> again = NextOtlpBatch(*log.db, kWorkflow, *cursor, 1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->spans, first->spans);
  ASSERT_TRUE(CommitOtlpCursor(*log.db, *cursor, again->next).ok());
  // Committed: after a reopen it is never sent again.
  log.Reopen();
  cursor = LoadOrStartOtlpCursor(*log.db);
  EXPECT_EQ(cursor->seq, again->next.seq);
  Result<OtlpBatch> rest = NextOtlpBatch(*log.db, kWorkflow, *cursor, 10);
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->agent_spans, 1);  // n2; the running row is not a span yet
  EXPECT_EQ(rest->spans[0]["spanId"], OtlpAgentSpanId(kWorkflow, "s", "n2"));
  // Both spans of run pr-1 are in its trace.
  EXPECT_EQ(rest->spans[0]["traceId"], first->spans[0]["traceId"]);
  EXPECT_EQ(rest->spans[0]["traceId"], OtlpTraceId(kWorkflow, "pr-1"));
  // Another exporter's stale view cannot move it twice.
  ASSERT_TRUE(CommitOtlpCursor(*log.db, *cursor, rest->next).ok());
  EXPECT_EQ(CommitOtlpCursor(*log.db, *cursor, rest->next).code(), Code::kConflict);
}

TEST(OtlpExport, AToolCallIsAChildOfTheTurnThatMadeIt) {
  Log log;
  ASSERT_TRUE(LoadOrStartOtlpCursor(*log.db).ok());
  Result<OpenedSession> session = OpenToolSession(*log.db, kWorkflow, TurnKind::kGoalCheck, "", T("2026-10-07T12:00:00Z"));
  ASSERT_TRUE(session.ok());
  const std::string sid = session->session.id;
  log.Start(sid, "pulse-turn-goal_check-1", "2026-10-07T12:00:00Z", "pr-turn");
  log.Guard(sid, "record_pulse_goal_check", true, "2026-10-07T12:00:01Z");
  log.Guard(sid, "trigger_schedule", false, "2026-10-07T12:00:02Z");
  // A helper of the turn's session counts as the turn's.
  Result<OpenedSession> helper = OpenToolSession(*log.db, kWorkflow, TurnKind::kGoalCheck, sid, T("2026-10-07T12:00:02Z"));
  ASSERT_TRUE(helper.ok());
  log.Guard(helper->session.id, "execute_step", false, "2026-10-07T12:00:03Z");
  log.Done(sid, "pulse-turn-goal_check-1", "2026-10-07T12:00:04Z");

  Result<OtlpCursor> cursor = LoadOrStartOtlpCursor(*log.db);
  Result<OtlpBatch> batch = NextOtlpBatch(*log.db, kWorkflow, *cursor, 10);
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->agent_spans, 1);
  ASSERT_EQ(batch->tool_spans, 3);
  const json& turn = batch->spans[0];
  for (int i = 1; i <= 3; ++i) {
    const json& tool = batch->spans[i];
    EXPECT_EQ(tool["traceId"], turn["traceId"]);
    EXPECT_EQ(tool["parentSpanId"], turn["spanId"]);
    EXPECT_EQ(Attr(tool, "gen_ai.operation.name"), "execute_tool");
    EXPECT_EQ(Attr(tool, "pulse.run_id"), "pr-turn");
  }
  EXPECT_EQ(Attr(batch->spans[1], "gen_ai.tool.name"), "record_pulse_goal_check");
  EXPECT_EQ(Attr(batch->spans[1], "pulse.guard.outcome"), "allowed");
  EXPECT_EQ(batch->spans[1]["status"]["code"], 1);
  const json& refused = batch->spans[2];
  EXPECT_EQ(refused["name"], "execute_tool trigger_schedule");
  EXPECT_EQ(Attr(refused, "pulse.guard.rule"), "run_at_ask");
  EXPECT_EQ(Attr(refused, "pulse.guard.outcome"), "refused");
  EXPECT_EQ(refused["status"]["code"], 2);
  EXPECT_EQ(refused["status"]["message"], "refused: Run is at ask: create a decision request instead");
  // Committed, the tool calls are not sent again either.
  ASSERT_TRUE(CommitOtlpCursor(*log.db, *cursor, batch->next).ok());
  Result<OtlpBatch> none = NextOtlpBatch(*log.db, kWorkflow, batch->next, 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(OtlpExport, HistoryIsSentOnceAndOnlyWhatTheLiveCursorDoesNotCover) {
  Log log;
  log.Start("s", "june", "2026-06-01T10:00:00Z");
  log.Done("s", "june", "2026-06-01T10:05:00Z");
  log.Start("s", "sept", "2026-09-01T10:00:00Z");
  log.Done("s", "sept", "2026-09-01T10:05:00Z");
  log.Start("s", "still-running", "2026-09-02T10:00:00Z");
  log.Guard("s", "execute_step", false, "2026-09-01T10:01:00Z");
  Result<OtlpCursor> cursor = LoadOrStartOtlpCursor(*log.db);
  ASSERT_TRUE(cursor.ok());
  // Live from here: the running row, once finished, is the live exporter's.
  log.Done("s", "still-running", "2026-10-07T10:00:00Z");

  auto all = [&](int64_t since, const OtlpCursor& c) {
    std::set<std::string> ids;
    OtlpHistoryPosition at;
    for (;;) {
      Result<OtlpHistoryBatch> b = NextOtlpHistoryBatch(*log.db, kWorkflow, c, since, at, 1);
      EXPECT_TRUE(b.ok());
      if (!b.ok() || b->empty()) break;
      for (const json& s : b->spans) EXPECT_TRUE(ids.insert(s["spanId"].get<std::string>()).second);
      at = b->next;
    }
    return ids;
  };
  std::set<std::string> sept = all(T("2026-08-01T00:00:00Z"), *cursor);
  EXPECT_EQ(sept, (std::set<std::string>{OtlpAgentSpanId(kWorkflow, "s", "sept"), OtlpToolSpanId(kWorkflow, 1)}));
  ASSERT_TRUE(MarkOtlpHistorySent(*log.db, T("2026-08-01T00:00:00Z")).ok());
  cursor = LoadOrStartOtlpCursor(*log.db);
  // Again: nothing. Further back: only what the first run did not cover.
  EXPECT_TRUE(all(T("2026-08-01T00:00:00Z"), *cursor).empty());
  EXPECT_EQ(all(T("2026-01-01T00:00:00Z"), *cursor), (std::set<std::string>{OtlpAgentSpanId(kWorkflow, "s", "june")}));
  // The live batch has the row that finished after the cursor began, and no history.
  Result<OtlpBatch> live = NextOtlpBatch(*log.db, kWorkflow, *cursor, 10);
  ASSERT_TRUE(live.ok());
  ASSERT_EQ(live->agent_spans, 1);
  EXPECT_EQ(live->tool_spans, 0);
  EXPECT_EQ(live->spans[0]["spanId"], OtlpAgentSpanId(kWorkflow, "s", "still-running"));
}

TEST(OtlpExport, TheCollectorsAnswerDecidesRetryOrDrop) {
  EXPECT_EQ(ClassifyOtlpAnswer(200, false), OtlpAnswer::kTaken);
  EXPECT_EQ(ClassifyOtlpAnswer(0, true), OtlpAnswer::kRetry);
  for (int s : {429, 502, 503, 504}) EXPECT_EQ(ClassifyOtlpAnswer(s, false), OtlpAnswer::kRetry) << s;
  for (int s : {400, 401, 404, 413, 500}) EXPECT_EQ(ClassifyOtlpAnswer(s, false), OtlpAnswer::kDrop) << s;
  EXPECT_EQ(OtlpBackoffSeconds(1), 1);
  EXPECT_EQ(OtlpBackoffSeconds(3), 4);
  EXPECT_EQ(OtlpBackoffSeconds(30), 60);
}

TEST(OtlpExport, TheRequestIsAnExportTraceServiceRequest) {
  json req = OtlpTraceRequest("host-1", json::array({json{{"spanId", "x"}}}));
  const json& rs = req["resourceSpans"][0];
  EXPECT_EQ(rs["resource"]["attributes"][0]["key"], "service.name");
  EXPECT_EQ(rs["resource"]["attributes"][0]["value"]["stringValue"], "pulse");
  EXPECT_EQ(rs["scopeSpans"][0]["scope"]["name"], "pulse.agent_log");
  EXPECT_EQ(rs["scopeSpans"][0]["spans"][0]["spanId"], "x");
}

}  // namespace
}  // namespace pulse
