// The API edge: each method's access as registered, and the one argument
// reader's wording.
#include "core/api/api.h"

#include <gtest/gtest.h>

#include "agent/agent_api.h"

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

TEST(ApiArgs, OneWordingForEveryMethod) {
  json doc = {{"n", "x"}, {"s", 3}, {"t", "yesterday"}, {"id", 2.5}, {"list", {"a", 1}}, {"blank", "  "}};
  Args a("some.method", doc);
  std::string s;
  EXPECT_EQ(a.String("missing", &s).message(), "some.method: \"missing\" is required");
  EXPECT_EQ(a.String("s", &s).message(), "some.method: \"s\" must be a string");
  EXPECT_EQ(a.Text("blank", &s).message(), "some.method: \"blank\" is empty");
  bool b = false;
  EXPECT_EQ(a.OptBool("n", &b).message(), "some.method: \"n\" must be true or false");
  int n = 0;
  EXPECT_EQ(a.OptInt("n", 0, 10, &n).message(), "some.method: \"n\" must be a whole number");
  EXPECT_EQ(a.OptInt("s", 5, 10, &n).message(), "some.method: \"s\" must be between 5 and 10, not 3");
  std::optional<int64_t> t;
  EXPECT_EQ(a.OptTime("t", &t).message(),
            "some.method: \"t\" is not an RFC 3339 time in the format: 2026-10-07T09:00:00Z (got \"yesterday\")");
  int64_t id = 0;
  EXPECT_EQ(a.Id("id", &id).message(), "some.method: \"id\" must be a whole number: 2.5 is not a decision id");
  std::vector<std::string> list;
  EXPECT_EQ(a.OptStringList("list", &list).message(), "some.method: \"list\" must be a list of strings");
  // Absent and null are the same; optional readers leave the output alone.
  s = "kept";
  EXPECT_TRUE(a.OptString("missing", &s).ok());
  EXPECT_EQ(s, "kept");
}

TEST(ApiArgs, ReadsWhatIsThere) {
  json doc = {{"s", "x"}, {"n", 7}, {"f", 7.0}, {"id", "42"}, {"t", "2026-10-07T09:00:00Z"}, {"null", nullptr}};
  Args a("m", doc);
  std::string s;
  ASSERT_TRUE(a.String("s", &s).ok());
  EXPECT_EQ(s, "x");
  int64_t n = 0;
  ASSERT_TRUE(a.Int("n", 0, 10, &n).ok());
  EXPECT_EQ(n, 7);
  ASSERT_TRUE(a.Int("f", 0, 10, &n).ok());
  EXPECT_EQ(n, 7);
  ASSERT_TRUE(a.Id("id", &n).ok());
  EXPECT_EQ(n, 42);
  std::optional<int64_t> t;
  ASSERT_TRUE(a.OptTime("t", &t).ok());
  EXPECT_TRUE(t.has_value());
  EXPECT_FALSE(a.Has("null"));
  EXPECT_EQ(a.String("null", &s).message(), "m: \"null\" is required");
}

TEST(ApiErrors, OneShapeAtEveryEdge) {
  json e = ErrorToJson(Status::NotFound("no such thing"));
  EXPECT_EQ(e, (json{{"error", "no such thing"}, {"code", "not_found"}}));
}

}  // namespace
}  // namespace pulse
