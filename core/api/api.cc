#include "core/api/api.h"

#include <sqlite3.h>

#include "core/base/one_line.h"
#include "core/store/schema.h"
#include "core/store/workspace.h"

namespace pulse {

// ask.list (core/api/asks.cc).
void AddAsksApi(ApiRegistry& registry);

using nlohmann::json;

const char* AccessName(Access access) {
  switch (access) {
    case Access::kRead: return "read";
    case Access::kOwner: return "owner";
    case Access::kServer: return "server";
  }
  return "owner";
}

Access ApiMethod::AccessFor(const json& args) const {
  if (access != Access::kRead || !writes_with || !args.is_object()) return access;
  auto it = args.find(writes_with);
  if (it == args.end() || it->is_null() || (it->is_boolean() && !it->get<bool>())) return access;
  return Access::kOwner;
}

void ApiRegistry::Add(const char* name, ApiHandler handler, Access access, const char* summary,
                      const char* writes_with) {
  for (ApiMethod& m : methods_) {
    if (std::string_view(m.name) == name) {
      m = ApiMethod{name, handler, access, summary, writes_with};
      return;
    }
  }
  methods_.push_back(ApiMethod{name, handler, access, summary, writes_with});
}

void ApiRegistry::AddAll(const ApiRegistry& other) {
  for (const ApiMethod& m : other.methods()) methods_.push_back(m);
}

const ApiMethod* ApiRegistry::Find(std::string_view name) const {
  for (const ApiMethod& m : methods_) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

Access ApiRegistry::AccessFor(std::string_view name, const json& args) const {
  const ApiMethod* m = Find(name);
  return m ? m->AccessFor(args) : Access::kOwner;
}

const ApiRegistry& CoreApi() {
  static const ApiRegistry registry = [] {
    ApiRegistry r;
    AddCoreApi(r);
    AddAutonomyApi(r);
    AddAgentLogApi(r);
    AddGoalApi(r);
    AddFactsApi(r);
    AddDecisionsApi(r);
    AddConversationApi(r);
    AddFocusApi(r);
    AddQaApi(r);
    AddAsksApi(r);
    AddReviewApi(r);
    AddAttentionApi(r);
    return r;
  }();
  return registry;
}

Result<json> CallApi(ApiContext& ctx, std::string_view method, const json& args) {
  const ApiRegistry& api = ctx.api ? *ctx.api : CoreApi();
  const ApiMethod* m = api.Find(method);
  if (!m) return Status::NotFound("unknown method \"" + std::string(method) + "\"");
  if (!args.is_object() && !args.is_null()) {
    return Status::InvalidArgument(std::string(method) + ": arguments must be a JSON object");
  }
  return m->handler(ctx, Args(std::string(method), args));
}

json ErrorToJson(const Status& status) {
  return json{{"error", BoundedReason(status.message())}, {"code", CodeName(status.code())}};
}

Status NeedDb(const ApiContext& ctx, const Args& args) {
  if (!ctx.db || !ctx.env) return args.Fail("needs a database (a workflow's db/db.sqlite)");
  return Status::OK();
}

ApiContext ContextFor(WorkflowHandle& handle, const ApiRegistry* api) {
  ApiContext ctx;
  ctx.db = &handle.db();
  ctx.env = &handle.env();
  ctx.workflow = handle.workflow();
  ctx.config = handle.config();
  ctx.workflow_dir = handle.dir();
  ctx.outside_files = handle.outside_files();
  ctx.api = api;
  ctx.handle = &handle;
  return ctx;
}

Result<ApiContext> ContextFromDb(Db& db, Env& env) {
  PULSE_RETURN_IF_ERROR(EnsureSchema(db));
  ApiContext ctx;
  ctx.db = &db;
  ctx.env = &env;
  Result<ConfigSnapshot> snap = LoadConfigSnapshot(db);
  if (snap.ok()) {
    ctx.workflow = snap->workflow;
    PULSE_ASSIGN_OR_RETURN(ctx.config, ParseWorkflowConfig(snap->config_json, "stored workflow.json snapshot"));
  } else if (snap.status().code() != Code::kNotFound) {
    return snap.status();
  }
  return ctx;
}

namespace {

Result<json> Version(ApiContext&, const Args&) {
  return json{{"pulse", PULSE_VERSION}, {"sqlite", sqlite3_libversion()}};
}

Result<json> Methods(ApiContext& ctx, const Args&) {
  json out = json::array();
  const ApiRegistry& api = ctx.api ? *ctx.api : CoreApi();
  for (const ApiMethod& m : api.methods()) {
    out.push_back({{"name", m.name}, {"summary", m.summary}, {"access", AccessName(m.access)}});
  }
  return out;
}

Result<json> Config(ApiContext& ctx, const Args&) {
  return json{{"workflow", ctx.workflow},
              {"has_goal", ctx.config.HasGoal()},
              {"schedules_paused", ctx.config.AllSchedulesPaused()},
              {"config", ctx.config.raw}};
}

}  // namespace

void AddCoreApi(ApiRegistry& r) {
  r.Add("pulse.version", Version, Access::kRead, "Pulse and SQLite versions");
  r.Add("pulse.methods", Methods, Access::kRead, "every API method with a one-line summary and its access");
  r.Add("pulse.config", Config, Access::kRead, "the workflow configuration snapshot stored in the database");
}

}  // namespace pulse
