// The agent log's API methods (agent_log.started / completed / record /
// show / prune) and the JSON shapes they share with the command line.
#include <cstdio>

#include "core/api/agent_log.h"

#include "core/agent_log/agent_log_page.h"

#include "core/api/api.h"
#include "core/api/facts.h"
#include "core/agent_log/evidence.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {

// The rows of this database belong to the workflow it was opened for; a
// caller may name the key itself (a server recording for several).
Result<std::string> WorkspacePathFor(ApiContext& ctx, const Args& a) {
  std::string path;
  PULSE_RETURN_IF_ERROR(a.OptString("workspace_path", &path));
  if (path.empty() && !ctx.workflow.empty()) path = AgentLogWorkspacePath(ctx.workflow);
  return path;
}

// Best-effort (the seed): a write that fails is logged and reported as data,
// never as an error the caller's agent would have to handle.
json NotRecorded(ApiContext& ctx, const char* method, const Status& s) {
  if (ctx.env) ctx.env->Log(LogLevel::kWarn, std::string(method) + ": not recorded: " + s.message());
  return json{{"recorded", false}, {"warning", s.message()}};
}

Result<json> Started(ApiContext& ctx, const Args& a) {
  const char* method = "agent_log.started";
  PULSE_ASSIGN_OR_RETURN(AgentStart start, AgentStartFromJson(a.doc(), method));
  PULSE_ASSIGN_OR_RETURN(std::string path, WorkspacePathFor(ctx, a));
  // Workflow-scoped only: no workflow, nothing recorded, nothing touched.
  if (path.empty() || !ctx.db) return json{{"recorded", false}, {"reason", "no workflow"}};
  // The schema is in place: every context views an opened workflow
  // (WorkflowHandle, OpenWorkflow or ContextFromDb), which ensured it.
  Status s = AgentLogWriter(*ctx.db).Started(path, start, ctx.env->NowSeconds());
  if (!s.ok()) return NotRecorded(ctx, method, s);
  return json{{"recorded", true}, {"workspace_path", path}, {"session", start.session_id}, {"agent", start.agent_id}};
}

Result<json> Completed(ApiContext& ctx, const Args& a) {
  const char* method = "agent_log.completed";
  PULSE_ASSIGN_OR_RETURN(AgentCompletion done, AgentCompletionFromJson(a.doc(), method));
  PULSE_ASSIGN_OR_RETURN(std::string path, WorkspacePathFor(ctx, a));
  if (path.empty() || !ctx.db) return json{{"recorded", false}, {"reason", "no workflow"}};
  // The schema is in place: every context views an opened workflow
  // (WorkflowHandle, OpenWorkflow or ContextFromDb), which ensured it.
  Status s = AgentLogWriter(*ctx.db).Completed(path, done, ctx.env->NowSeconds());
  if (!s.ok()) return NotRecorded(ctx, method, s);
  return json{{"recorded", true}, {"workspace_path", path}, {"session", done.session_id}, {"agent", done.agent_id}};
}

