#include "server-shim/slack/slack_client.h"

#include <httplib.h>

#include "core/base/json_limits.h"

namespace pulse::serve {

using nlohmann::json;

std::string SlackConfigPath(const std::string& workspace) { return workspace + "/.pulse/slack.json"; }

namespace {

Result<json> ReadJsonFile(Env& env, const std::string& path) {
  PULSE_ASSIGN_OR_RETURN(std::string text, env.ReadFile(path));
  if (text.size() > 1 << 20) return Status::InvalidArgument(path + ": larger than 1 MB");
  return ParseJsonBounded(text, path, 16);
}

// "https://slack.com/api" -> {"https://slack.com", "/api"}. False for what
// is not an http(s) URL.
bool SplitUrl(const std::string& url, std::string* origin, std::string* path) {
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) return false;
  const size_t scheme_end = url.find("://") + 3;
  const size_t slash = url.find('/', scheme_end);
  if (slash == scheme_end) return false;
  *origin = slash == std::string::npos ? url : url.substr(0, slash);
  *path = slash == std::string::npos ? "" : url.substr(slash);
  return true;
}

SlackHttpAnswer FromResult(const httplib::Result& res) {
  SlackHttpAnswer a;
  if (!res) {
    a.transport_error = httplib::to_string(res.error());
    return a;
  }
  a.status = res->status;
  a.body = res->body.size() > (1 << 20) ? res->body.substr(0, 1 << 20) : res->body;
  a.retry_after = res->get_header_value("Retry-After");
  return a;
}

std::unique_ptr<httplib::Client> ClientFor(const std::string& origin) {
  auto client = std::make_unique<httplib::Client>(origin);
  client->set_connection_timeout(3);
  client->set_read_timeout(5);
  client->set_write_timeout(5);
  return client;
}

SlackHttpAnswer Unusable(const std::string& why) {
  SlackHttpAnswer a;
  a.transport_error = why;
  return a;
}

}  // namespace

Result<SlackConfig> LoadSlackConfig(Env& env, const std::string& workspace) {
  SlackConfig c;
  const std::string path = SlackConfigPath(workspace);
  if (!env.FileExists(path)) return c;
  PULSE_ASSIGN_OR_RETURN(json doc, ReadJsonFile(env, path));
  if (!doc.is_object()) return Status::InvalidArgument(path + ": expected an object {signing_secret, bot_token, api_base_url}");
  c.present = true;
  for (const char* key : {"signing_secret", "bot_token", "api_base_url"}) {
    if (doc.contains(key) && !doc[key].is_string()) return Status::InvalidArgument(path + ": " + key + ": expected a string");
  }
  c.signing_secret = doc.value("signing_secret", "");
  c.bot_token = doc.value("bot_token", "");
  std::string base = doc.value("api_base_url", "");
  if (!base.empty()) c.api_base_url = base;
  while (!c.api_base_url.empty() && c.api_base_url.back() == '/') c.api_base_url.pop_back();
  std::string origin, prefix;
  if (!SplitUrl(c.api_base_url, &origin, &prefix)) {
    return Status::InvalidArgument(path + ": api_base_url: expected an http(s) URL such as https://slack.com/api");
  }
  return c;
}

Result<std::vector<AccountEmails>> LoadAccounts(Env& env, const std::string& workspace) {
  const std::string path = workspace + "/.pulse/accounts.json";
  if (!env.FileExists(path)) return std::vector<AccountEmails>();
  PULSE_ASSIGN_OR_RETURN(json doc, ReadJsonFile(env, path));
  return ParseAccounts(doc, path);
}

SlackHttpAnswer SlackPostJson(const SlackConfig& config, const std::string& method, const json& body) {
  std::string origin, prefix;
  if (!SplitUrl(config.api_base_url, &origin, &prefix)) return Unusable("api_base_url is not an http(s) URL");
  auto client = ClientFor(origin);
  httplib::Headers headers = {{"Authorization", "Bearer " + config.bot_token}};
  return FromResult(client->Post((prefix + "/" + method).c_str(), headers, body.dump(),
                                 "application/json; charset=utf-8"));
}

SlackHttpAnswer SlackPostForm(const SlackConfig& config, const std::string& method,
                              const std::map<std::string, std::string>& fields) {
  std::string origin, prefix;
  if (!SplitUrl(config.api_base_url, &origin, &prefix)) return Unusable("api_base_url is not an http(s) URL");
  auto client = ClientFor(origin);
  httplib::Headers headers = {{"Authorization", "Bearer " + config.bot_token}};
  httplib::Params params(fields.begin(), fields.end());
  return FromResult(client->Post((prefix + "/" + method).c_str(), headers, params));
}

SlackHttpAnswer PostJsonTo(const std::string& url, const json& body) {
  std::string origin, path;
  if (!SplitUrl(url, &origin, &path)) return Unusable("pulse.notify.webhook_url is not an http(s) URL");
  auto client = ClientFor(origin);
  return FromResult(client->Post(path.empty() ? "/" : path.c_str(), body.dump(), "application/json"));
}

}  // namespace pulse::serve
