// `pulse agent-log started|completed|batch|show|prune`: the durable
// background-agent log (core/agent_log/agent_log.h) on the command line.
//
// started/completed/batch are best-effort like the recorder they use: a write
// that fails prints a warning on stderr and still exits 0, and with no
// --workflow (a plain chat session) they do nothing and touch no file. Bad
// usage (a missing --session, a bad --at, an unknown workflow) is still exit 2.
#include <algorithm>
#include <chrono>
#include <thread>
#include <iostream>
#include <string>
#include <vector>

#include "core/agent_log/agent_log.h"
#include "core/agent_log/otlp_export.h"
#include "core/api/agent_log.h"
#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "core/base/time_util.h"
#include "server-shim/cli/cli.h"
#include "server-shim/observe/otlp_exporter.h"

namespace pulse::cli {
namespace {

using nlohmann::json;

struct AgentLogFlags {
  std::string otlp_endpoint;
  std::vector<std::string> otlp_headers;
  std::string session, agent, name, kind, parent, run_id, at;
  std::string status, result, error, duration;
  std::string show_status, since, cursor;
  int64_t stuck_after = -1;
  int64_t limit = 0;
  bool include_running = false;
  int64_t older_than = -1;
  int64_t keep_last = -1;
  bool dry_run = false;
};

AgentLogFlags& Flags() {
  static AgentLogFlags f;
  return f;
}

void Put(json& args, const char* key, const std::string& value) {
  if (!value.empty()) args[key] = value;
}

// The workflow to record into, or nullopt for "none" (no-op). Bad names and
// missing folders are usage errors: a typo must not silently lose the log.
Result<std::optional<AgentLogScope>> ScopeFromFlags(State& state) {
  const Globals& g = state.globals;
  std::optional<AgentLogScope> scope = AgentLogScopeFor(g.workspace, g.workflow);
  if (!scope) return scope;
  PULSE_ASSIGN_OR_RETURN(Env * env, GetEnv(state));
  if (!env->IsDirectory(g.workspace)) return Status::NotFound(g.workspace + ": workspace directory does not exist");
  PULSE_ASSIGN_OR_RETURN(WorkflowPaths paths, ResolveWorkflow(g.workspace, g.workflow));
  if (!env->IsDirectory(paths.dir)) return Status::NotFound(paths.dir + ": no such workflow");
  return scope;
}

void Report(State& state, bool recorded, const BackgroundAgentLog& log, const char* event,
            const std::string& agent) {
  if (state.globals.json) {
    json out{{"recorded", recorded}};
    if (!log.enabled()) out["reason"] = "no workflow";
    if (!log.last_error().ok()) out["warning"] = log.last_error().message();
    PrintJson(out);
  } else if (recorded) {
    std::cout << "recorded " << event << " of agent " << agent << "\n";
  }
  state.exit_code = 0;  // best-effort: the warning (if any) is already on stderr
}

void RunStarted(State& state) {
  AgentLogFlags& f = Flags();
  Result<Env*> env = GetEnv(state);
  if (!env.ok()) { state.exit_code = Fail(env.status()); return; }
  json args{{"session", f.session}, {"agent", f.agent}};
  Put(args, "name", f.name);
  Put(args, "kind", f.kind);
  Put(args, "parent", f.parent);
  Put(args, "pulse_run_id", f.run_id);
  Put(args, "at", f.at);
  Result<AgentStart> start = AgentStartFromJson(args, "agent-log started");
  if (!start.ok()) { state.exit_code = Fail(start.status()); return; }
  Result<std::optional<AgentLogScope>> scope = ScopeFromFlags(state);
  if (!scope.ok()) { state.exit_code = Fail(scope.status()); return; }
  BackgroundAgentLog log(**env, *scope);
  bool recorded = log.Started(*start);
  Report(state, recorded, log, "the start", start->agent_id);
}

void RunCompleted(State& state) {
  AgentLogFlags& f = Flags();
  Result<Env*> env = GetEnv(state);
  if (!env.ok()) { state.exit_code = Fail(env.status()); return; }
  json args{{"session", f.session}, {"agent", f.agent}, {"status", f.status}};
  Put(args, "result", f.result);
  Put(args, "error", f.error);
  Put(args, "duration", f.duration);
  Put(args, "at", f.at);
  Result<AgentCompletion> done = AgentCompletionFromJson(args, "agent-log completed");
  if (!done.ok()) { state.exit_code = Fail(done.status()); return; }
  Result<std::optional<AgentLogScope>> scope = ScopeFromFlags(state);
  if (!scope.ok()) { state.exit_code = Fail(scope.status()); return; }
  BackgroundAgentLog log(**env, *scope);
  bool recorded = log.Completed(*done);
  Report(state, recorded, log, "the completion", done->agent_id);
}

// One JSON object a line on stdin ({"event": "started"|"completed", ...the
// API's arguments}); one line on stdout per event once it is committed:
// "ok <event> <session> <agent>" (or "failed ..." when the write failed and
// was logged). A long-lived runner can pipe its events here instead of
// starting a process per event.
void RunBatch(State& state) {
  // A batch runs for as long as its input: without --now, each event takes
  // the real clock, not the time the process started.
  Env* env = DefaultEnv();
  if (!state.globals.now.empty()) {
    Result<Env*> fixed = GetEnv(state);
    if (!fixed.ok()) { state.exit_code = Fail(fixed.status()); return; }
    env = *fixed;
  }
  Result<std::optional<AgentLogScope>> scope = ScopeFromFlags(state);
  if (!scope.ok()) { state.exit_code = Fail(scope.status()); return; }
  BackgroundAgentLog log(*env, *scope);
  std::string line;
  int64_t line_no = 0;
  int bad = 0;
  std::ios::sync_with_stdio(false);
  while (std::getline(std::cin, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = "stdin line " + std::to_string(line_no);
    json ev = json::parse(line, nullptr, false);
    if (ev.is_discarded() || !ev.is_object()) {
      std::cerr << "pulse: " << where << ": not a JSON object" << std::endl;
      ++bad;
      continue;
    }
    std::string event = ev.value("event", "");
    bool recorded = false;
    std::string session, agent;
    if (event == "started") {
      Result<AgentStart> s = AgentStartFromJson(ev, where);
      if (!s.ok()) { std::cerr << "pulse: " << s.status().message() << std::endl; ++bad; continue; }
      session = s->session_id;
      agent = s->agent_id;
      recorded = log.Started(*s);
    } else if (event == "completed") {
      Result<AgentCompletion> d = AgentCompletionFromJson(ev, where);
      if (!d.ok()) { std::cerr << "pulse: " << d.status().message() << std::endl; ++bad; continue; }
      session = d->session_id;
      agent = d->agent_id;
      recorded = log.Completed(*d);
    } else {
      std::cerr << "pulse: " << where << ": \"event\" must be \"started\" or \"completed\"" << std::endl;
      ++bad;
      continue;
    }
    const char* outcome = recorded ? "ok" : (log.enabled() ? "failed" : "skipped");
    // Flushed per line: a reader may act on (and a test may count) every
    // acknowledgement the moment the row is committed.
    std::cout << outcome << ' ' << event << ' ' << session << ' ' << agent << std::endl;
  }
  state.exit_code = bad > 0 ? 2 : 0;
}

std::string Clip(const std::string& s, size_t n) {
  std::string one = s;
  std::replace(one.begin(), one.end(), '\n', ' ');
  return one.size() <= n ? one : one.substr(0, n - 1) + "~";
}

// A plain aligned table: people read it, programs use --json.
void PrintTable(const json& rows) {
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"STARTED", "COMPLETED", "SESSION", "AGENT", "NAME", "KIND", "STATUS", "DURATION", "RUN", "RESULT"});
  for (const json& r : rows) {
    std::string status = r["status"].get<std::string>();
    if (r["stuck"].get<bool>()) status += " (stuck)";
    std::string outcome = r["error"].get<std::string>().empty() ? r["result"].get<std::string>()
                                                                : "error: " + r["error"].get<std::string>();
    cells.push_back({r["started_at"].get<std::string>().empty() ? "-" : r["started_at"].get<std::string>(),
                     r["completed_at"].get<std::string>().empty() ? "-" : r["completed_at"].get<std::string>(),
                     Clip(r["session_id"], 40), Clip(r["agent_id"], 40), Clip(r["name"], 30), Clip(r["kind"], 20),
                     status, r["duration"].get<std::string>().empty() ? "-" : r["duration"].get<std::string>(),
                     r["pulse_run_id"].get<std::string>().empty() ? "-" : Clip(r["pulse_run_id"], 30),
                     Clip(outcome, 60)});
  }
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& row : cells)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : cells) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << "\n";
  }
}

