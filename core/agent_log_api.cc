// The agent log's API methods (agent_log.started / completed / show / prune)
// and the JSON shapes they share with the command line.
#include <cmath>
#include <sstream>

#include "core/agent_log.h"
#include "core/api.h"
#include "core/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {

// A string field: absent or null is `fallback`; any other type is an error.
Result<std::string> StringField(const json& args, const char* key, const std::string& what,
                                const std::string& fallback = "") {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return fallback;
  if (!it->is_string()) return Status::InvalidArgument(what + ": \"" + key + "\" must be a string");
  return it->get<std::string>();
}

Result<std::optional<int64_t>> TimeField(const json& args, const char* key, const std::string& what) {
  PULSE_ASSIGN_OR_RETURN(std::string text, StringField(args, key, what));
  if (text.empty()) return std::optional<int64_t>();
  Result<int64_t> t = ParseTime(text);
  if (!t.ok()) return Status::InvalidArgument(what + ": \"" + key + "\": " + t.status().message());
  return std::optional<int64_t>(*t);
}

Result<std::optional<int64_t>> IntField(const json& args, const char* key, const std::string& what) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::optional<int64_t>();
  if (it->is_number_integer()) return std::optional<int64_t>(it->get<int64_t>());
  if (it->is_number_float() && std::floor(it->get<double>()) == it->get<double>()) {
    return std::optional<int64_t>(static_cast<int64_t>(it->get<double>()));
  }
  return Status::InvalidArgument(what + ": \"" + key + "\" must be a whole number");
}

Status Require(const std::string& value, const char* key, const std::string& what) {
  if (value.empty()) return Status::InvalidArgument(what + ": \"" + key + "\" is required");
  return Status::OK();
}

// The rows of this database belong to the workflow it was opened for; a
// caller may name the key itself (a server recording for several).
Result<std::string> WorkspacePathFor(ApiContext& ctx, const json& args, const std::string& what) {
  PULSE_ASSIGN_OR_RETURN(std::string path, StringField(args, "workspace_path", what));
  if (path.empty() && !ctx.workflow.empty()) path = AgentLogWorkspacePath(ctx.workflow);
  return path;
}

// Best-effort (the seed): a write that fails is logged and reported as data,
// never as an error the caller's agent would have to handle.
json NotRecorded(ApiContext& ctx, const char* method, const Status& s) {
  if (ctx.env) ctx.env->Log(LogLevel::kWarn, std::string(method) + ": not recorded: " + s.message());
  return json{{"recorded", false}, {"warning", s.message()}};
}

Result<json> Started(ApiContext& ctx, const json& args) {
  const char* method = "agent_log.started";
  PULSE_ASSIGN_OR_RETURN(AgentStart start, AgentStartFromJson(args, method));
  PULSE_ASSIGN_OR_RETURN(std::string path, WorkspacePathFor(ctx, args, method));
  // Workflow-scoped only: no workflow, nothing recorded, nothing touched.
  if (path.empty() || !ctx.db) return json{{"recorded", false}, {"reason", "no workflow"}};
  // The schema is in place: every context comes from OpenWorkflow or
  // ContextFromDb, which ensure it.
  Status s;
  Result<std::unique_ptr<AgentLogWriter>> w = AgentLogWriter::Create(*ctx.db);
  if (w.ok()) s = (*w)->Started(path, start, ctx.env->NowSeconds());
  else s = w.status();
  if (!s.ok()) return NotRecorded(ctx, method, s);
  return json{{"recorded", true}, {"workspace_path", path}, {"session", start.session_id}, {"agent", start.agent_id}};
}

