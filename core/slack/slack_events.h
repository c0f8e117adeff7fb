// Slack's Events API as Pulse receives it (POST /slack/events): the v0
// request signature, the replay window, and the envelope's parts Pulse acts
// on. Slack signs every request with HMAC-SHA256 over "v0:<timestamp>:<body>"
// under the app's signing secret and sends it as X-Slack-Signature
// ("v0=<hex>") with X-Slack-Request-Timestamp; a request older than five
// minutes, or a signature already seen, is refused so a captured request
// cannot be played again. Slack retries an event it thinks failed (with
// X-Slack-Retry-Num and a fresh signature); the event id is what repeats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace pulse {

inline constexpr int64_t kSlackSignatureWindowSeconds = 300;
// Slack's event payloads are a few kilobytes; anything far larger is not Slack.
inline constexpr size_t kMaxSlackBodyBytes = 256 * 1024;
// Slack cuts message text at 40,000 characters.
inline constexpr size_t kMaxSlackTextBytes = 40000;

// "v0=<hex of HMAC-SHA256(secret, "v0:" + timestamp + ":" + body)>".
std::string SlackSignature(std::string_view signing_secret, std::string_view timestamp, std::string_view body);

// Unauthenticated with the reason (no secret configured, header missing,
// timestamp not a number, outside the five-minute window, signature wrong)
// unless the signature is Slack's for this body and recent. The signature
// is compared in constant time.
Status VerifySlackSignature(std::string_view signing_secret, std::string_view timestamp, std::string_view body,
                            std::string_view signature, int64_t now);

// Signatures seen inside the window. A signature covers its timestamp, so
// one older than the window is refused as stale anyway and can be forgotten.
// Not synchronized: the caller holds its own lock.
class SlackReplayGuard {
 public:
  explicit SlackReplayGuard(size_t capacity = 50000) : capacity_(capacity) {}
  // True (and remembered) the first time; false when seen inside the window.
  // Past `capacity` live entries the oldest are dropped first.
  bool FirstSeen(const std::string& signature, int64_t now);
  size_t size() const { return seen_.size(); }

 private:
  void Prune(int64_t now);
  size_t capacity_;
  std::map<std::string, int64_t> seen_;
  std::multimap<int64_t, std::string> by_time_;
};

// One person's message, from a `message` or `app_mention` event.
struct SlackMessage {
  std::string event_type;    // message, app_mention
  std::string team;
  std::string channel;
  std::string channel_type;  // channel, group, im, mpim ("" on app_mention)
  std::string user;
  std::string text;
  std::string ts;
  std::string thread_ts;     // "" outside a thread
  bool IsDirect() const { return channel_type == "im" || (!channel.empty() && channel[0] == 'D'); }
  // Where Pulse's answer goes: the thread, or a new thread under the
  // message in a channel; a DM is answered in the DM itself.
  std::string ReplyThread() const;
  // The key a binding is stored under: a DM is bound as a whole, a
  // channel message by its thread.
  std::string BindingThread() const;
};

enum class SlackEnvelopeKind { kUrlVerification, kEventCallback, kOther };

struct SlackEnvelope {
  SlackEnvelopeKind kind = SlackEnvelopeKind::kOther;
  std::string challenge;                // url_verification
  std::string event_id;                 // event_callback
  std::string team;
  std::optional<SlackMessage> message;  // a person's message Pulse may answer
  std::string ignored;                  // why an event carries no message (bot, edit, other type)
};

// Parses a signed body. InvalidArgument ("Slack event: ...") for malformed
// JSON, a missing type, a url_verification without its challenge, an
// event_callback without event or event_id, or a message text over
// kMaxSlackTextBytes. Bot messages, edits and other subtypes give no
// `message` (Pulse never answers itself).
Result<SlackEnvelope> ParseSlackEnvelope(std::string_view body);

}  // namespace pulse
