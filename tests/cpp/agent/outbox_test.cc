// The outbox: messages Pulse sends are stored first, listed oldest first, and
// each delivery attempt is recorded, so undelivered ones are retried.
#include <gtest/gtest.h>

#include "core/api/api.h"
#include "agent/tools/agent_api.h"
#include "agent/outbox/outbox.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::TempDir;

struct Fixture {
  TempDir dir;
  std::unique_ptr<Db> db;
  FixedClockEnv env{DefaultEnv(), T("2026-10-07T12:00:00Z")};
  ApiContext ctx;
  Fixture() {
    auto opened = Db::Open(dir.Join("db.sqlite"));
    EXPECT_TRUE(opened.ok());
    db = std::move(opened).value();
    EXPECT_TRUE(EnsureSchema(*db).ok());
    ctx.db = db.get();
    ctx.env = &env;
    ctx.workflow = "substack";
    ctx.api = &ServerApi();
  }
};

TEST(Outbox, StoresListsAndMarksDelivery) {
  Fixture f;
  auto a = CallApi(f.ctx, "outbox.add",
                   json{{"kind", "pulse_summary"}, {"title", "Substack Pulse: not measured"},
                        {"text", "not measured by a workflow run for 20 days"}, {"pulse_run_id", "pr-1"},
                        {"payload", {{"status", "not_measured"}}}});
  ASSERT_TRUE(a.ok()) << a.status().message();
  f.env.Advance(60);
  auto b = CallApi(f.ctx, "outbox.add", json{{"kind", "pulse_reply"}, {"text", "hello"}});
  ASSERT_TRUE(b.ok());
  EXPECT_GT((*b)["id"].get<int64_t>(), (*a)["id"].get<int64_t>());

  auto all = CallApi(f.ctx, "outbox.list", json::object());
  ASSERT_TRUE(all.ok());
  ASSERT_EQ((*all)["messages"].size(), 2u);
  const json& first = (*all)["messages"][0];
  EXPECT_EQ(first["kind"], "pulse_summary");
  EXPECT_EQ(first["created_at"], "2026-10-07T12:00:00Z");
  EXPECT_EQ(first["payload"]["status"], "not_measured");
  EXPECT_EQ(first["pulse_run_id"], "pr-1");
  EXPECT_EQ(first["delivered_at"], "");

  auto failed = CallApi(f.ctx, "outbox.mark", json{{"id", first["id"]}, {"delivered", false}, {"error", "HTTP 500"}});
  ASSERT_TRUE(failed.ok());
  auto undelivered = CallApi(f.ctx, "outbox.list", json{{"undelivered", true}});
  ASSERT_EQ((*undelivered)["messages"].size(), 2u);
  EXPECT_EQ((*undelivered)["messages"][0]["delivery_error"], "HTTP 500");
  EXPECT_EQ((*undelivered)["messages"][0]["attempts"], 1);
  // Tried once already: a cap of one attempt leaves only the untried message.
  auto capped = CallApi(f.ctx, "outbox.list", json{{"undelivered", true}, {"max_attempts", 1}});
  ASSERT_EQ((*capped)["messages"].size(), 1u);
  EXPECT_EQ((*capped)["messages"][0]["kind"], "pulse_reply");

  ASSERT_TRUE(CallApi(f.ctx, "outbox.mark", json{{"id", first["id"]}, {"delivered", true}}).ok());
  undelivered = CallApi(f.ctx, "outbox.list", json{{"undelivered", true}});
  ASSERT_EQ((*undelivered)["messages"].size(), 1u);
  auto only = CallApi(f.ctx, "outbox.list", json{{"kind", "pulse_summary"}});
  ASSERT_EQ((*only)["messages"].size(), 1u);
  EXPECT_EQ((*only)["messages"][0]["delivered_at"], "2026-10-07T12:01:00Z");
  EXPECT_EQ((*only)["messages"][0]["delivery_error"], "");
}