Result<json> Completed(ApiContext& ctx, const json& args) {
  const char* method = "agent_log.completed";
  PULSE_ASSIGN_OR_RETURN(AgentCompletion done, AgentCompletionFromJson(args, method));
  PULSE_ASSIGN_OR_RETURN(std::string path, WorkspacePathFor(ctx, args, method));
  if (path.empty() || !ctx.db) return json{{"recorded", false}, {"reason", "no workflow"}};
  // The schema is in place: every context comes from OpenWorkflow or
  // ContextFromDb, which ensure it.
  Status s;
  Result<std::unique_ptr<AgentLogWriter>> w = AgentLogWriter::Create(*ctx.db);
  if (w.ok()) s = (*w)->Completed(path, done, ctx.env->NowSeconds());
  else s = w.status();
  if (!s.ok()) return NotRecorded(ctx, method, s);
  return json{{"recorded", true}, {"workspace_path", path}, {"session", done.session_id}, {"agent", done.agent_id}};
}

// Many events in one call, each its own committed write with one prepared
// writer: the path for a caller that queues events (a server flushing a
// runner's stream, the browser) instead of paying a whole call per event.
// Validation is all-or-nothing (a bad event names its index and nothing is
// written); writes are best-effort per event, like the single methods.
Result<json> Record(ApiContext& ctx, const json& args) {
  const std::string what = "agent_log.record";
  auto events = args.find("events");
  if (events == args.end() || !events->is_array()) {
    return Status::InvalidArgument(what + ": \"events\" must be an array of {event, session, agent, ...}");
  }
  std::vector<AgentStart> starts;
  std::vector<AgentCompletion> completions;
  std::vector<std::pair<bool, size_t>> order;  // (is start, index into its vector)
  for (size_t i = 0; i < events->size(); ++i) {
    const json& ev = (*events)[i];
    const std::string where = what + ": events[" + std::to_string(i) + "]";
    PULSE_ASSIGN_OR_RETURN(std::string kind, StringField(ev.is_object() ? ev : json::object(), "event", where));
    if (kind == "started") {
      PULSE_ASSIGN_OR_RETURN(AgentStart s, AgentStartFromJson(ev, where));
      order.emplace_back(true, starts.size());
      starts.push_back(std::move(s));
    } else if (kind == "completed") {
      PULSE_ASSIGN_OR_RETURN(AgentCompletion d, AgentCompletionFromJson(ev, where));
      order.emplace_back(false, completions.size());
      completions.push_back(std::move(d));
    } else {
      return Status::InvalidArgument(where + ": \"event\" must be \"started\" or \"completed\"");
    }
  }
  PULSE_ASSIGN_OR_RETURN(std::string path, WorkspacePathFor(ctx, args, what));
  if (path.empty() || !ctx.db) {
    return json{{"recorded", 0}, {"failed", 0}, {"skipped", order.size()}, {"reason", "no workflow"}};
  }
  PULSE_ASSIGN_OR_RETURN(std::unique_ptr<AgentLogWriter> writer, AgentLogWriter::Create(*ctx.db));
  int64_t recorded = 0;
  json failures = json::array();
  std::string last_logged;
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t now = ctx.env->NowSeconds();
    Status s = order[i].first ? writer->Started(path, starts[order[i].second], now)
                              : writer->Completed(path, completions[order[i].second], now);
    if (s.ok()) {
      ++recorded;
      continue;
    }
    failures.push_back({{"index", i}, {"warning", s.message()}});
    if (s.message() != last_logged) {  // each reason once
      last_logged = s.message();
      ctx.env->Log(LogLevel::kWarn, what + ": not recorded: " + s.message());
    }
  }
  return json{{"recorded", recorded}, {"failed", failures.size()}, {"failures", std::move(failures)}};
}

// workflow.json may set pulse.agent_log.stuck_after_minutes; the call's own
// argument wins.
int64_t ConfiguredStuckAfter(const ApiContext& ctx) {
  const json& raw = ctx.config.raw;
  auto pulse = raw.find("pulse");
  if (pulse == raw.end() || !pulse->is_object()) return kDefaultStuckAfterMinutes;
  auto log = pulse->find("agent_log");
  if (log == pulse->end() || !log->is_object()) return kDefaultStuckAfterMinutes;
  auto v = log->find("stuck_after_minutes");
  if (v == log->end() || !v->is_number_integer() || v->get<int64_t>() < 0) return kDefaultStuckAfterMinutes;
  return v->get<int64_t>();
}