void RunShow(State& state) {
  AgentLogFlags& f = Flags();
  json args = json::object();
  Put(args, "session", f.session);
  Put(args, "pulse_run_id", f.run_id);
  Put(args, "status", f.show_status);
  if (!f.since.empty()) {
    Result<std::string> since = NormalizeTime(f.since, "--since");
    if (!since.ok()) { state.exit_code = Fail(since.status()); return; }
    args["since"] = *since;
  }
  if (f.stuck_after >= 0) args["stuck_after_minutes"] = f.stuck_after;
  if (f.include_running) args["include_running"] = true;
  if (f.limit > 0) args["limit"] = f.limit;
  Put(args, "cursor", f.cursor);
  std::optional<json> out = CallOnWorkflow(state, "agent_log.show", args);
  if (!out) return;
  if (state.globals.json) {
    PrintJson(*out);
    return;
  }
  const json& rows = (*out)["rows"];
  if (rows.empty()) {
    std::cout << "no background agents recorded" << (args.empty() ? "" : " that match") << "\n";
    return;
  }
  PrintTable(rows);
  int64_t running = 0;
  for (const json& r : rows) running += r["status"] == "running";
  std::cout << rows.size() << (rows.size() == 1 ? " agent" : " agents") << ", " << running << " running, "
            << (*out)["stuck"].get<int64_t>() << " stuck (running over "
            << (*out)["stuck_after_minutes"].get<int64_t>() << " min)\n";
  // A page (--limit) is newest first; the next one is older.
  if (out->contains("next_cursor") && (*out)["next_cursor"].is_string()) {
    std::cout << "older rows: --cursor " << (*out)["next_cursor"].get<std::string>() << "\n";
  }
}

