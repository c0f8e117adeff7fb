// The REST routes' names: which core method each GET under
// /api/workflows/<wf> calls, and how a request's query and URL become the
// method's arguments. web/server-api.mjs maps the same method names to these
// routes; the routes are installed in serve_http.cc.
#pragma once

#include <httplib.h>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pulse::serve {

// The REST reads: each route is one core method; query parameters become its
// arguments. web/server-api.mjs maps the same method names to these routes.
struct RestRead {
  const char* path;    // after /api/workflows/<wf>
  const char* method;
  std::vector<std::pair<const char*, const char*>> query;  // query parameter -> argument
  const char* int_query = nullptr;                         // a whole-number parameter, same name
  const char* bool_query = nullptr;                        // a true/false parameter, same name
};

inline const std::vector<RestRead>& RestReads() {
  static const std::vector<RestRead> kReads = {
      {"", "pulse.config", {}},
      {"/goal-status", "goal.check", {}},
      {"/agent-log", "agent_log.show",
       {{"session", "session"}, {"run_id", "pulse_run_id"}, {"status", "status"}, {"since", "since"}},
       "stuck_after_minutes", "include_running"},
      {"/decisions", "decision.list", {{"status", "status"}}},
      {"/readings", "goal.readings", {}},
      {"/runs-by-route", "goal.runs_by_route", {{"since", "since"}}},
      {"/memory", "memory.show", {}},
      {"/focus-areas", "focus.list", {}, nullptr, "open"},
      {"/requests", "request.list", {{"kind", "kind"}, {"status", "status"}}},
      {"/outbox", "outbox.list", {}},
      {"/autonomy", "autonomy.levels", {}},
      {"/autonomy/decisions", "autonomy.decisions", {{"session", "session"}}},
  };
  return kReads;
}

inline nlohmann::json QueryArgs(const httplib::Request& req, const std::vector<std::pair<const char*, const char*>>& map) {
  nlohmann::json args = nlohmann::json::object();
  for (auto& [param, key] : map) {
    if (req.has_param(param)) {
      std::string v = req.get_param_value(param);
      if (!v.empty()) args[key] = v;
    }
  }
  return args;
}

// Decision ids are integers in the URL; other ids stay strings.
inline nlohmann::json IdArg(const std::string& s) {
  if (!s.empty() && s.size() < 18 && s.find_first_not_of("0123456789") == std::string::npos) return std::stoll(s);
  return s;
}

}  // namespace pulse::serve
