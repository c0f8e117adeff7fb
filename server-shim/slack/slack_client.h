// Slack I/O for `pulse serve`: the workspace's .pulse/slack.json and
// .pulse/accounts.json, and the two Web API methods Pulse calls —
// chat.postMessage (JSON body) and users.info (form body, as Slack requires
// for read methods) — at `api_base_url` with the bot token. What an answer
// means is core's (core/notify/delivery.h); this file only sends and receives.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/env.h"
#include "core/slack/slack_routing.h"
#include "core/base/status.h"

namespace pulse::serve {

struct SlackConfig {
  bool present = false;  // .pulse/slack.json exists
  std::string signing_secret;
  std::string bot_token;
  std::string api_base_url = "https://slack.com/api";
  // The bot can post (a token and an http(s) base URL).
  bool CanPost() const { return present && !bot_token.empty(); }
};

std::string SlackConfigPath(const std::string& workspace);
// A missing file is `present = false`; a malformed one is InvalidArgument
// naming the file and the key.
Result<SlackConfig> LoadSlackConfig(Env& env, const std::string& workspace);
// .pulse/accounts.json; a missing file is no accounts.
Result<std::vector<AccountEmails>> LoadAccounts(Env& env, const std::string& workspace);

// One Web API call's raw outcome.
struct SlackHttpAnswer {
  int status = 0;
  std::string body;
  std::string retry_after;      // the Retry-After header
  std::string transport_error;  // no answer at all (refused, timed out)
};

// POST <api_base_url>/<method> with a JSON body.
SlackHttpAnswer SlackPostJson(const SlackConfig& config, const std::string& method, const nlohmann::json& body);
// POST <api_base_url>/<method> with form fields.
SlackHttpAnswer SlackPostForm(const SlackConfig& config, const std::string& method,
                              const std::map<std::string, std::string>& fields);

// POST to any http(s) URL (the workflow's webhook).
SlackHttpAnswer PostJsonTo(const std::string& url, const nlohmann::json& body);

}  // namespace pulse::serve
