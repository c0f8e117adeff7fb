#include "core/api.h"

#include <sqlite3.h>

#include "core/schema.h"
#include "core/workspace.h"

namespace pulse {

using nlohmann::json;

void ApiRegistry::Add(const char* name, ApiHandler handler, const char* summary) {
  methods_.push_back(ApiMethod{name, handler, summary});
}

const ApiMethod* ApiRegistry::Find(std::string_view name) const {
  for (const ApiMethod& m : methods_) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

const ApiRegistry& Api() {
  static const ApiRegistry registry = [] {
    ApiRegistry r;
    AddCoreApi(r);
    AddAutonomyApi(r);
    AddAgentLogApi(r);
    AddGoalApi(r);
    // Modules add their AddXxxApi(r) call here, one line each.
    AddOutboxApi(r);
    AddPulseToolsApi(r);
    AddPulseTurnsApi(r);
    AddDecisionsApi(r);
    return r;
  }();
  return registry;
}

Result<json> CallApi(ApiContext& ctx, std::string_view method, const json& args) {
  const ApiMethod* m = Api().Find(method);
  if (!m) return Status::NotFound("unknown method \"" + std::string(method) + "\"");
  if (!args.is_object() && !args.is_null()) {
    return Status::InvalidArgument(std::string(method) + ": arguments must be a JSON object");
  }
  return m->handler(ctx, args.is_null() ? json::object() : args);
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

Result<json> Version(ApiContext&, const json&) {
  return json{{"pulse", PULSE_VERSION}, {"sqlite", sqlite3_libversion()}};
}

Result<json> Methods(ApiContext&, const json&) {
  json out = json::array();
  for (const ApiMethod& m : Api().methods()) out.push_back({{"name", m.name}, {"summary", m.summary}});
  return out;
}

Result<json> Config(ApiContext& ctx, const json&) {
  return json{{"workflow", ctx.workflow},
              {"has_goal", ctx.config.HasGoal()},
              {"schedules_paused", ctx.config.AllSchedulesPaused()},
              {"config", ctx.config.raw}};
}

}  // namespace

void AddCoreApi(ApiRegistry& r) {
  r.Add("pulse.version", Version, "Pulse and SQLite versions");
  r.Add("pulse.methods", Methods, "every API method with a one-line summary");
  r.Add("pulse.config", Config, "the workflow configuration snapshot stored in the database");
}

}  // namespace pulse
