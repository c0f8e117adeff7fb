// The API edge: each method's access as registered, and the one error
// document every edge sends (the argument reader: api_args_test).
#include "core/api/api.h"

#include <gtest/gtest.h>

#include "agent/tools/agent_api.h"

namespace pulse {
namespace {

using nlohmann::json;

bool IsRead(const char* method, const json& args) { return ServerApi().AccessFor(method, args) == Access::kRead; }
bool IsServerOnly(const char* method) { return ServerApi().AccessFor(method, json::object()) == Access::kServer; }

TEST(ApiAccess, ReadsAreNamedAndEverythingElseIsAWrite) {
  EXPECT_TRUE(IsRead("goal.check", json::object()));
  EXPECT_TRUE(IsRead("goal.check", json{{"record", false}}));
  EXPECT_FALSE(IsRead("goal.check", json{{"record", true}}));
  EXPECT_FALSE(IsRead("goal.check", json{{"record", "yes"}}));
  EXPECT_TRUE(IsRead("memory.show", json::object()));
  EXPECT_TRUE(IsRead("decision.list", json{{"status", "all"}}));
  EXPECT_FALSE(IsRead("decision.answer", json::object()));
  EXPECT_FALSE(IsRead("memory.save", json::object()));
  EXPECT_FALSE(IsRead("goal.observe", json::object()));
  EXPECT_FALSE(IsRead("some.future_method", json::object()));
  EXPECT_TRUE(IsServerOnly("session.open"));
  EXPECT_TRUE(IsServerOnly("pulse.tool_call"));
  EXPECT_TRUE(IsServerOnly("agent_log.started"));
  EXPECT_FALSE(IsServerOnly("decision.answer"));
  EXPECT_FALSE(IsServerOnly("goal.readings"));
}

TEST(ApiAccess, TheCoreTableIsTheServerTableWithoutTheAgent) {
  for (const ApiMethod& m : CoreApi().methods()) EXPECT_NE(ServerApi().Find(m.name), nullptr) << m.name;
  EXPECT_EQ(CoreApi().Find("turn.rules"), nullptr);
  EXPECT_EQ(CoreApi().Find("outbox.add"), nullptr);
  EXPECT_NE(ServerApi().Find("turn.rules"), nullptr);
}

TEST(ApiErrors, OneShapeAtEveryEdge) {
  json e = ErrorToJson(Status::NotFound("no such thing"));
  EXPECT_EQ(e, (json{{"error", "no such thing"}, {"code", "not_found"}}));
}

}  // namespace
}  // namespace pulse