TEST(Outbox, RejectsBadInput) {
  Fixture f;
  EXPECT_EQ(CallApi(f.ctx, "outbox.add", json{{"text", "x"}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(CallApi(f.ctx, "outbox.add", json{{"kind", "pulse_summary"}, {"text", ""}}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(CallApi(f.ctx, "outbox.add", json{{"kind", "k"}, {"text", "t"}, {"payload", "x"}}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(CallApi(f.ctx, "outbox.mark", json{{"id", 99}, {"delivered", true}}).status().code(), Code::kNotFound);
  EXPECT_EQ(CallApi(f.ctx, "outbox.list", json{{"limit", 0}}).status().code(), Code::kInvalidArgument);
  auto all = CallApi(f.ctx, "outbox.list", json::object());
  EXPECT_EQ((*all)["messages"].size(), 0u);
}

TEST(Outbox, ListKeepsTheNewestWithinTheLimitOldestFirst) {
  Fixture f;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(CallApi(f.ctx, "outbox.add", json{{"kind", "k"}, {"text", "m" + std::to_string(i)}}).ok());
  }
  auto two = CallApi(f.ctx, "outbox.list", json{{"limit", 2}});
  ASSERT_EQ((*two)["messages"].size(), 2u);
  EXPECT_EQ((*two)["messages"][0]["text"], "m3");
  EXPECT_EQ((*two)["messages"][1]["text"], "m4");
}

// Each target has its own delivery: planned once, tried when due, retried
// with backoff, given up with the reason, and summed up on the message.
TEST(Outbox, DeliveriesPerTargetWithBackoff) {
  Fixture f;
  OutboxMessage m;
  m.kind = "pulse_summary";
  m.title = "Substack Pulse: not measured";
  m.text = "not measured by a workflow run for 20 days";
  auto id = AddOutboxMessage(*f.db, m, f.env.NowSeconds());
  ASSERT_TRUE(id.ok());
  auto fresh = UnplannedOutbox(*f.db, 10);
  ASSERT_TRUE(fresh.ok());
  ASSERT_EQ(fresh->size(), 1u);
  ASSERT_TRUE(PlanDeliveries(*f.db, *id, {"webhook", "slack:#growth"}, f.env.NowSeconds()).ok());
  EXPECT_EQ(UnplannedOutbox(*f.db, 10)->size(), 0u);
  auto due = DueDeliveries(*f.db, f.env.NowSeconds(), 10);
  ASSERT_TRUE(due.ok());
  ASSERT_EQ(due->size(), 2u);

  const int64_t t0 = f.env.NowSeconds();
  ASSERT_TRUE(RecordDeliveryAttempt(*f.db, *id, "webhook", DeliveryAnswer{true, false, "", 0, ""}, t0).ok());
  DeliveryAnswer limited = ClassifySlackAnswer(429, R"({"ok":false,"error":"ratelimited"})", "120", "");
  ASSERT_TRUE(RecordDeliveryAttempt(*f.db, *id, "slack:#growth", limited, t0).ok());
  auto listed = CallApi(f.ctx, "outbox.list", json::object());
  ASSERT_TRUE(listed.ok());
  const json& msg = (*listed)["messages"][0];
  EXPECT_EQ(msg["delivery"], "retrying");
  EXPECT_EQ(msg["delivered_at"], "");
  ASSERT_EQ(msg["deliveries"].size(), 2u);
  EXPECT_EQ(msg["deliveries"][0]["state"], "delivered");
  EXPECT_EQ(msg["deliveries"][1]["state"], "retrying");
  EXPECT_EQ(msg["deliveries"][1]["next_attempt_at"], FormatTime(t0 + 120));
  EXPECT_NE(msg["deliveries"][1]["error"].get<std::string>().find("ratelimited"), std::string::npos);
  // Not due before its time; due after.
  EXPECT_EQ(DueDeliveries(*f.db, t0 + 60, 10)->size(), 0u);
  EXPECT_EQ(*NextRetryAt(*f.db), t0 + 120);
  ASSERT_EQ(DueDeliveries(*f.db, t0 + 120, 10)->size(), 1u);
  ASSERT_TRUE(RecordDeliveryAttempt(*f.db, *id, "slack:#growth", DeliveryAnswer{true, false, "", 0, "1.5"}, t0 + 121).ok());
  auto done = CallApi(f.ctx, "outbox.list", json::object());
  EXPECT_EQ((*done)["messages"][0]["delivery"], "delivered");
  EXPECT_EQ((*done)["messages"][0]["delivered_at"], FormatTime(t0 + 121));
  EXPECT_EQ((*done)["messages"][0]["deliveries"][1]["remote_id"], "1.5");

  // A permanent error is given up at once, with its reason.
  auto id2 = AddOutboxMessage(*f.db, m, t0);
  ASSERT_TRUE(PlanDeliveries(*f.db, *id2, {"slack:#gone"}, t0).ok());
  DeliveryAnswer gone = ClassifySlackAnswer(200, R"({"ok":false,"error":"channel_not_found"})", "", "");
  ASSERT_TRUE(RecordDeliveryAttempt(*f.db, *id2, "slack:#gone", gone, t0).ok());
  auto failed = CallApi(f.ctx, "outbox.list", json::object());
  EXPECT_EQ((*failed)["messages"][1]["delivery"], "failed");
  EXPECT_NE((*failed)["messages"][1]["delivery_error"].get<std::string>().find("channel_not_found"), std::string::npos);
  EXPECT_EQ(DueDeliveries(*f.db, t0 + 86400, 10)->size(), 0u);
  EXPECT_EQ(RecordDeliveryAttempt(*f.db, *id2, "webhook", gone, t0).code(), Code::kNotFound);

  // Kept in the tab: not_sent, never due.
  auto id3 = AddOutboxMessage(*f.db, m, t0);
  ASSERT_TRUE(PlanDeliveries(*f.db, *id3, {kTabOnlyTarget}, t0).ok());
  auto tab = CallApi(f.ctx, "outbox.list", json::object());
  EXPECT_EQ((*tab)["messages"][2]["delivery"], "not_sent");
  EXPECT_EQ(DueDeliveries(*f.db, t0 + 86400, 10)->size(), 0u);
}

}  // namespace
}  // namespace pulse