void RunPrune(State& state) {
  AgentLogFlags& f = Flags();
  json args{{"older_than_days", f.older_than}, {"dry_run", f.dry_run}};
  if (f.keep_last >= 0) args["keep_last"] = f.keep_last;
  std::optional<json> out = CallOnWorkflow(state, "agent_log.prune", args);
  if (!out) return;
  if (state.globals.json) {
    PrintJson(*out);
    return;
  }
  const json& removed = (*out)["removed"];
  std::cout << (f.dry_run ? "would remove " : "removed ") << removed.size()
            << (removed.size() == 1 ? " finished row" : " finished rows") << " older than " << f.older_than
            << (f.older_than == 1 ? " day" : " days");
  if (f.keep_last >= 0) std::cout << ", keeping the newest " << f.keep_last << " per session";
  std::cout << (removed.empty() ? "\n" : ":\n");
  if (!removed.empty()) PrintTable(removed);
  // Old enough, but the goal check's evidence: never pruned.
  const json& kept = (*out)["kept"];
  if (kept.empty()) return;
  std::cout << "kept " << kept.size() << (kept.size() == 1 ? " row" : " rows") << " as evidence:\n";
  for (const json& k : kept) {
    std::cout << "  " << k["session_id"].get<std::string>() << " " << k["agent_id"].get<std::string>() << " ("
              << k["status"].get<std::string>() << "): " << k["kept_because"].get<std::string>() << "\n";
  }
}

