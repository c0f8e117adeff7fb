// Background turns: each is one background agent with one agent-log row from
// start to completion, whatever happens to the runner (crash, hang, server
// shutdown). The rules of a turn are core API methods ("turn.rules",
// "turn.context"); this file only schedules threads and processes.
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <chrono>
#include <random>

#include "agent/turns/pulse_asks.h"
#include "agent/turns/pulse_conversation.h"
#include "agent/turns/pulse_qa.h"
#include "agent/tools/pulse_tools.h"
#include "agent/turns/pulse_turns.h"
#include "agent/turns/review_turns.h"
#include "core/workflow/after_run.h"
#include "core/agent_log/agent_log.h"
#include "core/agent_log/otlp_export.h"
#include "core/goal/goal_facts.h"
#include "core/conversation/pulse_requests.h"
#include "core/review/review_conversation.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"
#include "server-shim/cluster/fence.h"
#include "server-shim/observe/metrics.h"
#include "server-shim/tick/first_open.h"
#include "server-shim/serve.h"
#include "server-shim/tick/tick_due.h"
#include "server-shim/tick/tick_import.h"

namespace pulse::serve {

using nlohmann::json;

Result<std::unique_ptr<OpenCtx>> OpenForCall(Env& env, const std::string& workspace, const std::string& workflow) {
  auto oc = std::make_unique<OpenCtx>();
  PULSE_ASSIGN_OR_RETURN(oc->handle, WorkflowHandle::Open(env, workspace, workflow));
  oc->ctx = ServerContext(*oc->handle);
  // Inside a fenced tick (or a turn it started) the connection refuses
  // writes once a newer claim holds the workflow.
  PULSE_RETURN_IF_ERROR(ApplyCurrentFence(oc->handle->db(), workflow));
  // The first open of the workflow by this process recovers what a previous
  // server left running (first_open.h).
  if (FirstOpen* first = CurrentFirstOpen()) first->Run(*oc);
  return oc;
}

namespace {

constexpr const char* kAgentPrefix = "pulse-turn-";

// The turn's agent-log row, completed.
Status CompleteAgent(OpenCtx& oc, const std::string& session, const std::string& agent, const std::string& status,
                     const std::string& result, const std::string& error, const std::string& duration, int64_t now,
                     TurnTokens tokens = {}) {
  AgentCompletion done;
  done.tokens_in = tokens.in;
  done.tokens_out = tokens.out;
  done.session_id = session;
  done.agent_id = agent;
  done.status = status;
  done.result = result;
  done.error = error;
  done.duration = duration;
  done.at = now;
  return AgentLogWriter(*oc.ctx.db).Completed(AgentLogWorkspacePath(oc.ctx.workflow), done, now);
}

std::string RandomHex(int n) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < n; ++i) s += digits[rng() % 16];
  return s;
}

std::string Compact(const std::string& t) {
  std::string s;
  for (char c : t) if (c != '-' && c != ':') s += c;
  return s;
}

std::string Trim(std::string s, size_t cap) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  size_t b = s.find_first_not_of(" \n\r\t");
  s = b == std::string::npos ? "" : s.substr(b);
  // Cut on a character boundary: half a character stored in the agent log
  // would be repaired into U+FFFD, which reads as corruption.
  if (s.size() > cap) s = std::string(Utf8Prefix(s, cap)) + "…";
  return s;
}

std::string LastLines(const std::string& s, size_t cap) {
  std::string t = Trim(s, 1 << 20);
  if (t.size() > cap) t = "…" + std::string(Utf8Suffix(t, cap));
  return t;
}

