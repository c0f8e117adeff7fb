#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/autonomy/confusables.h"
#include "core/autonomy/tool_catalog.h"

namespace pulse {
namespace {

TEST(Confusables, FoldsLookAlikesToLatinAndDropsInvisibles) {
  std::vector<std::pair<std::string, std::string>> table = {
      {"delete_step", "delete_step"},
      {"d\xd0\xb5l\xd0\xb5t\xd0\xb5", "delete"},                    // Cyrillic e
      {"\xd0\xa0\xd0\x90\xd0\xa1\xd0\x95", "PACE"},                  // Cyrillic capitals
      {"\xce\xbf\xcf\x81", "op"},                                    // Greek omicron, rho
      {"a\xe2\x80\x8b" "b\xe2\x80\x8c" "c\xe2\x80\x8d" "d\xef\xbb\xbf" "e", "abcde"},  // zero-width, BOM
      {"de\xc2\xad" "lete", "delete"},                               // soft hyphen
      {"\xef\xbd\x84\xef\xbd\x85\xef\xbc\xbf\xef\xbc\x91", "de_1"},  // fullwidth
      {"\xf0\x9d\x90\x9a\xf0\x9d\x90\x9b", "ab"},                    // mathematical bold a, b
      {"\xf0\x9d\x9f\x8e\xf0\x9d\x9f\x97", "09"},                    // mathematical bold digits
      {"a\xc2\xa0" "b\xe3\x80\x80" "c", "a b c"},                    // no-break, ideographic space
      {"a\xe2\x80\x94" "b\xe2\x88\x92" "c", "a-b-c"},                // em dash, minus
      {"e\xcc\x81", "e"},                                            // combining acute
      {"\xc3\xa9t\xc3\xa9", "ete"},                                   // accents dropped (NFKD, Unicode's table)
      {"\xe1\xb4\x85\xe2\x85\xbe", "dd"},                             // small capital D, small roman numeral 500
      {"\xc7\x89", "lj"},                                              // ǉ: one character, two letters
      {"\xe4\xb8\xad\xe6\x96\x87", "\xe4\xb8\xad\xe6\x96\x87"},      // other scripts pass
      {"\xff\xfe" "a\xe2\x80", "\xff\xfe" "a\xe2\x80"},              // invalid bytes pass unchanged
  };
  for (const auto& [in, want] : table) EXPECT_EQ(FoldConfusables(in), want) << in;
}

TEST(Confusables, ToolNamesNormaliseThroughTheTable) {
  EXPECT_EQ(NormalizeToolName("d\xd0\xb5lete_st\xd0\xb5p"), "delete_step");
  EXPECT_EQ(NormalizeToolName("\xef\xbd\x95\xef\xbd\x90\xef\xbd\x84\xef\xbd\x81\xef\xbd\x94\xef\xbd\x85_step"), "update_step");
  EXPECT_EQ(NormalizeToolName("upd\xe2\x80\x8b" "ate\xe2\x80\x90step"), "update_step");
  EXPECT_EQ(NormalizeToolName("mcp__pulse__record_pulse_goal_check"), "record_pulse_goal_check");
  std::string ns;
  EXPECT_EQ(NormalizeToolName("mcp__github__cr\xd0\xb5" "ate_issue", &ns), "create_issue");
  EXPECT_EQ(ns, "github");
}

}  // namespace
}  // namespace pulse