// History to a collector, once: the rows finished before the live
// exporter's cursor began, and the guard decisions up to it, since T
// (core/agent_log/otlp_export.h). What an earlier run sent is not sent again.
void RunExportOtlp(State& state) {
  AgentLogFlags& f = Flags();
  Result<std::string> since_text = NormalizeTime(f.since, "--since");
  if (!since_text.ok()) { state.exit_code = Fail(since_text.status()); return; }
  const int64_t since = *ParseTime(*since_text);
  Result<std::vector<std::pair<std::string, std::string>>> headers = serve::ParseOtlpHeaders(f.otlp_headers);
  if (!headers.ok()) { state.exit_code = Fail(headers.status()); return; }
  Result<serve::OtlpTarget> target = serve::ParseOtlpTarget(f.otlp_endpoint, *headers);
  if (!target.ok()) { state.exit_code = Fail(target.status()); return; }
  Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
  if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
  Db& db = (*w)->db();
  Result<OtlpCursor> cursor = LoadOrStartOtlpCursor(db);
  if (!cursor.ok()) { state.exit_code = Fail(cursor.status()); return; }
  int64_t agents = 0, tools = 0;
  OtlpHistoryPosition at;
  for (;;) {
    Result<OtlpHistoryBatch> batch = NextOtlpHistoryBatch(db, state.globals.workflow, *cursor, since, at, 256);
    if (!batch.ok()) { state.exit_code = Fail(batch.status()); return; }
    if (batch->empty()) break;
    const int spans = batch->agent_spans + batch->tool_spans;
    const std::string body = OtlpTraceRequest("", std::move(batch->spans)).dump();
    // A collector that is briefly away gets three tries, a second apart and more.
    serve::OtlpPostResult post;
    OtlpAnswer answer = OtlpAnswer::kRetry;
    for (int attempt = 1; attempt <= 3 && answer == OtlpAnswer::kRetry; ++attempt) {
      if (attempt > 1) std::this_thread::sleep_for(std::chrono::duration<double>(OtlpBackoffSeconds(attempt - 1)));
      post = serve::PostOtlp(*target, body, 10);
      answer = ClassifyOtlpAnswer(post.status, !post.transport_error.empty());
    }
    if (answer != OtlpAnswer::kTaken) {
      const std::string why = post.transport_error.empty() ? "HTTP " + std::to_string(post.status) + " " + post.body
                                                           : post.transport_error;
      std::cerr << "pulse: " << target->url << "/v1/traces did not take " << spans << " spans (" << why << ") after "
                << agents + tools << " were sent; nothing is marked sent, so running this again sends all of it"
                << std::endl;
      state.exit_code = 1;
      return;
    }
    agents += batch->agent_spans;
    tools += batch->tool_spans;
    at = batch->next;
  }
  Status marked = MarkOtlpHistorySent(db, since);
  if (!marked.ok()) { state.exit_code = Fail(marked); return; }
  if (state.globals.json) {
    PrintJson(json{{"sent", agents + tools}, {"agent_spans", agents}, {"tool_spans", tools},
                   {"since", *since_text}, {"endpoint", target->url + "/v1/traces"}});
  } else {
    std::cout << "sent " << agents + tools << " spans (" << agents << " agents, " << tools << " tool calls) of "
              << state.globals.workflow << "'s history since " << *since_text << " to " << target->url
              << "/v1/traces\n";
  }
  state.exit_code = 0;
}