// What a turn's records need before it runs: the runs older than Pulse's
// own records (imported as `pulse check` does, so the turn's goal check sees
// the runs the command line sees), and for an ask the session its turn runs
// in (the chain guard reads it).
void PrepareTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request) {
  if (ticket.kind == "goal_check" || ticket.kind == "goal_work") {
    // Only when the file changed since its last import (the tick that
    // started this turn has usually just imported it).
    Result<ImportCounts> imported =
        ImportScheduleRunsOnChange(*oc.ctx.env, *oc.ctx.db, oc.ctx.config, oc.paths().schedule_runs);
    if (!imported.ok()) spdlog::warn("turn {}: {}", ticket.pulse_run_id, imported.status().message());
  }
  const json ask = JGet(request.input, "ask", json());
  if (ask.is_object()) {
    Status bound = Asks(*oc.ctx.db, oc.ctx.workflow).BindTurnSession(JStr(ask, "call_id"), ticket.session);
    if (!bound.ok()) spdlog::warn("{}: ask {}: {}", ticket.workflow, JStr(ask, "call_id"), bound.message());
  }
}

// An ask's answer is its turn's final reply; a turn that failed says why,
// and the caller's thread stays open for another round.
void FinishAsk(OpenCtx& oc, const TurnRequest& request, const Result<json>& out) {
  const json ask = JGet(request.input, "ask", json());
  if (!ask.is_object()) return;
  bool ok = out.ok() && JStr(*out, "error").empty();
  Status finished = FinishAskTurn(oc.ctx, ask, out.ok() ? out->value("turn_id", int64_t{0}) : 0, ok,
                                  out.ok() ? JStr(*out, "result") : "",
                                  out.ok() ? JStr(*out, "error") : out.status().message(),
                                  out.ok() ? JStr(*out, "state") : "failed");
  if (!finished.ok()) spdlog::warn("{}: ask {}: {}", request.workflow, JStr(ask, "call_id"), finished.message());
}

// Why a runner's turn failed ("" when it did not); `*state` becomes
// "interrupted" when the server's shutdown cut it.
std::string RunnerError(const ProcessResult& p, double timeout, std::string* state) {
  const std::string err_tail = RepairUtf8(LastLines(p.err, 600));
  const std::string tail = err_tail.empty() ? "" : ": " + err_tail;
  if (!p.spawn_error.empty()) return p.spawn_error;
  if (p.timed_out) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", timeout);
    return std::string("runner timed out after ") + buf + " s and was killed";
  }
  if (p.interrupted) {
    *state = "interrupted";
    return "interrupted: the server shut down while the runner was working; the runner was killed";
  }
  if (p.signal != 0) return "runner killed by signal " + std::to_string(p.signal) + tail;
  if (p.exit_code != 0) {
    // A shell reports a child killed by signal N as status 128+N.
    std::string killed = p.exit_code > 128 && p.exit_code < 160
                             ? " (killed by signal " + std::to_string(p.exit_code - 128) + ")"
                             : "";
    return "runner exited with status " + std::to_string(p.exit_code) + killed + tail;
  }
  // Bytes that are not text are not a reply: the turn failed, and what was
  // readable is kept (repaired) beside the reason.
  if (!IsValidUtf8(p.out) || p.out.find('\0') != std::string::npos) {
    return "runner printed output that is not UTF-8 text (" + std::to_string(p.out.size()) +
           " bytes); the reply was not taken";
  }
  return "";
}

}  // namespace

TurnManager::TurnManager(Env* env, const ServeOptions& options) : env_(env), options_(options) {
  // The model's key stays in this process: no runner, platform or Builder
  // command started from here inherits it.
  SetHiddenEnvironment(ModelKeyVariables(options.model));
  HideProgramKeys(options);
}

TurnManager::~TurnManager() { Shutdown(); }

bool TurnManager::ActiveOn(const std::string& workflow) {
  std::lock_guard<std::mutex> l(mu_);
  return active_workflows_.count(workflow) > 0;
}

int TurnManager::RunningOfKind(const std::string& kind) {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<int>(running_kinds_.count(kind));
}

int TurnManager::Active() {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<int>(active_workflows_.size());
}

