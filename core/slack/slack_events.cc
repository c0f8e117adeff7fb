#include "core/slack/slack_events.h"

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/base/json_limits.h"
#include "core/base/sha256.h"

namespace pulse {

using nlohmann::json;

std::string SlackSignature(std::string_view signing_secret, std::string_view timestamp, std::string_view body) {
  std::string base = "v0:";
  base.append(timestamp);
  base += ':';
  base.append(body);
  return "v0=" + HexEncode(HmacSha256(signing_secret, base));
}

Status VerifySlackSignature(std::string_view signing_secret, std::string_view timestamp, std::string_view body,
                            std::string_view signature, int64_t now) {
  if (signing_secret.empty()) {
    return Status::Unauthenticated("Slack request refused: no signing_secret in .pulse/slack.json");
  }
  if (signature.empty() || timestamp.empty()) {
    return Status::Unauthenticated("Slack request refused: X-Slack-Signature and X-Slack-Request-Timestamp are required");
  }
  if (timestamp.size() > 12 || timestamp.find_first_not_of("0123456789") != std::string_view::npos) {
    return Status::Unauthenticated("Slack request refused: X-Slack-Request-Timestamp is not a number of seconds");
  }
  const int64_t ts = std::strtoll(std::string(timestamp).c_str(), nullptr, 10);
  if (ts < now - kSlackSignatureWindowSeconds || ts > now + kSlackSignatureWindowSeconds) {
    return Status::Unauthenticated("Slack request refused: the timestamp is more than 5 minutes from the server's "
                                   "clock (stale or replayed)");
  }
  if (!ConstantTimeEquals(SlackSignature(signing_secret, timestamp, body), signature)) {
    return Status::Unauthenticated("Slack request refused: X-Slack-Signature does not match the body");
  }
  return Status::OK();
}

void SlackReplayGuard::Prune(int64_t now) {
  while (!by_time_.empty() &&
         (by_time_.begin()->first < now - kSlackSignatureWindowSeconds || seen_.size() > capacity_)) {
    seen_.erase(by_time_.begin()->second);
    by_time_.erase(by_time_.begin());
  }
}

bool SlackReplayGuard::FirstSeen(const std::string& signature, int64_t now) {
  Prune(now);
  auto it = seen_.find(signature);
  if (it != seen_.end()) return false;
  seen_.emplace(signature, now);
  by_time_.emplace(now, signature);
  Prune(now);
  return true;
}

std::string SlackMessage::ReplyThread() const {
  if (!thread_ts.empty()) return thread_ts;
  return IsDirect() ? "" : ts;
}

std::string SlackMessage::BindingThread() const {
  if (IsDirect()) return "";
  return thread_ts.empty() ? ts : thread_ts;
}

namespace {

std::string Str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The person's message inside an event, or why there is none.
Result<std::optional<SlackMessage>> MessageOf(const json& event, const std::string& team, std::string* ignored) {
  const std::string type = Str(event, "type");
  if (type != "message" && type != "app_mention") {
    *ignored = "event type \"" + type + "\" is not a message";
    return std::optional<SlackMessage>();
  }
  if (event.contains("bot_id") || !Str(event, "subtype").empty()) {
    *ignored = event.contains("bot_id") ? "a bot's message" : "message subtype \"" + Str(event, "subtype") + "\"";
    return std::optional<SlackMessage>();
  }
  SlackMessage m;
  m.event_type = type;
  m.team = Str(event, "team").empty() ? team : Str(event, "team");
  m.channel = Str(event, "channel");
  m.channel_type = Str(event, "channel_type");
  m.user = Str(event, "user");
  m.text = Str(event, "text");
  m.ts = Str(event, "ts");
  m.thread_ts = Str(event, "thread_ts");
  if (m.channel.empty() || m.user.empty() || m.ts.empty()) {
    return Status::InvalidArgument("Slack event: a " + type + " event needs channel, user and ts");
  }
  if (m.text.size() > kMaxSlackTextBytes) {
    return Status::InvalidArgument("Slack event: message text is longer than " + std::to_string(kMaxSlackTextBytes) +
                                   " bytes");
  }
  return std::optional<SlackMessage>(std::move(m));
}

}  // namespace

Result<SlackEnvelope> ParseSlackEnvelope(std::string_view body) {
  if (body.size() > kMaxSlackBodyBytes) {
    return Status::InvalidArgument("Slack event: body is larger than " + std::to_string(kMaxSlackBodyBytes) + " bytes");
  }
  PULSE_ASSIGN_OR_RETURN(json doc, ParseJsonBounded(body, "Slack event", 16));
  if (!doc.is_object()) return Status::InvalidArgument("Slack event: the body is not a JSON object");
  const std::string type = Str(doc, "type");
  SlackEnvelope out;
  if (type.empty()) return Status::InvalidArgument("Slack event: \"type\" is missing");
  if (type == "url_verification") {
    out.kind = SlackEnvelopeKind::kUrlVerification;
    out.challenge = Str(doc, "challenge");
    if (out.challenge.empty() || out.challenge.size() > 512) {
      return Status::InvalidArgument("Slack event: url_verification needs a \"challenge\" string (at most 512 bytes)");
    }
    return out;
  }
  if (type != "event_callback") {
    out.ignored = "envelope type \"" + type + "\"";
    return out;
  }
  out.kind = SlackEnvelopeKind::kEventCallback;
  out.event_id = Str(doc, "event_id");
  out.team = Str(doc, "team_id");
  auto event = doc.find("event");
  if (out.event_id.empty() || event == doc.end() || !event->is_object()) {
    return Status::InvalidArgument("Slack event: event_callback needs \"event_id\" and an \"event\" object");
  }
  PULSE_ASSIGN_OR_RETURN(out.message, MessageOf(*event, out.team, &out.ignored));
  return out;
}

}  // namespace pulse
