// The one argument reader of the API edge (core/api/args.cc): every reader's
// wording, absent and null alike, whole numbers however JSON spells them,
// bounds named with the value, decision ids as numbers or digits.
#include "core/api/args.h"

#include <gtest/gtest.h>

#include "core/base/time_util.h"

namespace pulse {
namespace {

using nlohmann::json;

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
  EXPECT_EQ(a.Id("id", &id).message(), "some.method: \"id\" must be a whole number from 1: 2.5 is not a decision id");
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

TEST(ApiArgs, RequiredStringsAndTextNameTheKeyAndTheProblem) {
  json doc = {{"name", "growth"}, {"blank", " \t\n"}, {"n", 3}, {"gone", nullptr}};
  Args a("goal.observe", doc);
  std::string s;
  EXPECT_TRUE(a.String("name", &s).ok());
  EXPECT_EQ(s, "growth");
  EXPECT_EQ(a.String("missing", &s).message(), "goal.observe: \"missing\" is required");
  EXPECT_EQ(a.String("gone", &s).message(), "goal.observe: \"gone\" is required") << "null is absent";
  EXPECT_EQ(a.String("n", &s).message(), "goal.observe: \"n\" must be a string");
  EXPECT_TRUE(a.String("blank", &s).ok()) << "String takes blanks";
  EXPECT_EQ(a.Text("blank", &s).message(), "goal.observe: \"blank\" is empty");
  EXPECT_EQ(a.Text("blank", &s).code(), Code::kInvalidArgument);
  EXPECT_EQ(a.Fail("metric and value go together").message(), "goal.observe: metric and value go together");
  EXPECT_EQ(a.where(), "goal.observe");
}

TEST(ApiArgs, OptionalReadersLeaveTheOutputAloneWhenAbsent) {
  json doc = {{"flag", "yes"}, {"note", "hi"}, {"none", nullptr}};
  Args a("x", doc);
  std::string s = "kept";
  EXPECT_TRUE(a.OptString("none", &s).ok());
  EXPECT_EQ(s, "kept");
  std::optional<std::string> o;
  EXPECT_TRUE(a.OptString("note", &o).ok());
  EXPECT_EQ(o, "hi");
  bool b = true;
  EXPECT_TRUE(a.OptBool("absent", &b).ok());
  EXPECT_TRUE(b);
  EXPECT_EQ(a.OptBool("flag", &b).message(), "x: \"flag\" must be true or false");
  std::vector<std::string> list = {"kept"};
  EXPECT_TRUE(a.OptStringList("absent", &list).ok());
  EXPECT_EQ(list, std::vector<std::string>{"kept"});
  json obj = json::object();
  EXPECT_TRUE(a.OptObject("absent", &obj).ok());
  EXPECT_EQ(a.Object("absent", &obj).message(), "x: \"absent\" is required");
  EXPECT_EQ(a.Object("note", &obj).message(), "x: \"note\" must be a JSON object");
}

TEST(ApiArgs, WholeNumbersInTheirBounds) {
  json doc = {{"i", 7}, {"f", 7.0}, {"half", 7.5}, {"text", "7"}, {"big", 1e300}, {"u", 18446744073709551615ull}};
  Args a("agent_log.show", doc);
  int64_t n = 0;
  EXPECT_TRUE(a.Int("i", 0, 10, &n).ok());
  EXPECT_EQ(n, 7);
  n = 0;
  EXPECT_TRUE(a.Int("f", 0, 10, &n).ok()) << "7.0 is a whole number";
  EXPECT_EQ(n, 7);
  for (const char* key : {"half", "text", "big"}) {
    EXPECT_EQ(a.Int(key, 0, 10, &n).message(), std::string("agent_log.show: \"") + key + "\" must be a whole number");
  }
  EXPECT_EQ(a.Int("i", 8, 10, &n).message(), "agent_log.show: \"i\" must be between 8 and 10, not 7");
  EXPECT_EQ(a.Int("u", 0, 10, &n).message(),
            "agent_log.show: \"u\" must be between 0 and 10, not 18446744073709551615");
  std::optional<int64_t> opt;
  EXPECT_TRUE(a.OptInt("absent", 0, 10, &opt).ok());
  EXPECT_FALSE(opt.has_value());
  int small = 3;
  EXPECT_TRUE(a.OptInt("absent", 0, 10, &small).ok());
  EXPECT_EQ(small, 3);
  EXPECT_TRUE(a.OptInt("i", 0, 10, &small).ok());
  EXPECT_EQ(small, 7);
}

TEST(ApiArgs, NumbersTimesAndDecisionIds) {
  json doc = {{"value", 380.5}, {"word", "many"}, {"at", "2026-10-07T09:00:00Z"}, {"bad_at", "yesterday"},
              {"empty_at", ""}, {"id", 12}, {"digits", "12"}, {"neg_text", "-1"}, {"float_id", 12.0},
              {"neg", -3}, {"zero", 0}, {"zero_text", "000"}};
  Args a("goal.observe", doc);
  double d = 0;
  EXPECT_TRUE(a.Number("value", &d).ok());
  EXPECT_EQ(d, 380.5);
  EXPECT_EQ(a.Number("word", &d).message(), "goal.observe: \"word\" must be a number");
  std::optional<int64_t> t;
  EXPECT_TRUE(a.OptTime("at", &t).ok());
  EXPECT_EQ(t, *ParseTime("2026-10-07T09:00:00Z"));
  std::optional<int64_t> none;
  EXPECT_TRUE(a.OptTime("empty_at", &none).ok());
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(a.OptTime("bad_at", &none).message(),
            "goal.observe: \"bad_at\" is not an RFC 3339 time in the format: 2026-10-07T09:00:00Z (got \"yesterday\")");
  int64_t id = 0;
  EXPECT_TRUE(a.Id("id", &id).ok());
  EXPECT_EQ(id, 12);
  id = 0;
  EXPECT_TRUE(a.Id("digits", &id).ok());
  EXPECT_EQ(id, 12);
  EXPECT_EQ(a.Id("neg_text", &id).message(), "goal.observe: \"neg_text\" must be a whole number from 1: \"-1\" is not a decision id");
  // Decision ids are rowids from 1: a negative or zero id is refused, not looked up.
  EXPECT_EQ(a.Id("neg", &id).message(), "goal.observe: \"neg\" must be a whole number from 1: -3 is not a decision id");
  EXPECT_EQ(a.Id("zero", &id).message(), "goal.observe: \"zero\" must be a whole number from 1: 0 is not a decision id");
  EXPECT_EQ(a.Id("zero_text", &id).message(),
            "goal.observe: \"zero_text\" must be a whole number from 1: \"000\" is not a decision id");
  EXPECT_EQ(a.Id("float_id", &id).message(), "goal.observe: \"float_id\" must be a whole number from 1: 12.0 is not a decision id");
  EXPECT_EQ(a.Id("missing", &id).message(), "goal.observe: \"missing\" is required");
}

TEST(ApiArgs, AListOfStringsOnlyAndANonObjectDocumentReadsAsEmpty) {
  json doc = {{"options", {"a", "b"}}, {"mixed", {"a", 1}}, {"one", "a"}};
  Args a("decision.create", doc);
  std::vector<std::string> list;
  EXPECT_TRUE(a.OptStringList("options", &list).ok());
  EXPECT_EQ(list, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(a.OptStringList("mixed", &list).message(), "decision.create: \"mixed\" must be a list of strings");
  EXPECT_EQ(list, (std::vector<std::string>{"a", "b"})) << "a bad list leaves the output";
  EXPECT_EQ(a.OptStringList("one", &list).message(), "decision.create: \"one\" must be a list of strings");

  json not_object = json::array({1, 2});
  Args b("x", not_object);
  EXPECT_TRUE(b.doc().is_object());
  EXPECT_FALSE(b.Has("0"));
  EXPECT_EQ(b.Find("anything"), nullptr);
}

}  // namespace
}  // namespace pulse