Result<TurnTicket> TurnManager::Submit(const TurnRequest& request, OpenCtx* open) {
  if (stopping_) return Status::Refused("the server is shutting down; the turn was not started");
  {
    std::lock_guard<std::mutex> l(mu_);
    if (waiting_ >= options_.max_waiting) {
      return Status::Busy(std::to_string(waiting_) + " turns are already waiting for a slot; try again later");
    }
  }
  // The caller's connection to this workflow when it has one open (the
  // tick), else one of its own.
  std::unique_ptr<OpenCtx> own;
  if (!open || open->ctx.workflow != request.workflow) {
    PULSE_ASSIGN_OR_RETURN(own, OpenForCall(*env_, options_.workspace, request.workflow));
  }
  OpenCtx* oc = own ? own.get() : open;
  const bool pass = request.kind == "pass";
  PULSE_ASSIGN_OR_RETURN(TurnKind kind, ParseTurnKind(pass ? "goal_work" : request.kind));
  int64_t now = env_->NowSeconds();
  TurnTicket t;
  t.workflow = request.workflow;
  t.kind = request.kind;
  if (pass && !oc->ctx.config.pulse_enabled) {
    return Status::Refused(request.workflow + ": a Pulse pass needs pulse.enabled");
  }
  if (RunsInConversation(oc->ctx, kind)) {
    // The conversation's session; its token is made when the turn runs, so
    // a turn waiting behind another never takes the running one's session.
    t.conversation = true;
    PULSE_ASSIGN_OR_RETURN(t.session, PrepareConversationTurn(oc->ctx, kind));
  } else {
    PULSE_ASSIGN_OR_RETURN(OpenedSession session, OpenToolSession(*oc->ctx.db, oc->ctx.workflow, kind, "", now));
    t.session = session.session.id;
    t.token = session.token;
  }
  t.started_at = FormatTime(now);
  uint64_t n = ++counter_;
  t.pulse_run_id = "pr-" + Compact(t.started_at) + "-" + RandomHex(6) + "-" + std::to_string(n);
  t.agent = kAgentPrefix + request.kind + "-" + t.pulse_run_id.substr(3);
  // The review and housekeeping are not Pulse's turns: named as what they are.
  const std::string what = request.kind == "workflow_review" ? " Workflow Review"
                           : request.kind == "housekeeping"  ? " housekeeping"
                                                             : " Pulse: " + request.kind;
  std::string name = request.workflow + what + (request.trigger.empty() ? "" : " (" + request.trigger + ")");
  // With an OTLP exporter, the export's cursor is placed before the turn's
  // first record: a turn of this server is never history to it, even when
  // it ends before the exporter first looks at this workflow.
  if (!options_.otlp_endpoint.empty()) {
    Result<OtlpCursor> cursor = LoadOrStartOtlpCursor(*oc->ctx.db);
    if (!cursor.ok()) spdlog::warn("{}: otlp: {}", request.workflow, cursor.status().message());
  }
  // The row exists before the turn runs, so a turn that never gets to run
  // still leaves its record.
  AgentStart start;
  start.session_id = t.session;
  start.agent_id = t.agent;
  start.name = name;
  start.kind = request.kind;
  start.pulse_run_id = t.pulse_run_id;
  start.at = now;
  Status started = AgentLogWriter(*oc->ctx.db).Started(AgentLogWorkspacePath(oc->ctx.workflow), start, now);
  if (!started.ok()) spdlog::warn("{}: agent log: {}", request.workflow, started.message());
  spdlog::info("{}: turn {} accepted ({}, session {})", request.workflow, t.pulse_run_id, request.kind, t.session);
  std::lock_guard<std::mutex> l(mu_);
  Reap();
  ++waiting_;
  active_workflows_.insert(request.workflow);
  // Counted from here, not from when it has a slot: a cap read by whoever
  // starts the next turn (the tick's checks, one Workflow Review) must see
  // the ones accepted and still waiting too.
  running_kinds_.insert(request.kind);
  threads_.emplace_back([this, t, request, fence = CurrentFence()] {
    // A turn is background work, as the tick is: it (and the runner it
    // starts, which inherits the thread's priority) yields to the HTTP side.
    LowerThreadPriority("turn");
    FenceScope scope(fence);
    Run(t, request);
  });
  return t;
}

void TurnManager::Reap() {
  // mu_ held. Join threads that said they are done.
  for (auto id : finished_) {
    for (auto it = threads_.begin(); it != threads_.end(); ++it) {
      if (it->get_id() == id) {
        it->join();
        threads_.erase(it);
        break;
      }
    }
  }
  finished_.clear();
}