// Many events in one call, each its own committed write with one prepared
// writer: the path for a caller that queues events (a server flushing a
// runner's stream, the browser) instead of paying a whole call per event.
// Validation is all-or-nothing (a bad event names its index and nothing is
// written); writes are best-effort per event, like the single methods.
Result<json> Record(ApiContext& ctx, const Args& a) {
  const std::string& what = a.where();
  const json* events = a.Find("events");
  if (!events || !events->is_array()) return a.Error("events", "must be an array of {event, session, agent, ...}");
  std::vector<AgentStart> starts;
  std::vector<AgentCompletion> completions;
  std::vector<std::pair<bool, size_t>> order;  // (is start, index into its vector)
  for (size_t i = 0; i < events->size(); ++i) {
    const json& ev = (*events)[i];
    const std::string where = what + ": events[" + std::to_string(i) + "]";
    Args e(where, ev);
    std::string kind;
    PULSE_RETURN_IF_ERROR(e.OptString("event", &kind));
    if (kind == "started") {
      PULSE_ASSIGN_OR_RETURN(AgentStart s, AgentStartFromJson(ev, where));
      order.emplace_back(true, starts.size());
      starts.push_back(std::move(s));
    } else if (kind == "completed") {
      PULSE_ASSIGN_OR_RETURN(AgentCompletion d, AgentCompletionFromJson(ev, where));
      order.emplace_back(false, completions.size());
      completions.push_back(std::move(d));
    } else {
      return e.Error("event", "must be \"started\" or \"completed\"");
    }
  }
  PULSE_ASSIGN_OR_RETURN(std::string path, WorkspacePathFor(ctx, a));
  if (path.empty() || !ctx.db) {
    return json{{"recorded", 0}, {"failed", 0}, {"skipped", order.size()}, {"reason", "no workflow"}};
  }
  AgentLogWriter writer(*ctx.db);
  int64_t recorded = 0;
  json failures = json::array();
  std::string last_logged;
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t now = ctx.env->NowSeconds();
    Status s = order[i].first ? writer.Started(path, starts[order[i].second], now)
                              : writer.Completed(path, completions[order[i].second], now);
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

Result<json> Show(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  AgentLogQuery q;
  std::string session, run, status;
  PULSE_RETURN_IF_ERROR(a.OptString("session", &session));
  PULSE_RETURN_IF_ERROR(a.OptString("pulse_run_id", &run));
  if (run.empty()) PULSE_RETURN_IF_ERROR(a.OptString("run_id", &run));
  PULSE_RETURN_IF_ERROR(a.OptString("status", &status));
  PULSE_RETURN_IF_ERROR(a.OptTime("since", &q.since));
  std::optional<int64_t> stuck;
  PULSE_RETURN_IF_ERROR(a.OptInt("stuck_after_minutes", 0, INT32_MAX, &stuck));
  PULSE_RETURN_IF_ERROR(a.OptBool("include_running", &q.include_running));
  if (!session.empty()) q.session_id = session;
  if (!run.empty()) q.pulse_run_id = run;
  if (!status.empty()) q.status = status;
  q.stuck_after_minutes = stuck.value_or(ConfiguredStuckAfter(ctx.config));
  std::optional<int64_t> limit;
  PULSE_RETURN_IF_ERROR(a.OptInt("limit", 1, kMaxAgentLogPage, &limit));
  std::string cursor;
  PULSE_RETURN_IF_ERROR(a.OptString("cursor", &cursor));
  if (!cursor.empty() && !limit) return a.Error("cursor", "needs limit (a cursor walks pages of limit rows)");
  if (limit) {
    // Pages newest first; the whole log oldest first stays the answer
    // without a limit.
    Result<AgentLogPage> page = ReadAgentLogPage(*ctx.db, q, *limit, cursor, ctx.env->NowSeconds());
    if (!page.ok()) return page.status().WithContext(a.where());
    json out = AgentLogShowJson(page->rows, q.stuck_after_minutes);
    out["order"] = "newest_first";
    out["limit"] = *limit;
    out["next_cursor"] = page->next_cursor.empty() ? json(nullptr) : json(page->next_cursor);
    return out;
  }
  PULSE_ASSIGN_OR_RETURN(std::vector<AgentLogRow> rows, ReadAgentLog(*ctx.db, q, ctx.env->NowSeconds()));
  return AgentLogShowJson(rows, q.stuck_after_minutes);
}

Result<json> Prune(ApiContext& ctx, const Args& a) {
  const std::string& what = a.where();
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  AgentLogPruneOptions o;
  if (!a.Has("older_than_days")) return a.Error("older_than_days", "is required (nothing is pruned by default)");
  PULSE_RETURN_IF_ERROR(a.Int("older_than_days", INT64_MIN / 2, INT64_MAX / 2, &o.older_than_days));
  PULSE_RETURN_IF_ERROR(a.OptInt("keep_last", INT64_MIN / 2, INT64_MAX / 2, &o.keep_last));
  PULSE_RETURN_IF_ERROR(a.OptBool("dry_run", &o.dry_run));
  // What the goal check still needs stays, whatever its age.
  Result<ContextFacts> facts = FactsNow(ctx);
  if (!facts.ok()) return facts.status().WithContext(what + ": reading the goal check's evidence");
  Result<Evidence> evidence = GatherEvidence(*ctx.db, *facts);
  if (!evidence.ok()) return evidence.status().WithContext(what + ": reading the goal check's evidence");
  o.evidence = [&](const AgentLogRow& row) { return evidence->Why(row); };
  Result<AgentLogPruneReport> report = PruneAgentLog(*ctx.db, o, ctx.env->NowSeconds());
  if (!report.ok()) return report.status().WithContext(what);
  json removed = json::array();
  for (const AgentLogRow& r : report->removed) removed.push_back(AgentLogRowJson(r));
  json kept = json::array();
  for (const KeptAgentLogRow& k : report->kept) {
    json row = AgentLogRowJson(k.row);
    row["kept_because"] = k.why;
    kept.push_back(std::move(row));
  }
  return json{{"removed", std::move(removed)},
              {"count", report->removed.size()},
              {"kept", std::move(kept)},
              {"dry_run", report->dry_run},
              {"older_than_days", o.older_than_days},
              {"keep_last", o.keep_last ? json(*o.keep_last) : json(nullptr)}};
}

}  // namespace

