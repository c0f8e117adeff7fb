// Where Pulse's messages go and what became of each delivery: the targets,
// Slack's and a webhook's answers, and the backoff between retries.
#include <gtest/gtest.h>

#include "core/notify/delivery.h"

namespace pulse {
namespace {

using nlohmann::json;

TEST(Delivery, TargetsFollowTheKindAndTheConfig) {
  NotifyConfig both{"http://hook/x", "#growth"};
  EXPECT_EQ(DeliveryTargets("pulse_summary", json::object(), both, true),
            (std::vector<std::string>{"webhook", "slack:#growth"}));
  // Slack only with a bot token.
  EXPECT_EQ(DeliveryTargets("needs_you", json::object(), both, false), (std::vector<std::string>{"webhook"}));
  EXPECT_EQ(DeliveryTargets("pulse_recovery", json::object(), NotifyConfig{}, true),
            (std::vector<std::string>{kTabOnlyTarget}));
  // A Slack reply goes back to its thread only; a Talk reply and routine summaries stay in the tab.
  json slack = {{"slack", {{"channel", "C1"}, {"thread_ts", "1.2"}}}};
  EXPECT_EQ(DeliveryTargets("pulse_reply", slack, both, true), (std::vector<std::string>{"slack:C1/1.2"}));
  json dm = {{"slack", {{"channel", "D1"}, {"thread_ts", ""}}}};
  EXPECT_EQ(DeliveryTargets("pulse_reply", dm, both, true), (std::vector<std::string>{"slack:D1"}));
  EXPECT_EQ(DeliveryTargets("pulse_reply", json::object(), both, true), (std::vector<std::string>{kTabOnlyTarget}));
  EXPECT_EQ(DeliveryTargets("run_summary", json{{"routine", true}}, both, true),
            (std::vector<std::string>{kTabOnlyTarget}));
  EXPECT_EQ(ReadNotifyConfig(json::parse(R"({"pulse":{"notify":{"slack_channel":"#g","webhook_url":""}}})")).slack_channel, "#g");
}

TEST(Delivery, SlackAnswers) {
  DeliveryAnswer ok = ClassifySlackAnswer(200, R"({"ok":true,"channel":"C1","ts":"1503435956.000247"})", "", "");
  EXPECT_TRUE(ok.delivered);
  EXPECT_EQ(ok.remote_id, "1503435956.000247");
  DeliveryAnswer limited = ClassifySlackAnswer(429, R"({"ok":false,"error":"ratelimited"})", "30", "");
  EXPECT_FALSE(limited.delivered);
  EXPECT_TRUE(limited.retry);
  EXPECT_EQ(limited.retry_after, 30);
  EXPECT_NE(limited.error.find("ratelimited"), std::string::npos);
  DeliveryAnswer missing = ClassifySlackAnswer(200, R"({"ok":false,"error":"channel_not_found"})", "", "");
  EXPECT_FALSE(missing.retry);
  EXPECT_NE(missing.error.find("channel_not_found"), std::string::npos);
  DeliveryAnswer auth = ClassifySlackAnswer(200, R"({"ok":false,"error":"invalid_auth"})", "", "");
  EXPECT_FALSE(auth.retry);
  EXPECT_NE(auth.error.find("bot_token"), std::string::npos);
  EXPECT_TRUE(ClassifySlackAnswer(0, "", "", "Connection refused").retry);
  EXPECT_TRUE(ClassifySlackAnswer(503, "", "", "").retry);
  EXPECT_TRUE(ClassifySlackAnswer(200, "<html>", "", "").retry);
  EXPECT_TRUE(ClassifySlackAnswer(200, R"({"ok":false,"error":"internal_error"})", "", "").retry);
}

TEST(Delivery, WebhookAnswers) {
  EXPECT_TRUE(ClassifyWebhookAnswer(204, "", "").delivered);
  EXPECT_TRUE(ClassifyWebhookAnswer(500, "", "").retry);
  EXPECT_TRUE(ClassifyWebhookAnswer(429, "5", "").retry);
  EXPECT_FALSE(ClassifyWebhookAnswer(404, "", "").retry);
  EXPECT_TRUE(ClassifyWebhookAnswer(0, "", "timeout").retry);
}

TEST(Delivery, BackoffDoublesHonoursRetryAfterAndGivesUp) {
  DeliveryAnswer down{false, true, "down", 0, ""};
  EXPECT_EQ(NextAttemptAt(down, 1, 1000), 1000 + 30);
  EXPECT_EQ(NextAttemptAt(down, 2, 1000), 1000 + 60);
  EXPECT_EQ(NextAttemptAt(down, 3, 1000), 1000 + 120);
  DeliveryAnswer limited{false, true, "ratelimited", 600, ""};
  EXPECT_EQ(NextAttemptAt(limited, 1, 1000), 1000 + 600);
  EXPECT_EQ(NextAttemptAt(down, kMaxDeliveryAttempts, 1000), std::nullopt);
  DeliveryAnswer permanent{false, false, "channel_not_found", 0, ""};
  EXPECT_EQ(NextAttemptAt(permanent, 1, 1000), std::nullopt);
  DeliveryAnswer huge{false, true, "x", 0, ""};
  EXPECT_LE(*NextAttemptAt(huge, kMaxDeliveryAttempts - 1, 0), kMaxRetrySeconds);
}

TEST(Delivery, OverallState) {
  Delivery q, d, r, f, n;
  d.state = DeliveryState::kDelivered;
  r.state = DeliveryState::kRetrying;
  f.state = DeliveryState::kFailed;
  n.state = DeliveryState::kNotSent;
  EXPECT_EQ(OverallDeliveryState({d, d}), DeliveryState::kDelivered);
  EXPECT_EQ(OverallDeliveryState({d, q}), DeliveryState::kQueued);
  EXPECT_EQ(OverallDeliveryState({d, r}), DeliveryState::kRetrying);
  EXPECT_EQ(OverallDeliveryState({r, f}), DeliveryState::kFailed);
  EXPECT_EQ(OverallDeliveryState({n}), DeliveryState::kNotSent);
  EXPECT_EQ(ParseDeliveryState("retrying"), DeliveryState::kRetrying);
  EXPECT_EQ(ParseDeliveryState("bogus"), std::nullopt);
}

}  // namespace
}  // namespace pulse
