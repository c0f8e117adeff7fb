// Where Pulse's messages go and what became of each delivery. A message in
// the outbox has one delivery per target — the workflow's webhook
// (pulse.notify.webhook_url), its Slack channel (pulse.notify.slack_channel,
// through chat.postMessage), or the Slack thread a reply answers — each with
// its own state: queued, delivered, retrying (failed with a reason, tried
// again at a time), failed (given up, with the reason), or not_sent (kept in
// the Pulse tab only). These rules decide the targets, read an endpoint's
// answer (Slack's `ok`/`error` and Retry-After included) and space the
// retries; the I/O is the server's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pulse {

enum class DeliveryState { kQueued, kDelivered, kRetrying, kFailed, kNotSent };
const char* DeliveryStateName(DeliveryState s);
std::optional<DeliveryState> ParseDeliveryState(std::string_view s);

// Attempts per target before a delivery is given up.
inline constexpr int kMaxDeliveryAttempts = 6;
// The first retry waits this long; each next one twice as long, up to the cap.
inline constexpr int64_t kFirstRetrySeconds = 30;
inline constexpr int64_t kMaxRetrySeconds = 3600;

// pulse.notify in workflow.json.
struct NotifyConfig {
  std::string webhook_url;
  std::string slack_channel;
};
NotifyConfig ReadNotifyConfig(const nlohmann::json& workflow_json);

// Target names, as stored and shown: "webhook", "slack:<channel>", and
// "slack:<channel>/<thread_ts>" for a reply in a thread or DM.
inline constexpr const char* kWebhookTarget = "webhook";
inline constexpr const char* kTabOnlyTarget = "pulse_tab";

// The targets of a new message. A reply to Slack (payload.slack =
// {channel, thread_ts}) goes back to its thread only. Replies read in the
// Pulse tab (pulse_reply without payload.slack) and routine run summaries
// (payload.routine true) stay in the tab. Everything else — pulse_summary,
// failures and status changes, decisions that need the owner, the recovery
// message — goes to the webhook and the Slack channel that are set (Slack
// only when .pulse/slack.json has a bot token). No target: kTabOnlyTarget.
std::vector<std::string> DeliveryTargets(const std::string& kind, const nlohmann::json& payload,
                                         const NotifyConfig& notify, bool slack_configured);

// What one attempt came to.
struct DeliveryAnswer {
  bool delivered = false;
  bool retry = false;        // worth trying again
  std::string error;         // shown on the message: "Slack: channel_not_found (...)"
  int64_t retry_after = 0;   // seconds the endpoint asked us to wait (Retry-After)
  std::string remote_id;     // Slack's ts of the posted message
};

// chat.postMessage's answer: HTTP status, body ({"ok": true, "ts": ...} or
// {"ok": false, "error": "..."}), the Retry-After header, or the transport
// error when there was no answer. ratelimited (HTTP 429), Slack's internal
// errors, 5xx and transport errors are retried; invalid_auth,
// channel_not_found and the other request errors are not.
DeliveryAnswer ClassifySlackAnswer(int http_status, std::string_view body, std::string_view retry_after,
                                   const std::string& transport_error);

// A webhook's answer: 2xx delivered; 429, 5xx and transport errors retried;
// other statuses given up.
DeliveryAnswer ClassifyWebhookAnswer(int http_status, std::string_view retry_after,
                                     const std::string& transport_error);

// After failed attempt number `attempts` (1-based): when to try again, or
// nullopt when the delivery is given up (not retryable, or the last attempt).
std::optional<int64_t> NextAttemptAt(const DeliveryAnswer& answer, int attempts, int64_t now);

// One delivery as stored.
struct Delivery {
  int64_t message_id = 0;
  std::string target;
  DeliveryState state = DeliveryState::kQueued;
  int attempts = 0;
  std::string error;
  std::optional<int64_t> last_attempt_at;
  std::optional<int64_t> next_attempt_at;
  std::optional<int64_t> delivered_at;
  std::string remote_id;
  nlohmann::json ToJson() const;
};

// One state for a message from its deliveries: delivered when all are,
// failed when any was given up, retrying when any waits for a retry, queued
// while any waits for its first try, not_sent when it stays in the tab.
DeliveryState OverallDeliveryState(const std::vector<Delivery>& deliveries);

}  // namespace pulse
