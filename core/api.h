// The Pulse API: one table of named methods taking and returning JSON, the
// single path by which the command line, the HTTP routes, MCP and the WASM
// facade reach the core's rules. A method's name is its contract
// ("agent_log.show", "goal.check", ...); each module registers its own.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/db.h"
#include "core/env.h"
#include "core/status.h"
#include "core/workflow_config.h"

namespace pulse {

struct ApiContext {
  Db* db = nullptr;
  Env* env = nullptr;
  std::string workflow;
  WorkflowConfig config;
  // The workflow's folder; empty in the browser, where only the database is
  // at hand (methods that need files say so).
  std::string workflow_dir;
};

using ApiHandler = Result<nlohmann::json> (*)(ApiContext& ctx, const nlohmann::json& args);

struct ApiMethod {
  const char* name;
  ApiHandler handler;
  const char* summary;
};

class ApiRegistry {
 public:
  void Add(const char* name, ApiHandler handler, const char* summary);
  const ApiMethod* Find(std::string_view name) const;
  const std::vector<ApiMethod>& methods() const { return methods_; }

 private:
  std::vector<ApiMethod> methods_;
};

// Every method, registered once.
const ApiRegistry& Api();

// NotFound for an unknown method; otherwise the method's own result.
Result<nlohmann::json> CallApi(ApiContext& ctx, std::string_view method, const nlohmann::json& args);

// A context from the database alone (the browser's case): the workflow name
// and configuration come from the stored snapshot.
Result<ApiContext> ContextFromDb(Db& db, Env& env);

// Per-module registration (each defined next to its module).
void AddCoreApi(ApiRegistry& registry);
void AddOutboxApi(ApiRegistry& registry);
void AddPulseToolsApi(ApiRegistry& registry);
void AddPulseTurnsApi(ApiRegistry& registry);
void AddDecisionsApi(ApiRegistry& registry);
void AddAutonomyApi(ApiRegistry& registry);
void AddAgentLogApi(ApiRegistry& registry);
void AddGoalApi(ApiRegistry& registry);

}  // namespace pulse
