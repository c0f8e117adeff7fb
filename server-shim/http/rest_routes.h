// The REST routes under /api/workflows/<wf>: which core method each calls and
// how a request's query, URL and body become the method's arguments. The
// list is web/data/rest-routes.mjs, the same file the Pulse tab builds its
// requests from, embedded at build time (rest_routes_json.h, made by
// server-shim/CMakeLists.txt); serve_http.cc installs one route per entry.
#pragma once

#include <httplib.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pulse::serve {

struct RestRoute {
  std::string method;   // the core API method ("turn.<kind>" for a turn route)
  std::string turn;     // non-empty: the route starts this background turn instead
  std::string verb;     // GET | POST | PUT
  std::string path;     // after /api/workflows/<wf>; "{id}" stands for the `id` argument
  std::vector<std::pair<std::string, std::string>> query;  // GET: query parameter -> argument
  std::set<std::string> ints, bools;                       // parameters read as numbers / true|false

  bool has_id() const { return path.find("{id}") != std::string::npos; }
  // The path as an httplib pattern: the workflow is match 1, the id match 2.
  std::string Pattern() const;
};

// Every route, in the list's order. The list is checked when the server is
// built (CMake reads it as JSON); this reads the embedded copy once.
const std::vector<RestRoute>& RestRoutes();

// A GET route's arguments from the query; InvalidArgument (as an error line)
// naming a parameter that is not a whole number.
bool RouteQueryArgs(const RestRoute& route, const httplib::Request& req, nlohmann::json* args, std::string* error);

// Decision ids are integers in the URL; other ids stay strings.
nlohmann::json IdArg(const std::string& s);

}  // namespace pulse::serve