void TurnManager::Run(TurnTicket ticket, TurnRequest request) {
  auto steady0 = std::chrono::steady_clock::now();
  bool got_slot = false;
  TakeTurnTokens();  // this thread's count starts at zero
  {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] {
      return stopping_ || (running_ < options_.max_turns && !running_workflows_.count(request.workflow));
    });
    --waiting_;
    if (!stopping_) {
      got_slot = true;
      ++running_;
      running_workflows_.insert(request.workflow);
    }
  }

  std::string status = "completed", result, error;
  if (!got_slot) {
    status = "failed";
    error = "not run: the server shut down before a slot was free";
  }
  // The turn's connection, kept for its completion.
  std::unique_ptr<OpenCtx> open;
  if (got_slot) {
    Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(*env_, options_.workspace, request.workflow);
    if (!oc.ok()) {
      status = "failed";
      error = oc.status().message();
    } else {
      Result<json> out = Status::Internal("the turn did not run");
      try {
        out = Execute(**oc, ticket, request);
      } catch (const std::exception& e) {
        // A bug must not take the server down; the turn's row says what happened.
        out = Status::Internal(std::string("internal error in the turn: ") + e.what());
      }
      FinishAsk(**oc, request, out);
      if (out.ok()) {
        result = JStr(*out, "result");
        if (!JStr(*out, "error").empty()) {
          status = "failed";
          error = JStr(*out, "error");
        }
      } else {
        status = "failed";
        error = out.status().message();
      }
      // A built-in runner (the rules, a model) stored its reply itself.
      if (request.input.contains("slack")) {
        ReplyToSlack(**oc, request, status, result, error, out.ok() && JBool(*out, "reply_stored"));
      }
      if (!deliverer_) DeliverOutbox(**oc);
      open = std::move(*oc);
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - steady0).count();
  Complete(ticket, status, result, error, static_cast<int64_t>(secs * 1000), open.get(), TakeTurnTokens());
  if (ServerMetrics* metrics = CurrentServerMetrics()) metrics->TurnFinished(request.kind, status, secs);
  // The messages the turn left go to the deliverer's thread; with nothing
  // to deliver, it is told so and need not open the workflow itself.
  if (deliverer_ && open) deliverer_->Settled(request.workflow, open->ctx);
  open.reset();

  std::lock_guard<std::mutex> l(mu_);
  if (got_slot) {
    --running_;
    running_workflows_.erase(request.workflow);
  }
  running_kinds_.erase(running_kinds_.find(request.kind));
  active_workflows_.erase(active_workflows_.find(request.workflow));
  finished_.push_back(std::this_thread::get_id());
  cv_.notify_all();
}

Result<json> TurnManager::Execute(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request) {
  if (ticket.kind == "pass") return RunPass(oc, ticket, request);
  if (ticket.kind == "qa_fix") return RunQaFix(oc, ticket, request);
  if (ticket.kind == "run_failed" && ticket.conversation) return RunFailedTurn(oc, ticket, request);
  if (ticket.conversation) return ConversationTurn(oc, ticket, request, ticket.kind);
  if (ticket.kind == "workflow_review") {
    Status claimed = ClaimReviewTurn(oc.ctx, ticket.session, ticket.pulse_run_id, request.input);
    if (!claimed.ok()) return json{{"result", "not reviewed: " + claimed.message()}};
    // Its own conversation, not Pulse's: the turn is recorded there and the
    // runner continues from the earlier reviews.
    Result<ReviewConversationTurn> conv = BeginReviewConversationTurn(oc.ctx, ticket.session);
    if (!conv.ok()) spdlog::warn("{}: workflow review conversation: {}", ticket.workflow, conv.status().message());
    Result<json> out = RunTurn(oc, ticket, request, conv.ok() ? conv->continuity : json());
    // Whatever the runner did: a review with no receipt is unfinished (the
    // run goes), and the chats that waited are told.
    std::string error = out.ok() ? JStr(*out, "error") : out.status().message();
    std::string outcome = EndReviewTurn(oc.ctx, ticket.session, error);
    if (conv.ok()) EndReviewConversationTurn(oc.ctx, conv->turn_id, out.ok() ? JStr(*out, "result") : "", error, outcome);
    if (out.ok()) (*out)["outcome"] = outcome;
    return out;
  }
  if (ticket.kind == "housekeeping") return HousekeepingTurn(oc, ticket, request);
  return RunTurn(oc, ticket, request, json());
}