void Setup(CLI::App& app, State& state) {
  AgentLogFlags& f = Flags();
  CLI::App* log = app.add_subcommand("agent-log", "the durable background-agent log: record, read back, prune");
  log->require_subcommand(1);

  CLI::App* started = log->add_subcommand("started", "record a background agent's start (best-effort)");
  AddCommonOptions(started, state, false);
  started->add_option("--workflow", state.globals.workflow,
                      "the session's workflow; without one (plain chat) nothing is recorded");
  started->add_option("--session", f.session, "the session id")->required();
  started->add_option("--agent", f.agent, "the agent id")->required();
  started->add_option("--name", f.name, "the agent's name");
  started->add_option("--kind", f.kind, "its kind (gate, reviewer, fixer, sub_agent, ...)");
  started->add_option("--parent", f.parent, "the parent execution id");
  started->add_option("--run-id", f.run_id, "the active Pulse pass (pulse_run_id)");
  started->add_option("--at", f.at, "when it started (RFC 3339; default: now)");
  started->callback([&state] { RunStarted(state); });

  CLI::App* completed = log->add_subcommand("completed", "record its completion on the same row (best-effort)");
  AddCommonOptions(completed, state, false);
  completed->add_option("--workflow", state.globals.workflow,
                        "the session's workflow; without one (plain chat) nothing is recorded");
  completed->add_option("--session", f.session, "the session id")->required();
  completed->add_option("--agent", f.agent, "the agent id")->required();
  completed->add_option("--status", f.status, "completed, failed, cancelled, ... (default: completed)")
      ->default_val("completed");
  completed->add_option("--result", f.result, "what it produced");
  completed->add_option("--error", f.error, "why it failed");
  completed->add_option("--duration", f.duration, "how long it ran (\"1m32s\")");
  completed->add_option("--at", f.at, "when it finished (RFC 3339; default: now)");
  completed->callback([&state] { RunCompleted(state); });

  CLI::App* batch = log->add_subcommand(
      "batch", "record events from stdin, one JSON object a line ({\"event\":\"started\"|\"completed\", ...})");
  AddCommonOptions(batch, state, false);
  batch->add_option("--workflow", state.globals.workflow,
                    "the session's workflow; without one (plain chat) nothing is recorded");
  batch->callback([&state] { RunBatch(state); });

  CLI::App* show = log->add_subcommand("show", "read the log back, oldest first (a page with --limit: newest first)");
  AddCommonOptions(show, state);
  show->add_option("--session", f.session, "only this session");
  show->add_option("--run-id", f.run_id, "only this Pulse pass (pulse_run_id)");
  show->add_option("--status", f.show_status, "only this status: running, stuck, completed, failed, cancelled, error or interrupted")
      ->check(CLI::IsMember({"running", "stuck", "completed", "failed", "cancelled", "error", "interrupted"}));
  show->add_option("--since", f.since, "only rows that started or completed at or after this time");
  show->add_option("--stuck-after", f.stuck_after,
                   "minutes after which a running row is stuck (default: workflow.json "
                   "pulse.agent_log.stuck_after_minutes, else 60)")
      ->check(CLI::NonNegativeNumber);
  show->add_flag("--include-running", f.include_running,
                 "with --since, also rows that started before it and are still running");
  show->add_option("--limit", f.limit, "one page of at most N rows (1-1000), newest first, with the cursor of the next")
      ->check(CLI::Range(1, 1000));
  show->add_option("--cursor", f.cursor, "the page after the one that printed this cursor (needs --limit)");
  show->callback([&state] { RunShow(state); });

  CLI::App* prune = log->add_subcommand("prune", "delete finished rows older than DAYS (opt-in retention)");
  AddCommonOptions(prune, state);
  prune->add_option("--older-than", f.older_than, "days since the row finished")
      ->required()
      ->check(CLI::NonNegativeNumber);
  prune->add_option("--keep-last", f.keep_last, "keep the newest N rows of each session regardless")
      ->check(CLI::NonNegativeNumber);
  prune->add_flag("--dry-run", f.dry_run, "print what would be removed, remove nothing");
  prune->callback([&state] { RunPrune(state); });

  CLI::App* otlp = log->add_subcommand(
      "export-otlp", "send the log's history since T to an OpenTelemetry collector as spans, once (OTLP/HTTP JSON)");
  AddCommonOptions(otlp, state);
  otlp->add_option("--since", f.since, "rows that started or completed (tool calls made) at or after this time")
      ->required();
  otlp->add_option("--otlp-endpoint", f.otlp_endpoint, "the collector's OTLP/HTTP base URL (spans go to URL/v1/traces)")
      ->required();
  otlp->add_option("--otlp-header", f.otlp_headers, "a header for the collector, NAME=VALUE; repeatable")
      ->allow_extra_args(false);
  otlp->callback([&state] { RunExportOtlp(state); });
}

}  // namespace
PULSE_REGISTER_COMMAND("agent-log", Setup);
}  // namespace pulse::cli
