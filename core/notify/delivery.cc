#include "core/notify/delivery.h"

#include <algorithm>
#include <cstdlib>

#include "core/base/json_limits.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

const char* DeliveryStateName(DeliveryState s) {
  switch (s) {
    case DeliveryState::kQueued: return "queued";
    case DeliveryState::kDelivered: return "delivered";
    case DeliveryState::kRetrying: return "retrying";
    case DeliveryState::kFailed: return "failed";
    case DeliveryState::kNotSent: return "not_sent";
  }
  return "queued";
}

std::optional<DeliveryState> ParseDeliveryState(std::string_view s) {
  for (DeliveryState d : {DeliveryState::kQueued, DeliveryState::kDelivered, DeliveryState::kRetrying,
                          DeliveryState::kFailed, DeliveryState::kNotSent}) {
    if (s == DeliveryStateName(d)) return d;
  }
  return std::nullopt;
}

namespace {

std::string StrAt(const json& o, const char* key) {
  auto it = o.is_object() ? o.find(key) : o.end();
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t RetryAfterSeconds(std::string_view header) {
  if (header.empty() || header.size() > 9 || header.find_first_not_of("0123456789") != std::string_view::npos) return 0;
  return std::strtoll(std::string(header).c_str(), nullptr, 10);
}

// What people read next to a Slack error code.
std::string SlackErrorText(const std::string& code) {
  if (code == "invalid_auth" || code == "not_authed" || code == "token_revoked" || code == "token_expired" ||
      code == "account_inactive") {
    return "Slack: " + code + " (the bot_token in .pulse/slack.json is not accepted)";
  }
  if (code == "channel_not_found") return "Slack: channel_not_found (no such channel, or the app is not in it)";
  if (code == "not_in_channel") return "Slack: not_in_channel (invite the app to the channel)";
  if (code == "is_archived") return "Slack: is_archived (the channel is archived)";
  if (code == "missing_scope") return "Slack: missing_scope (the app needs chat:write)";
  return "Slack: " + code;
}

bool SlackErrorRetryable(const std::string& code) {
  return code == "ratelimited" || code == "internal_error" || code == "fatal_error" ||
         code == "service_unavailable" || code == "request_timeout";
}

}  // namespace

NotifyConfig ReadNotifyConfig(const json& doc) {
  NotifyConfig out;
  if (!doc.is_object() || !doc.contains("pulse") || !doc["pulse"].is_object()) return out;
  const json& pulse = doc["pulse"];
  if (!pulse.contains("notify") || !pulse["notify"].is_object()) return out;
  out.webhook_url = StrAt(pulse["notify"], "webhook_url");
  out.slack_channel = StrAt(pulse["notify"], "slack_channel");
  return out;
}

std::vector<std::string> DeliveryTargets(const std::string& kind, const json& payload, const NotifyConfig& notify,
                                         bool slack_configured) {
  std::vector<std::string> out;
  const json slack = payload.is_object() && payload.contains("slack") ? payload["slack"] : json();
  if (slack.is_object() && !StrAt(slack, "channel").empty()) {
    std::string target = "slack:" + StrAt(slack, "channel");
    if (!StrAt(slack, "thread_ts").empty()) target += "/" + StrAt(slack, "thread_ts");
    if (slack_configured) out.push_back(target);
    if (out.empty()) out.push_back(kTabOnlyTarget);
    return out;
  }
  const bool routine = payload.is_object() && payload.contains("routine") && payload["routine"].is_boolean() &&
                       payload["routine"].get<bool>();
  if (kind == "pulse_reply" || routine) return {kTabOnlyTarget};
  if (!notify.webhook_url.empty()) out.push_back(kWebhookTarget);
  if (!notify.slack_channel.empty() && slack_configured) out.push_back("slack:" + notify.slack_channel);
  if (out.empty()) out.push_back(kTabOnlyTarget);
  return out;
}

DeliveryAnswer ClassifySlackAnswer(int http_status, std::string_view body, std::string_view retry_after,
                                   const std::string& transport_error) {
  DeliveryAnswer a;
  if (!transport_error.empty()) {
    a.retry = true;
    a.error = "Slack unreachable: " + transport_error;
    return a;
  }
  a.retry_after = RetryAfterSeconds(retry_after);
  Result<json> doc = ParseJsonBounded(body.substr(0, 1 << 20), "Slack's answer", 16);
  std::string code = doc.ok() ? StrAt(*doc, "error") : "";
  if (http_status == 429 || code == "ratelimited") {
    a.retry = true;
    a.error = "Slack: ratelimited (retry after " + std::to_string(std::max<int64_t>(a.retry_after, 1)) + " s)";
    return a;
  }
  if (http_status >= 500 || http_status < 200 || http_status >= 300) {
    a.retry = http_status >= 500;
    a.error = "Slack answered HTTP " + std::to_string(http_status) + (code.empty() ? "" : ": " + code);
    return a;
  }
  if (!doc.ok() || !doc->is_object() || !doc->contains("ok") || !(*doc)["ok"].is_boolean()) {
    a.retry = true;
    a.error = "Slack's answer is not a Web API answer (no \"ok\")";
    return a;
  }
  if ((*doc)["ok"].get<bool>()) {
    a.delivered = true;
    a.remote_id = StrAt(*doc, "ts");
    return a;
  }
  if (code.empty()) code = "unknown_error";
  a.retry = SlackErrorRetryable(code);
  a.error = SlackErrorText(code);
  return a;
}

DeliveryAnswer ClassifyWebhookAnswer(int http_status, std::string_view retry_after,
                                     const std::string& transport_error) {
  DeliveryAnswer a;
  if (!transport_error.empty()) {
    a.retry = true;
    a.error = "webhook unreachable: " + transport_error;
    return a;
  }
  a.retry_after = RetryAfterSeconds(retry_after);
  if (http_status >= 200 && http_status < 300) {
    a.delivered = true;
    return a;
  }
  a.retry = http_status == 429 || http_status >= 500;
  a.error = "webhook answered HTTP " + std::to_string(http_status);
  return a;
}

std::optional<int64_t> NextAttemptAt(const DeliveryAnswer& answer, int attempts, int64_t now) {
  if (answer.delivered || !answer.retry || attempts >= kMaxDeliveryAttempts) return std::nullopt;
  int64_t wait = kFirstRetrySeconds;
  for (int i = 1; i < attempts && wait < kMaxRetrySeconds; ++i) wait *= 2;
  wait = std::min(wait, kMaxRetrySeconds);
  // Slack's Retry-After wins when it asks for longer (never past an hour).
  wait = std::max(wait, std::min(answer.retry_after, kMaxRetrySeconds));
  return now + wait;
}

json Delivery::ToJson() const {
  auto t = [](const std::optional<int64_t>& v) { return v ? json(FormatTime(*v)) : json(nullptr); };
  return json{{"target", target},
              {"state", DeliveryStateName(state)},
              {"attempts", attempts},
              {"error", error},
              {"last_attempt_at", t(last_attempt_at)},
              {"next_attempt_at", t(next_attempt_at)},
              {"delivered_at", t(delivered_at)},
              {"remote_id", remote_id}};
}

DeliveryState OverallDeliveryState(const std::vector<Delivery>& deliveries) {
  if (deliveries.empty()) return DeliveryState::kQueued;
  auto any = [&](DeliveryState s) {
    return std::any_of(deliveries.begin(), deliveries.end(), [&](const Delivery& d) { return d.state == s; });
  };
  if (any(DeliveryState::kFailed)) return DeliveryState::kFailed;
  if (any(DeliveryState::kRetrying)) return DeliveryState::kRetrying;
  if (any(DeliveryState::kQueued)) return DeliveryState::kQueued;
  if (any(DeliveryState::kDelivered)) return DeliveryState::kDelivered;
  return DeliveryState::kNotSent;
}

}  // namespace pulse
