// Slack's request signing and envelopes: a request is taken only with
// Slack's v0 signature over this very body, inside five minutes, once.
#include <gtest/gtest.h>

#include "core/slack/slack_events.h"

namespace pulse {
namespace {

constexpr const char* kSecret = "8f742231b10e8888abcd99yyyzzz85a5";
constexpr int64_t kNow = 1531420618;

// Slack's documented example: this body, timestamp and secret give this signature.
TEST(SlackEvents, SignatureMatchesSlacksExample) {
  const std::string body =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name="
      "foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks."
      "slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121."
      "803a0bc887a14d10d2c447fce8b6703c";
  EXPECT_EQ(SlackSignature(kSecret, "1531420618", body),
            "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503");
  EXPECT_TRUE(VerifySlackSignature(kSecret, "1531420618", body,
                                   "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503", kNow)
                  .ok());
}

TEST(SlackEvents, RefusesBadMissingAndStaleSignatures) {
  const std::string body = R"({"type":"url_verification","challenge":"c"})";
  const std::string ts = std::to_string(kNow);
  const std::string good = SlackSignature(kSecret, ts, body);
  EXPECT_TRUE(VerifySlackSignature(kSecret, ts, body, good, kNow).ok());
  // Another body, another secret, no header, a timestamp that is not a number.
  EXPECT_EQ(VerifySlackSignature(kSecret, ts, body + " ", good, kNow).code(), Code::kUnauthenticated);
  EXPECT_EQ(VerifySlackSignature("other", ts, body, good, kNow).code(), Code::kUnauthenticated);
  EXPECT_EQ(VerifySlackSignature(kSecret, ts, body, "", kNow).code(), Code::kUnauthenticated);
  EXPECT_EQ(VerifySlackSignature(kSecret, "12ab", body, good, kNow).code(), Code::kUnauthenticated);
  EXPECT_EQ(VerifySlackSignature("", ts, body, good, kNow).code(), Code::kUnauthenticated);
  // The window: 300 seconds either way is in, 301 is out.
  EXPECT_TRUE(VerifySlackSignature(kSecret, ts, body, good, kNow + 300).ok());
  Status stale = VerifySlackSignature(kSecret, ts, body, good, kNow + 301);
  EXPECT_EQ(stale.code(), Code::kUnauthenticated);
  EXPECT_NE(stale.message().find("5 minutes"), std::string::npos) << stale.message();
  EXPECT_EQ(VerifySlackSignature(kSecret, ts, body, good, kNow - 301).code(), Code::kUnauthenticated);
}

TEST(SlackEvents, ReplayGuardRemembersInsideTheWindowOnly) {
  SlackReplayGuard guard(3);
  EXPECT_TRUE(guard.FirstSeen("v0=a", kNow));
  EXPECT_FALSE(guard.FirstSeen("v0=a", kNow + 10));
  EXPECT_TRUE(guard.FirstSeen("v0=b", kNow + 10));
  // Past the window the entry is gone (the request would be stale anyway).
  EXPECT_TRUE(guard.FirstSeen("v0=a", kNow + kSlackSignatureWindowSeconds + 11));
  // Bounded: the oldest go first.
  guard.FirstSeen("v0=c", kNow + 400);
  guard.FirstSeen("v0=d", kNow + 400);
  guard.FirstSeen("v0=e", kNow + 400);
  EXPECT_LE(guard.size(), 3u);
}

TEST(SlackEvents, ParsesChallengeMessagesAndIgnoresBots) {
  auto challenge = ParseSlackEnvelope(R"({"token":"t","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"})");
  ASSERT_TRUE(challenge.ok()) << challenge.status().message();
  EXPECT_EQ(challenge->kind, SlackEnvelopeKind::kUrlVerification);
  EXPECT_EQ(challenge->challenge, "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P");

  auto msg = ParseSlackEnvelope(R"({"type":"event_callback","team_id":"T1","event_id":"Ev1","event":
    {"type":"message","channel":"C1","channel_type":"channel","user":"U1","text":"substack-pulse how are we?","ts":"1700000000.000100"}})");
  ASSERT_TRUE(msg.ok()) << msg.status().message();
  ASSERT_TRUE(msg->message.has_value());
  EXPECT_EQ(msg->event_id, "Ev1");
  EXPECT_EQ(msg->message->team, "T1");
  EXPECT_EQ(msg->message->ReplyThread(), "1700000000.000100");
  EXPECT_EQ(msg->message->BindingThread(), "1700000000.000100");

  auto dm = ParseSlackEnvelope(R"({"type":"event_callback","event_id":"Ev2","event":
    {"type":"message","channel":"D1","channel_type":"im","user":"U1","text":"hi","ts":"1.2"}})");
  ASSERT_TRUE(dm.ok());
  EXPECT_TRUE(dm->message->IsDirect());
  EXPECT_EQ(dm->message->ReplyThread(), "");
  EXPECT_EQ(dm->message->BindingThread(), "");

  auto bot = ParseSlackEnvelope(R"({"type":"event_callback","event_id":"Ev3","event":
    {"type":"message","channel":"C1","bot_id":"B1","text":"Substack Pulse: ...","ts":"1.3"}})");
  ASSERT_TRUE(bot.ok());
  EXPECT_FALSE(bot->message.has_value());
  EXPECT_NE(bot->ignored.find("bot"), std::string::npos);
  auto edit = ParseSlackEnvelope(R"({"type":"event_callback","event_id":"Ev4","event":
    {"type":"message","subtype":"message_changed","channel":"C1","ts":"1.4"}})");
  ASSERT_TRUE(edit.ok());
  EXPECT_FALSE(edit->message.has_value());
}

TEST(SlackEvents, MalformedEnvelopesAreInvalid) {
  for (const char* bad : {"", "{", "[1]", R"({"challenge":"x"})", R"({"type":"url_verification"})",
                          R"({"type":"event_callback","event":{}})", R"({"type":"event_callback","event_id":"E"})",
                          R"({"type":"event_callback","event_id":"E","event":{"type":"message","text":"x"}})"}) {
    auto r = ParseSlackEnvelope(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << bad;
    }
  }
  std::string deep(100, '[');
  EXPECT_FALSE(ParseSlackEnvelope(deep).ok());
  std::string huge = R"({"type":"event_callback","event_id":"E","event":{"type":"message","channel":"C","user":"U","ts":"1","text":")" +
                     std::string(kMaxSlackTextBytes + 1, 'a') + "\"}}";
  EXPECT_FALSE(ParseSlackEnvelope(huge).ok());
}

}  // namespace
}  // namespace pulse
