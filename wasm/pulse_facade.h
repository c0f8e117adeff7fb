// The Pulse facade of the WASM module: the core's API over the connection a
// JS Database owns. One facade per connection; it borrows the sqlite3* and
// never closes it (the Database does).
//
// Two kinds of entry:
//  - Call(method, args JSON): every named API method, through the same
//    adapter the command line and the HTTP routes use, so a method behaves
//    alike everywhere.
//  - The agent log's typed recorders: an event in as a struct (no JSON on
//    either side), written with statements prepared once per facade, for a
//    caller that records one event per call (a worker streaming a runner's
//    events).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/agent_log/agent_log.h"
#include "core/api/api.h"
#include "core/store/db.h"
#include "core/base/status.h"

namespace pulse::wasm {

// What a typed recorder did: recorded, or not (best effort, as the API
// methods: a failed write is reported as data, never as an error).
struct AgentLogWrite {
  bool recorded = false;
  std::string warning;  // why not, when not recorded
};

class Facade {
 public:
  // `db` may be null: then only the methods that need no database work.
  explicit Facade(sqlite3* db);
  ~Facade();
  Facade(const Facade&) = delete;
  Facade& operator=(const Facade&) = delete;

  // `args_json` empty means {}; `now_seconds` NaN means the real clock, and a
  // `now_seconds` outside the years 0000 to 9999 is InvalidArgument.
  Result<nlohmann::json> Call(const std::string& method, const std::string& args_json, double now_seconds);

  // InvalidArgument for a missing session or agent (nothing written).
  Result<AgentLogWrite> AgentStarted(const AgentStart& start, double now_seconds);
  Result<AgentLogWrite> AgentCompleted(const AgentCompletion& done, double now_seconds);

 private:
  // The connection's workflow, opened on the first call and kept: later
  // calls only look whether the database changed (WorkflowHandle::Refresh).
  Status EnsureHandle();
  // The workflow key and a prepared writer, made on the first typed event.
  Status EnsureAgentLog();

  std::unique_ptr<Db> db_;
  std::unique_ptr<WorkflowHandle> handle_;
  ApiContext ctx_;  // the adapter's view of handle_, taken again when its configuration was read again
  uint64_t ctx_generation_ = 0;
  std::optional<std::string> workspace_path_;
  std::unique_ptr<AgentLogWriter> writer_;
};

}  // namespace pulse::wasm