namespace {

// A pass's Architecture or Technical turn (a workflow without a goal) has its
// own instruction; a failed run or a QA request is what the turn is about.
void AddTurnSubject(json* stdin_doc, const TurnRequest& request, const std::string& workflow) {
  const std::string module = JStr(request.input, "module");
  if (module == "architecture") (*stdin_doc)["charter"] = CharterCommon(workflow) + " " + kInstructionArchitecture;
  if (module == "technical") (*stdin_doc)["charter"] = CharterCommon(workflow) + " " + kInstructionTechnical;
  for (const char* key : {"failed_run", "qa_request", "module"}) {
    if (request.input.contains(key)) (*stdin_doc)["context"][key] = request.input[key];
  }
}

}  // namespace

Result<json> TurnManager::HousekeepingTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request) {
  int64_t id = 0;
  if (request.input.contains("request_id") && request.input["request_id"].is_number_integer()) {
    id = request.input["request_id"].get<int64_t>();
  }
  PULSE_RETURN_IF_ERROR(SetHousekeepingState(*oc.ctx.db, id, "running", env_->NowSeconds()));
  Result<json> out = RunTurn(oc, ticket, request, json());
  bool failed = !out.ok() || !JStr(*out, "error").empty();
  Status s = SetHousekeepingState(*oc.ctx.db, id, failed ? "failed" : "done", env_->NowSeconds());
  if (!s.ok()) spdlog::warn("{}: housekeeping {}: {}", ticket.workflow, id, s.message());
  return out;
}

Result<json> TurnManager::RunnerInput(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                      const json& continuity) {
  json turn = {{"kind", ticket.kind},         {"session", ticket.session},
               {"pulse_run_id", ticket.pulse_run_id},
               {"agent", ticket.agent},       {"workflow", ticket.workflow},
               {"trigger", request.trigger},  {"started_at", ticket.started_at}};
  for (auto& [k, v] : request.input.items()) turn[k] = v;
  PULSE_ASSIGN_OR_RETURN(TurnKind kind, ParseTurnKind(ticket.kind));
  const json ask = JGet(request.input, "ask", json());
  const bool around_run = kind == TurnKind::kWorkflowReview || kind == TurnKind::kHousekeeping;
  PULSE_ASSIGN_OR_RETURN(json doc, around_run ? AroundRunTurnContext(oc.ctx, kind, request.input)
                                              : TurnContext(oc.ctx, kind, JBool(request.input, "report_only"),
                                                            JGet(request.input, "message", json()),
                                                            JStr(request.input, "caller"),
                                                            JStr(request.input, "account")));
  AddTurnSubject(&doc, request, ticket.workflow);
  if (ask.is_object()) {
    doc["charter"] = AskCharter(ticket.workflow, ask, JBool(request.input, "report_only"));
    doc["context"]["ask"] = ask;
  }
  if (!continuity.is_null()) {
    // Continuity: a coding CLI resumes its own session by this id; an API
    // model replays the generation's transcript.
    turn["restored_conversation_session_id"] = continuity["restored_conversation_session_id"];
    doc["conversation"] = continuity;
  }
  doc["turn"] = turn;  // the token travels only in the environment
  return doc;
}

