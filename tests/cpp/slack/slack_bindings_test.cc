// Slack bindings live in the workflow database: a thread bound once stays
// bound after the database is opened again, and a message is taken in once.
#include <gtest/gtest.h>

#include "core/store/schema.h"
#include "core/slack/slack_bindings.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::TempDir;

SlackMessage Msg(const std::string& ts, const std::string& thread, const std::string& text) {
  SlackMessage m;
  m.event_type = "message";
  m.team = "T1";
  m.channel = "C1";
  m.channel_type = "channel";
  m.user = "U1";
  m.text = text;
  m.ts = ts;
  m.thread_ts = thread;
  return m;
}

TEST(SlackBindings, SurviveReopeningAndReplayTheThread) {
  TempDir dir;
  const int64_t now = T("2026-10-07T12:00:00Z");
  {
    auto db = Db::Open(dir.Join("db.sqlite"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(EnsureSchema(**db).ok());
    SlackStore store(**db);
    SlackMessage first = Msg("100.1", "", "substack-pulse how are we?");
    ASSERT_TRUE(store.Bind(SlackBinding{"T1", "C1", first.BindingThread(), "ana", false, now}, now).ok());
    auto taken = store.RecordIncoming("Ev1", first, "ana", now);
    ASSERT_TRUE(taken.ok());
    EXPECT_TRUE(*taken);
    ASSERT_TRUE(store.RecordOutgoing("T1", "C1", "100.1", "Substack Pulse", "not measured for 20 days", now + 5).ok());
  }
  auto db = Db::Open(dir.Join("db.sqlite"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(EnsureSchema(**db).ok());
  SlackStore store(**db);
  auto bound = store.FindBinding("T1", "C1", "100.1");
  ASSERT_TRUE(bound.ok());
  ASSERT_TRUE(bound->has_value());
  EXPECT_EQ((*bound)->bound_by, "ana");
  EXPECT_FALSE(store.FindBinding("T1", "C1", "999.9")->has_value());

  // A retry of the same event, and the same message as app_mention, are not taken twice.
  EXPECT_FALSE(*store.RecordIncoming("Ev1", Msg("100.1", "", "x"), "ana", now));
  EXPECT_FALSE(*store.RecordIncoming("Ev9", Msg("100.1", "", "x"), "ana", now));
  SlackMessage reply = Msg("101.1", "100.1", "and the runs?");
  EXPECT_TRUE(*store.RecordIncoming("Ev2", reply, "ana", now + 60));
  auto lines = store.ThreadLines("T1", "C1", reply.BindingThread(), reply.ts, 10);
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->size(), 2u);
  EXPECT_EQ((*lines)[0].who, "ana");
  EXPECT_EQ((*lines)[0].text, "substack-pulse how are we?");
  EXPECT_EQ((*lines)[1].who, "Substack Pulse");

  ASSERT_TRUE(store.Unbind("T1", "C1", "100.1").ok());
  EXPECT_FALSE(store.FindBinding("T1", "C1", "100.1")->has_value());
}

}  // namespace
}  // namespace pulse
