// The tool catalog the guard classes calls by: canonical names once each,
// aliases onto catalogued names, and the one normalisation every spelling of
// a name goes through.
#include "core/autonomy/tool_catalog.h"

#include <gtest/gtest.h>

#include <set>

namespace pulse {
namespace {

TEST(ToolCatalog, NamesAreCanonicalAndListedOnceWithANote) {
  std::set<std::string> names;
  for (const ToolEntry& e : ToolCatalog()) {
    EXPECT_EQ(NormalizeToolName(e.name), e.name);
    EXPECT_TRUE(names.insert(e.name).second) << e.name << " twice";
    EXPECT_NE(std::string(e.note), "") << e.name;
    EXPECT_NE(std::string(ToolClassName(e.cls)), "") << e.name;
  }
  for (const ToolAlias& a : ToolAliases()) {
    EXPECT_EQ(names.count(a.alias), 0u) << a.alias << " is both an alias and a catalogued name";
    EXPECT_EQ(names.count(a.name), 1u) << a.alias << " points at " << a.name << ", not in the catalog";
  }
}

TEST(ToolCatalog, EverySpellingNormalisesToOneName) {
  EXPECT_EQ(NormalizeToolName("  Update-Step "), "update_step");
  EXPECT_EQ(NormalizeToolName("updateStep"), "update_step");
  std::string ns = "unset";
  EXPECT_EQ(NormalizeToolName("mcp__platform__update_step", &ns), "update_step");
  EXPECT_EQ(ns, "");
  EXPECT_EQ(NormalizeToolName("mcp__github__create_issue", &ns), "create_issue");
  EXPECT_EQ(ns, "github");
}

TEST(ToolCatalog, LookupResolvesAliasesAndLeavesTheUnknownUnclassified) {
  ToolLookup step = LookupTool("Update-Step");
  ASSERT_NE(step.entry, nullptr);
  EXPECT_EQ(step.normalized, "update_step");
  EXPECT_EQ(step.entry->cls, ToolClass::kChange);

  ToolLookup alias = LookupTool("run_step");
  ASSERT_NE(alias.entry, nullptr);
  EXPECT_EQ(alias.normalized, "execute_step");

  ToolLookup gog = LookupTool("gog");
  ASSERT_NE(gog.entry, nullptr);
  EXPECT_EQ(gog.entry->check, ArgCheck::kGoogleCli);

  ToolLookup unknown = LookupTool("mcp__github__create_issue");
  EXPECT_EQ(unknown.entry, nullptr);
  EXPECT_EQ(unknown.normalized, "create_issue");
  EXPECT_EQ(unknown.name_space, "github");
}

}  // namespace
}  // namespace pulse