Result<json> TurnManager::RunTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                  const json& continuity) {
  PrepareTurn(oc, ticket, request);
  PULSE_ASSIGN_OR_RETURN(TurnKind kind, ParseTurnKind(ticket.kind));
  const json ask = JGet(request.input, "ask", json());
  const bool around_run = kind == TurnKind::kWorkflowReview || kind == TurnKind::kHousekeeping;
  // A model thinks for the turn when the server or the workflow names one
  // and no external runner was given.
  std::optional<ModelSpec> model;
  if (options_.runner.empty()) {
    Result<std::optional<ModelSpec>> named = ModelForWorkflow(options_.model, oc.ctx.config.raw);
    if (!named.ok()) return json{{"result", ""}, {"error", named.status().message()}};
    model = *named;
  }
  if (!model && options_.runner.empty() && around_run) {
    Result<std::string> summary = kind == TurnKind::kWorkflowReview ? RunRulesReview(oc.ctx, ticket.session)
                                                                    : RunRulesHousekeeping(oc.ctx, ticket.session);
    if (!summary.ok()) return summary.status();
    return json{{"result", *summary}};
  }
  if (!model && options_.runner.empty()) {
    // The built-in rules runner: no model, the core's rules only.
    RulesTurn rules{kind, ticket.session, ticket.pulse_run_id, JStr(request.input, "message"),
                    JBool(request.input, "report_only"), request.input, JGet(request.input, "slack", json()), ask};
    PULSE_ASSIGN_OR_RETURN(RulesReport report, RunRulesTurn(oc.ctx, rules));
    return json{{"result", report.summary}, {"reply_stored", report.outbox_id.has_value()}};
  }
  PULSE_ASSIGN_OR_RETURN(json stdin_doc, RunnerInput(oc, ticket, request, continuity));
  // A review that hangs is ended at its own (shorter) timeout: the run it
  // stands before goes on without it.
  const double timeout = kind == TurnKind::kWorkflowReview ? options_.review_timeout : options_.runner_timeout;
  if (model) return ModelTurn(oc, ticket, request, stdin_doc, *model, timeout);
  if (const ProgramPreset* preset = FindProgramPreset(options_.runner)) {
    return ProgramTurn(oc, ticket, request, stdin_doc, *preset, timeout);
  }

  // An external runner: charter and context on stdin, the session's MCP
  // endpoint and token in its environment.
  stdin_doc["mcp"] = {{"url", base_url_ + "mcp"},
                      {"tool_url", base_url_ + "s/" + ticket.session + "/tools/custom/"},
                      {"token_env", "MCP_API_TOKEN"}};
  std::map<std::string, std::string> env = {
      {"MCP_API_URL", base_url_ + "mcp"},
      {"MCP_API_TOKEN", ticket.token},
      {"PULSE_TOOL_URL", base_url_ + "s/" + ticket.session + "/tools/custom/"},
      {"PULSE_SESSION", ticket.session},
      {"PULSE_WORKFLOW", ticket.workflow},
      {"PULSE_TURN", ticket.kind},
      {"PULSE_RUN_ID", ticket.pulse_run_id},
  };
  // A Workflow Review continues its conversation by transcript only: each
  // review has a session of its own, so there is none to resume.
  if (!continuity.is_null() && continuity["restored_conversation_session_id"].is_string()) {
    env["PULSE_RESTORED_SESSION"] = continuity["restored_conversation_session_id"].get<std::string>();
  }
  spdlog::info("{}: turn {} runs `{}`", ticket.workflow, ticket.pulse_run_id, options_.runner);
  ProcessSandbox sandbox = RunnerSandbox(options_, oc.paths().dir);
  ProcessResult p = RunProcess(options_.runner, stdin_doc.dump() + "\n", env, timeout, &stopping_,
                               options_.shutdown_grace, &sandbox);
  // A runner may print any bytes: repaired here, before they are JSON.
  json out = {{"result", RepairUtf8(Trim(p.out, 4000))}};
  std::string state;
  std::string error = RunnerError(p, timeout, &state);
  if (!error.empty()) out["error"] = error;
  if (!state.empty()) out["state"] = state;
  return out;
}

