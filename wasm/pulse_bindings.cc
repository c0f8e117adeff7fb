// The Pulse facade's one entry point: routes a named core API method
// (core/api.h) over the connection a JS Database owns. Errors cross as data
// ({"error": ..., "code": ...}); the JS wrapper throws. A plain C export
// (JS side: Module.pulseCall in wasm/pulse-post.js) rather than Embind,
// whose runtime cost the module ~10 KB gzip of its 450 KB budget.
#include <emscripten/emscripten.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/db.h"
#include "core/env.h"

namespace {

using nlohmann::json;

std::string ErrorJson(const pulse::Status& s) {
  return json{{"error", s.message()}, {"code", pulse::CodeName(s.code())}}.dump();
}

// `db_ptr` is the sqlite3* a JS Database holds (0: no database).
// `now_seconds` is the clock the caller decides (NaN: the real clock).
std::string PulseCall(uintptr_t db_ptr, const std::string& method, const std::string& args_json,
                      double now_seconds) {
  int64_t now = std::isnan(now_seconds) ? pulse::DefaultEnv()->NowSeconds() : static_cast<int64_t>(now_seconds);
  pulse::FixedClockEnv env(pulse::DefaultEnv(), now);
  json args = json::parse(args_json.empty() ? "{}" : args_json, nullptr, false);
  if (args.is_discarded()) return ErrorJson(pulse::Status::InvalidArgument(method + ": arguments are not valid JSON"));
  std::unique_ptr<pulse::Db> db;
  pulse::ApiContext ctx;
  ctx.env = &env;
  if (db_ptr != 0) {
    db = pulse::Db::Borrow(reinterpret_cast<sqlite3*>(db_ptr), "database");
    pulse::Result<pulse::ApiContext> made = pulse::ContextFromDb(*db, env);
    if (!made.ok()) return ErrorJson(made.status());
    ctx = std::move(made).value();
  }
  pulse::Result<json> result = pulse::CallApi(ctx, method, args);
  if (!result.ok()) return ErrorJson(result.status());
  return json{{"result", *result}}.dump();
}

}  // namespace

// Returns the reply as a NUL-terminated JSON string in memory from malloc
// (the caller frees it); NULL only when out of memory.
extern "C" EMSCRIPTEN_KEEPALIVE char* pulse_call(uintptr_t db_ptr, const char* method, const char* args_json,
                                                 double now_seconds) {
  std::string out = PulseCall(db_ptr, method ? method : "", args_json ? args_json : "", now_seconds);
  char* p = static_cast<char*>(std::malloc(out.size() + 1));
  if (p) std::memcpy(p, out.c_str(), out.size() + 1);
  return p;
}
