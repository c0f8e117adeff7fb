#include "server-shim/http/rest_routes.h"

#include "rest_routes_json.h"

namespace pulse::serve {

using nlohmann::json;

std::string RestRoute::Pattern() const {
  std::string p = R"(/api/workflows/([^/]+))" + path;
  size_t at = p.find("{id}");
  if (at != std::string::npos) p.replace(at, 4, "([^/]+)");
  return p;
}

const std::vector<RestRoute>& RestRoutes() {
  static const std::vector<RestRoute> kRoutes = [] {
    std::vector<RestRoute> out;
    for (const json& e : json::parse(kRestRoutesJson)) {
      RestRoute r;
      r.method = e.at("method").get<std::string>();
      r.verb = e.at("verb").get<std::string>();
      r.path = e.at("path").get<std::string>();
      r.turn = e.value("turn", std::string());
      const json query = e.value("query", json::object()), ints = e.value("int", json::array()),
                 bools = e.value("bool", json::array());
      for (auto& [param, arg] : query.items()) r.query.emplace_back(param, arg.get<std::string>());
      for (const json& n : ints) r.ints.insert(n.get<std::string>());
      for (const json& b : bools) r.bools.insert(b.get<std::string>());
      out.push_back(std::move(r));
    }
    return out;
  }();
  return kRoutes;
}

bool RouteQueryArgs(const RestRoute& route, const httplib::Request& req, json* args, std::string* error) {
  *args = json::object();
  for (const auto& [param, key] : route.query) {
    if (!req.has_param(param)) continue;
    std::string v = req.get_param_value(param);
    if (route.bools.count(param)) {
      (*args)[key] = v == "true";
    } else if (route.ints.count(param)) {
      try {
        (*args)[key] = std::stoi(v);
      } catch (...) {
        *error = param + ": expected a whole number";
        return false;
      }
    } else if (!v.empty()) {
      (*args)[key] = v;
    }
  }
  return true;
}

json IdArg(const std::string& s) {
  if (!s.empty() && s.size() < 18 && s.find_first_not_of("0123456789") == std::string::npos) return std::stoll(s);
  return s;
}

}  // namespace pulse::serve