void TurnManager::Complete(const TurnTicket& t, const std::string& status, const std::string& result,
                           const std::string& error, int64_t duration_ms, OpenCtx* open, TurnTokens tokens) {
  // The turn's own connection unless it has none, or one a failure left
  // inside a transaction.
  Result<std::unique_ptr<OpenCtx>> oc = std::unique_ptr<OpenCtx>();
  if (!open || sqlite3_get_autocommit(open->ctx.db->handle()) == 0) {
    oc = OpenForCall(*env_, options_.workspace, t.workflow);
    if (!oc.ok()) {
      spdlog::error("{}: cannot record the completion of turn {}: {}", t.workflow, t.pulse_run_id,
                    oc.status().message());
      return;
    }
    open = oc->get();
  }
  char dur[32];
  std::snprintf(dur, sizeof dur, "%.3fs", duration_ms / 1000.0);
  const int64_t now = env_->NowSeconds();
  Status done = CompleteAgent(*open, t.session, t.agent, status, result, error, dur, now, tokens);
  if (!done.ok()) spdlog::warn("{}: agent log: {}", t.workflow, done.message());
  Result<std::vector<std::string>> closed = CloseToolSession(*open->ctx.db, t.session, now);
  if (!closed.ok()) spdlog::warn("{}: closing session {}: {}", t.workflow, t.session, closed.status().message());
  if (error.empty()) {
    spdlog::info("{}: turn {} {}: {}", t.workflow, t.pulse_run_id, status, std::string(Utf8Prefix(result, 200)));
  } else {
    spdlog::warn("{}: turn {} {}: {}", t.workflow, t.pulse_run_id, status, error);
  }
}

void TurnManager::Drain() {
  for (;;) {
    std::list<std::thread> threads;
    {
      std::lock_guard<std::mutex> l(mu_);
      threads.swap(threads_);
      finished_.clear();
    }
    if (threads.empty()) return;
    for (std::thread& t : threads) {
      if (t.joinable()) t.join();
    }
  }
}

void TurnManager::RecoverInterrupted(OpenCtx& oc) {
  const std::string& workflow = oc.ctx.workflow;
  const int64_t now = env_->NowSeconds();
  // The conversation goes on: a turn the last server left running is
  // recorded as interrupted and the conversation released.
  Result<int> turns = Conversation(*oc.ctx.db, workflow)
                          .RecoverInterrupted("interrupted: the server stopped before this turn finished", now);
  if (turns.ok() && *turns > 0) spdlog::warn("{}: {} conversation turn(s) recorded as interrupted", workflow, *turns);
  // A QA fix run the last server left running is recorded as failed, not
  // started again: a fix run is tried once per request.
  Result<int> qa = FailAbandonedQaRequests(*oc.ctx.db, "interrupted: the server stopped before the fix run finished", now);
  if (qa.ok() && *qa > 0) spdlog::warn("{}: {} QA fix run(s) recorded as failed (interrupted)", workflow, *qa);
  Result<int> reviews = ReviewConversation(*oc.ctx.db, workflow).RecoverInterrupted(now);
  if (reviews.ok() && *reviews > 0) spdlog::warn("{}: {} Workflow Review turn(s) recorded as interrupted", workflow, *reviews);
  Result<int> asks = Asks(*oc.ctx.db, workflow).RecoverInterrupted(now);
  if (asks.ok() && *asks > 0) spdlog::warn("{}: {} ask(s) recorded as interrupted; their threads go on", workflow, *asks);
  AgentLogQuery q;
  q.status = "running";
  Result<std::vector<AgentLogRow>> rows = ReadAgentLog(*oc.ctx.db, q, now);
  if (!rows.ok()) return;
  for (const AgentLogRow& row : *rows) {
    if (row.agent_id.rfind(kAgentPrefix, 0) != 0) continue;  // only turns this server started
    Status done = CompleteAgent(oc, row.session_id, row.agent_id, "failed", "",
                                "interrupted: the server stopped before this turn finished (recorded at restart)", "",
                                now);
    (void)CloseToolSession(*oc.ctx.db, row.session_id, now);
    if (done.ok()) {
      spdlog::warn("{}: turn {} was left running by an earlier server; recorded as interrupted", workflow, row.agent_id);
    }
  }
}

void TurnManager::Shutdown() {
  stopping_ = true;
  std::list<std::thread> threads;
  {
    std::lock_guard<std::mutex> l(mu_);
    cv_.notify_all();
    threads.swap(threads_);
    finished_.clear();
  }
  for (std::thread& t : threads) {
    if (t.joinable()) t.join();
  }
}

}  // namespace pulse::serve