Result<AgentStart> AgentStartFromJson(const json& args, const std::string& where) {
  if (!args.is_object()) return Status::InvalidArgument(where + ": arguments must be a JSON object");
  Args a(where, args);
  AgentStart s;
  PULSE_RETURN_IF_ERROR(a.Text("session", &s.session_id));
  PULSE_RETURN_IF_ERROR(a.Text("agent", &s.agent_id));
  PULSE_RETURN_IF_ERROR(a.OptString("name", &s.name));
  PULSE_RETURN_IF_ERROR(a.OptString("kind", &s.kind));
  PULSE_RETURN_IF_ERROR(a.OptString("parent", &s.parent_execution_id));
  PULSE_RETURN_IF_ERROR(a.OptString("pulse_run_id", &s.pulse_run_id));
  PULSE_RETURN_IF_ERROR(a.OptTime("at", &s.at));
  return s;
}

Result<AgentCompletion> AgentCompletionFromJson(const json& args, const std::string& where) {
  if (!args.is_object()) return Status::InvalidArgument(where + ": arguments must be a JSON object");
  Args a(where, args);
  AgentCompletion d;
  PULSE_RETURN_IF_ERROR(a.Text("session", &d.session_id));
  PULSE_RETURN_IF_ERROR(a.Text("agent", &d.agent_id));
  d.status = "completed";
  PULSE_RETURN_IF_ERROR(a.OptString("status", &d.status));
  if (d.status.empty() || d.status == "running") {
    return a.Error("status", "\"" + d.status + "\" is not a finished status (like completed or failed)");
  }
  PULSE_RETURN_IF_ERROR(a.OptString("result", &d.result));
  PULSE_RETURN_IF_ERROR(a.OptString("error", &d.error));
  const json* dur = a.Find("duration");
  if (dur && dur->is_number()) {
    // Seconds as a number become text, the column's type ("12.5s").
    char text[40];
    std::snprintf(text, sizeof text, "%gs", dur->get<double>());
    d.duration = text;
  } else {
    PULSE_RETURN_IF_ERROR(a.OptString("duration", &d.duration));
  }
  PULSE_RETURN_IF_ERROR(a.OptTime("at", &d.at));
  return d;
}

// workflow.json may set pulse.agent_log.stuck_after_minutes; the call's own
// argument wins.
int64_t ConfiguredStuckAfter(const WorkflowConfig& config) {
  const json& raw = config.raw;
  auto pulse = raw.find("pulse");
  if (pulse == raw.end() || !pulse->is_object()) return kDefaultStuckAfterMinutes;
  auto log = pulse->find("agent_log");
  if (log == pulse->end() || !log->is_object()) return kDefaultStuckAfterMinutes;
  auto v = log->find("stuck_after_minutes");
  if (v == log->end() || !v->is_number_integer() || v->get<int64_t>() < 0) return kDefaultStuckAfterMinutes;
  return v->get<int64_t>();
}

json AgentLogShowJson(const std::vector<AgentLogRow>& rows, int64_t stuck_after_minutes) {
  json out = json::array();
  int64_t stuck_count = 0;
  for (const AgentLogRow& r : rows) {
    out.push_back(AgentLogRowJson(r));
    if (r.stuck) ++stuck_count;
  }
  return json{{"rows", std::move(out)}, {"stuck_after_minutes", stuck_after_minutes}, {"stuck", stuck_count}};
}

json AgentLogRowJson(const AgentLogRow& r) {
  json row{{"workspace_path", r.workspace_path},
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
              {"started_at", r.started_at ? FormatTime(*r.started_at) : std::string()},
              {"completed_at", r.completed_at ? FormatTime(*r.completed_at) : std::string()},
              {"updated_at", FormatTime(r.updated_at)},
              {"stuck", r.stuck}};
  if (r.tokens_in || r.tokens_out) row["tokens"] = {{"in", r.tokens_in}, {"out", r.tokens_out}};
  return row;
}

void AddAgentLogApi(ApiRegistry& r) {
  r.Add("agent_log.started", Started, Access::kServer, "records a background agent's start (one row per agent; best-effort)");
  r.Add("agent_log.completed", Completed, Access::kServer, "records a background agent's completion on the same row (best-effort)");
  r.Add("agent_log.record", Record, Access::kOwner, "records many started/completed events in one call (best-effort per event)");
  r.Add("agent_log.show", Show, Access::kRead, "the background-agent log, oldest first, by session, pulse_run_id, status, since; with limit (and "
        "cursor: the previous page's next_cursor) one page, newest first");
  r.Add("agent_log.prune", Prune, Access::kOwner,
        "opt-in retention: deletes finished rows older than N days, keeping the newest per session and every row "
        "the goal check's evidence points to (kept, with why)");
}

}  // namespace pulse