Result<json> Show(ApiContext& ctx, const json& args) {
  const std::string what = "agent_log.show";
  if (!ctx.db) return Status::InvalidArgument(what + ": needs a database");
  AgentLogQuery q;
  PULSE_ASSIGN_OR_RETURN(std::string session, StringField(args, "session", what));
  PULSE_ASSIGN_OR_RETURN(std::string run, StringField(args, "pulse_run_id", what));
  if (run.empty()) {
    PULSE_ASSIGN_OR_RETURN(run, StringField(args, "run_id", what));
  }
  PULSE_ASSIGN_OR_RETURN(std::string status, StringField(args, "status", what));
  PULSE_ASSIGN_OR_RETURN(q.since, TimeField(args, "since", what));
  PULSE_ASSIGN_OR_RETURN(std::optional<int64_t> stuck, IntField(args, "stuck_after_minutes", what));
  auto running = args.find("include_running");
  if (running != args.end() && !running->is_null()) {
    if (!running->is_boolean()) return Status::InvalidArgument(what + ": \"include_running\" must be true or false");
    q.include_running = running->get<bool>();
  }
  if (!session.empty()) q.session_id = session;
  if (!run.empty()) q.pulse_run_id = run;
  if (!status.empty()) q.status = status;
  q.stuck_after_minutes = stuck.value_or(ConfiguredStuckAfter(ctx));
  if (q.stuck_after_minutes < 0) {
    return Status::InvalidArgument(what + ": \"stuck_after_minutes\" must be 0 or more");
  }
  PULSE_RETURN_IF_ERROR(EnsureAgentLogSchema(*ctx.db));
  PULSE_ASSIGN_OR_RETURN(std::vector<AgentLogRow> rows, ReadAgentLog(*ctx.db, q, ctx.env->NowSeconds()));
  json out = json::array();
  int64_t stuck_count = 0;
  for (const AgentLogRow& r : rows) {
    out.push_back(AgentLogRowJson(r));
    if (r.stuck) ++stuck_count;
  }
  return json{{"rows", std::move(out)}, {"stuck_after_minutes", q.stuck_after_minutes}, {"stuck", stuck_count}};
}

Result<json> Prune(ApiContext& ctx, const json& args) {
  const std::string what = "agent_log.prune";
  if (!ctx.db) return Status::InvalidArgument(what + ": needs a database");
  AgentLogPruneOptions o;
  PULSE_ASSIGN_OR_RETURN(std::optional<int64_t> days, IntField(args, "older_than_days", what));
  if (!days) return Status::InvalidArgument(what + ": \"older_than_days\" is required (nothing is pruned by default)");
  o.older_than_days = *days;
  PULSE_ASSIGN_OR_RETURN(o.keep_last, IntField(args, "keep_last", what));
  auto dry = args.find("dry_run");
  if (dry != args.end() && !dry->is_null()) {
    if (!dry->is_boolean()) return Status::InvalidArgument(what + ": \"dry_run\" must be true or false");
    o.dry_run = dry->get<bool>();
  }
  PULSE_RETURN_IF_ERROR(EnsureAgentLogSchema(*ctx.db));
  Result<AgentLogPruneReport> report = PruneAgentLog(*ctx.db, o, ctx.env->NowSeconds());
  if (!report.ok()) return report.status().WithContext(what);
  json removed = json::array();
  for (const AgentLogRow& r : report->removed) removed.push_back(AgentLogRowJson(r));
  return json{{"removed", std::move(removed)},
              {"count", report->removed.size()},
              {"dry_run", report->dry_run},
              {"older_than_days", o.older_than_days},
              {"keep_last", o.keep_last ? json(*o.keep_last) : json(nullptr)}};
}

}  // namespace

