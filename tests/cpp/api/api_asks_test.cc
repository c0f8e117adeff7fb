// ask.list at the API edge (core/api/asks.cc) on a real workflow database:
// both directions newest first, one direction by name, and a bad direction
// or limit refused naming it.
#include "core/api/api.h"

#include "core/asks/asks.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

TEST(ApiAsks, ListsBothDirectionsNewestFirstOrOneByName) {
  Workflow wf;
  Asks asks(*wf.ctx.db, wf.ctx.workflow);
  NewAskPulse ask{"builder", "b-1", "ana", "Should growth_funnel record subscribers?", "", false};
  Result<AskRecord> to_pulse = asks.OpenAskPulse(ask, wf.env.NowSeconds());
  ASSERT_TRUE(to_pulse.ok()) << to_pulse.status().message();
  Result<AskRecord> to_builder =
      asks.OpenAskBuilder("p-1", "question", "Which step writes subscribers?", json::object(), wf.env.NowSeconds() + 1);
  ASSERT_TRUE(to_builder.ok()) << to_builder.status().message();

  json all = wf.Call("ask.list", json::object());
  ASSERT_EQ(all["asks"].size(), 2u);
  EXPECT_EQ(all["asks"][0]["call_id"], to_builder->call_id);
  EXPECT_EQ(all["asks"][1]["call_id"], to_pulse->call_id);
  EXPECT_EQ(all["asks"][1]["thread_id"], to_pulse->thread_id);
  json pulse_only = wf.Call("ask.list", {{"direction", "ask_pulse"}});
  ASSERT_EQ(pulse_only["asks"].size(), 1u);
  EXPECT_EQ(pulse_only["asks"][0]["call_id"], to_pulse->call_id);
  EXPECT_EQ(wf.Call("ask.list", {{"direction", "ask_builder"}})["asks"].size(), 1u);
  EXPECT_EQ(wf.Call("ask.list", {{"limit", 1}})["asks"].size(), 1u);
}

TEST(ApiAsks, ABadDirectionOrLimitIsRefusedNamingIt) {
  Workflow wf;
  Result<json> dir = CallApi(wf.ctx, "ask.list", {{"direction", "sideways"}});
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().message(), "ask.list: \"direction\" must be ask_pulse or ask_builder, not \"sideways\"");
  Result<json> limit = CallApi(wf.ctx, "ask.list", {{"limit", 0}});
  ASSERT_FALSE(limit.ok());
  EXPECT_EQ(limit.status().message(), "ask.list: \"limit\" must be between 1 and 1000, not 0");
  EXPECT_EQ(CoreApi().AccessFor("ask.list", json::object()), Access::kRead);
  EXPECT_TRUE(wf.Call("ask.list", json::object())["asks"].empty());
}

}  // namespace
}  // namespace pulse
