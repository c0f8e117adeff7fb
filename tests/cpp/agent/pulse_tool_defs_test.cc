// The tool descriptors an agent is offered (agent/tools/pulse_tool_defs.cc): each
// of Pulse's own tools with an input schema that holds together, the limits
// the descriptions promise equal to the core's, and the whole catalog
// offered once each, never narrowed.
#include <set>

#include <gtest/gtest.h>

#include "agent/tools/pulse_tools.h"
#include "core/asks/asks.h"
#include "core/focus_areas/focus_areas.h"
#include "core/goal/goal_check.h"
#include "core/goal/goal_memory.h"
#include "core/autonomy/tool_catalog.h"

namespace pulse {
namespace {

using nlohmann::json;

const json& Def(const std::string& name) {
  for (const json& t : CatalogToolDefinitions()) {
    if (t["name"] == name) return t;
  }
  static const json kNone;
  ADD_FAILURE() << name << " is not offered";
  return kNone;
}

bool Says(const json& def, const std::string& words) {
  return def["description"].get<std::string>().find(words) != std::string::npos;
}

TEST(PulseToolDefs, EachOwnToolsSchemaIsAClosedObjectWhoseRequiredKeysItDescribes) {
  for (const json& t : PulseToolDefinitions()) {
    const std::string name = t["name"];
    EXPECT_TRUE(IsPulseTool(name)) << name;
    EXPECT_FALSE(t["title"].get<std::string>().empty()) << name;
    const json& schema = t["inputSchema"];
    EXPECT_EQ(schema["type"], "object") << name;
    EXPECT_EQ(schema["additionalProperties"], false) << name;
    ASSERT_TRUE(schema["properties"].is_object()) << name;
    for (const json& key : schema.value("required", json::array())) {
      EXPECT_TRUE(schema["properties"].contains(key.get<std::string>())) << name << " requires " << key;
    }
    for (auto& [key, prop] : schema["properties"].items()) {
      EXPECT_TRUE(prop.contains("type")) << name << "." << key;
    }
  }
}

TEST(PulseToolDefs, TheDescriptionsPromiseTheCoresLimits) {
  const json& memory = Def("record_pulse_goal_memory");
  EXPECT_TRUE(Says(memory, "at most " + std::to_string(kGoalMemoryMaxEntries) + " entries"));
  EXPECT_TRUE(Says(memory, "passes " + std::to_string(kGoalMemoryConsolidatePast) + " entries"));
  const json& focus = Def("record_pulse_focus_area");
  EXPECT_EQ(kMaxOpenFocusAreas, 3);
  EXPECT_TRUE(Says(focus, "at most three are open"));
  EXPECT_TRUE(Says(focus, "default " + std::to_string(kDefaultFocusDays) + " days"));

  json verdicts = json::array();
  for (GoalStatus s : {GoalStatus::kOnTrack, GoalStatus::kAtRisk, GoalStatus::kOffTrack, GoalStatus::kNotMeasured,
                       GoalStatus::kNoGoal}) {
    verdicts.push_back(GoalStatusName(s));
  }
  EXPECT_EQ(Def("record_pulse_goal_check")["inputSchema"]["properties"]["verdict"]["enum"], verdicts);

  const json& ask = Def("ask_pulse");
  EXPECT_EQ(ask["inputSchema"]["properties"]["wait_seconds"]["maximum"], kAskWaitMax);
  EXPECT_TRUE(Says(ask, "a thread of at most " + std::to_string(kThreadMaxRounds)));
  EXPECT_TRUE(Says(ask, "default " + std::to_string(kAskPulseWaitDefault) + ", at most " + std::to_string(kAskWaitMax)));
  EXPECT_TRUE(Says(ask, std::to_string(kAsksPerHour) + " rounds per workflow per hour"));
}

TEST(PulseToolDefs, TheCatalogOffersEveryKnownToolOncePulsesOwnFirst) {
  const json& all = CatalogToolDefinitions();
  const json& own = PulseToolDefinitions();
  ASSERT_GE(all.size(), own.size());
  for (size_t i = 0; i < own.size(); ++i) EXPECT_EQ(all[i], own[i]);
  std::set<std::string> names;
  for (const json& t : all) EXPECT_TRUE(names.insert(t["name"].get<std::string>()).second) << t["name"] << " twice";
  for (const ToolEntry& e : ToolCatalog()) EXPECT_TRUE(names.count(e.name)) << e.name << " is not offered";
  EXPECT_EQ(names.size(), ToolCatalog().size());

  for (const ToolEntry& e : ToolCatalog()) {
    const json& d = Def(e.name);
    if (IsPulseTool(e.name) || std::string(e.name) == "ask_pulse") continue;
    EXPECT_EQ(d["inputSchema"]["additionalProperties"], true) << e.name;
    EXPECT_TRUE(Says(d, std::string(e.note) + " (" + ToolClassName(e.cls) + "; a platform tool")) << e.name;
  }
  EXPECT_EQ(Def("ask_pulse")["inputSchema"]["additionalProperties"], false);
}

}  // namespace
}  // namespace pulse