Result<AgentStart> AgentStartFromJson(const json& args, const std::string& what) {
  if (!args.is_object()) return Status::InvalidArgument(what + ": arguments must be a JSON object");
  AgentStart s;
  PULSE_ASSIGN_OR_RETURN(s.session_id, StringField(args, "session", what));
  PULSE_ASSIGN_OR_RETURN(s.agent_id, StringField(args, "agent", what));
  PULSE_RETURN_IF_ERROR(Require(s.session_id, "session", what));
  PULSE_RETURN_IF_ERROR(Require(s.agent_id, "agent", what));
  PULSE_ASSIGN_OR_RETURN(s.name, StringField(args, "name", what));
  PULSE_ASSIGN_OR_RETURN(s.kind, StringField(args, "kind", what));
  PULSE_ASSIGN_OR_RETURN(s.parent_execution_id, StringField(args, "parent", what));
  PULSE_ASSIGN_OR_RETURN(s.pulse_run_id, StringField(args, "pulse_run_id", what));
  PULSE_ASSIGN_OR_RETURN(s.at, TimeField(args, "at", what));
  return s;
}

Result<AgentCompletion> AgentCompletionFromJson(const json& args, const std::string& what) {
  if (!args.is_object()) return Status::InvalidArgument(what + ": arguments must be a JSON object");
  AgentCompletion d;
  PULSE_ASSIGN_OR_RETURN(d.session_id, StringField(args, "session", what));
  PULSE_ASSIGN_OR_RETURN(d.agent_id, StringField(args, "agent", what));
  PULSE_RETURN_IF_ERROR(Require(d.session_id, "session", what));
  PULSE_RETURN_IF_ERROR(Require(d.agent_id, "agent", what));
  PULSE_ASSIGN_OR_RETURN(d.status, StringField(args, "status", what, "completed"));
  if (d.status.empty() || d.status == "running") {
    return Status::InvalidArgument(what + ": \"status\" \"" + d.status +
                                   "\" is not a finished status (like completed or failed)");
  }
  PULSE_ASSIGN_OR_RETURN(d.result, StringField(args, "result", what));
  PULSE_ASSIGN_OR_RETURN(d.error, StringField(args, "error", what));
  auto dur = args.find("duration");
  if (dur != args.end() && dur->is_number()) {
    // Seconds as a number become text, the column's type ("12.5s").
    std::ostringstream text;
    text << dur->get<double>() << "s";
    d.duration = text.str();
  } else {
    PULSE_ASSIGN_OR_RETURN(d.duration, StringField(args, "duration", what));
  }
  PULSE_ASSIGN_OR_RETURN(d.at, TimeField(args, "at", what));
  return d;
}

json AgentLogRowJson(const AgentLogRow& r) {
  return json{{"workspace_path", r.workspace_path},
              {"session_id", r.session_id},
              {"agent_id", r.agent_id},
              {"name", r.name},
              {"kind", r.kind},
              {"parent_execution_id", r.parent_execution_id},
              {"pulse_run_id", r.pulse_run_id},
              {"status", r.status},
              {"result", r.result},
              {"error", r.error},
              {"duration", r.duration},
              {"started_at", r.started_at},
              {"completed_at", r.completed_at},
              {"updated_at", r.updated_at},
              {"stuck", r.stuck}};
}

void AddAgentLogApi(ApiRegistry& r) {
  r.Add("agent_log.started", Started, "records a background agent's start (one row per agent; best-effort)");
  r.Add("agent_log.completed", Completed, "records a background agent's completion on the same row (best-effort)");
  r.Add("agent_log.record", Record, "records many started/completed events in one call (best-effort per event)");
  r.Add("agent_log.show", Show, "the background-agent log, oldest first, by session, pulse_run_id, status, since");
  r.Add("agent_log.prune", Prune, "opt-in retention: deletes finished rows older than N days, keeping the newest per session");
}

}  // namespace pulse
