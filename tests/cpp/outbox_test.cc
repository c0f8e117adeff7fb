// The outbox: messages Pulse sends are stored first, listed oldest first, and
// each delivery attempt is recorded, so undelivered ones are retried.
#include <gtest/gtest.h>

#include "core/api/api.h"
#include "agent/agent_api.h"
#include "agent/outbox.h"
#include "core/schema.h"
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

}  // namespace
}  // namespace pulse
