// The Pulse API: the edge where JSON meets the core's typed services. Every
// caller that speaks JSON — the command line, the HTTP routes, MCP, the WASM
// facade — reaches the core through one table of named methods
// ("goal.check", "agent_log.show", ...). Each method is registered once, with
// its access (who may call it over HTTP), in the adapter file of its module
// (core/api/<module>.cc, agent/tools/agent_api.cc). Inside the core, modules call
// each other through their typed headers, never through this table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/args.h"
#include "core/store/db.h"
#include "core/base/env.h"
#include "core/base/status.h"
#include "core/workflow/handle.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

class ApiRegistry;

struct ApiContext {
  Db* db = nullptr;
  Env* env = nullptr;
  std::string workflow;
  WorkflowConfig config;
  // The workflow's folder; empty in the browser, where only the database is
  // at hand (methods that need files say so).
  std::string workflow_dir;
  // Copies the folder's outside files into the database before the facts
  // are read (FactsNow, core/api/facts.h); none in the browser.
  OutsideFilesReader outside_files = nullptr;
  // The methods this caller can reach: the core's everywhere; the native
  // program adds the agent's (agent/tools/agent_api.h).
  const ApiRegistry* api = nullptr;
  // The opened workflow these fields view, when the caller holds one.
  WorkflowHandle* handle = nullptr;
};

// The adapter's view of an opened workflow: no schema check and no
// configuration read (the handle did both when it was opened or refreshed).
ApiContext ContextFor(WorkflowHandle& handle, const ApiRegistry* api = nullptr);

// Who may call a method over HTTP. The command line and the WASM facade act
// for the owner of the files they open; the server decides by this.
enum class Access {
  kRead,    // changes nothing: open to loopback readers
  kOwner,   // changes the workflow: the owner token
  kServer,  // the server's own machinery (sessions, turn bookkeeping): never over the generic route
};
const char* AccessName(Access access);

using ApiHandler = Result<nlohmann::json> (*)(ApiContext& ctx, const Args& args);

struct ApiMethod {
  const char* name;
  ApiHandler handler;
  Access access;
  const char* summary;
  // A read that writes when this argument is true (goal.check's "record").
  const char* writes_with = nullptr;

  // The access of one call: kOwner for a read called with `writes_with` set.
  Access AccessFor(const nlohmann::json& args) const;
};

class ApiRegistry {
 public:
  // A method registered under a name already taken replaces it.
  void Add(const char* name, ApiHandler handler, Access access, const char* summary,
           const char* writes_with = nullptr);
  // Every method of `other`, after this registry's own.
  void AddAll(const ApiRegistry& other);
  const ApiMethod* Find(std::string_view name) const;
  // The access one call needs; kOwner for a method not in the table, so a
  // name nobody registered is never taken for a read.
  Access AccessFor(std::string_view name, const nlohmann::json& args) const;
  const std::vector<ApiMethod>& methods() const { return methods_; }

 private:
  std::vector<ApiMethod> methods_;
};

// The core's methods, registered once (the WASM module's whole table;
// the server's and the CLI's add theirs to it: agent/tools/agent_api.h).
const ApiRegistry& CoreApi();

// NotFound for an unknown method; InvalidArgument when `args` is not an
// object; otherwise the method's own result. Looks in ctx.api (the core's
// table when unset).
Result<nlohmann::json> CallApi(ApiContext& ctx, std::string_view method, const nlohmann::json& args);

// The one error document every edge sends: {"error": message, "code": name},
// the message bounded (BoundedReason: a reply names the input, it does not
// carry a long one back).
nlohmann::json ErrorToJson(const Status& status);

// A context from the database alone (the browser's case): the workflow name
// and configuration come from the stored snapshot.
Result<ApiContext> ContextFromDb(Db& db, Env& env);

// InvalidArgument "<method>: needs a workflow database" when ctx.db is unset.
Status NeedDb(const ApiContext& ctx, const Args& args);

// Per-module registration (each defined in core/api/<module>.cc).
void AddCoreApi(ApiRegistry& registry);
void AddDecisionsApi(ApiRegistry& registry);
void AddAutonomyApi(ApiRegistry& registry);
// autonomy.guard itself: in the server's and the CLI's table (ServerApi),
// not the core's, so the WebAssembly module leaves the guard's scanners out
// (about 23 KB gzip); the core's table answers it with where it runs.
void AddGuardApi(ApiRegistry& registry);
void AddAgentLogApi(ApiRegistry& registry);
void AddGoalApi(ApiRegistry& registry);
void AddConversationApi(ApiRegistry& registry);
void AddFactsApi(ApiRegistry& registry);  // core/api/facts.cc
void AddFocusApi(ApiRegistry& registry);  // focus.*, request.*, qa.* (core/api/focus_areas.cc)
void AddQaApi(ApiRegistry& registry);     // pass.worklist, qa.failed_runs (core/api/qa.cc)
void AddReviewApi(ApiRegistry& registry);  // review.*, schedule.after_run, workflow.migrate (core/api/review.cc)
void AddAttentionApi(ApiRegistry& registry);  // attention.* (core/api/attention.cc)

}  // namespace pulse
