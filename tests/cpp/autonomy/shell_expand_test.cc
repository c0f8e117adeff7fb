// The spellings a shell word may become (core/autonomy/shell_expand.h), as bash would
// expand it: what the guard reads soul.md and protected paths under.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/autonomy/shell_expand.h"

namespace pulse {
namespace {

bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::vector<std::string> Variants(const std::string& word, bool* complete = nullptr) {
  bool c = true;
  std::vector<std::string> out = WordVariants(word, &c);
  if (complete) *complete = c;
  return out;
}

TEST(ShellExpand, BracesDefaultsAndEscapesAsBashReadsThem) {
  EXPECT_EQ(Variants("plain.md"), std::vector<std::string>{"plain.md"});
  EXPECT_TRUE(Has(Variants("{soul,x}.md"), "soul.md"));
  EXPECT_TRUE(Has(Variants("{x,soul}.md"), "soul.md"));
  EXPECT_TRUE(Has(Variants("so{u..u}l.md"), "soul.md"));
  EXPECT_TRUE(Has(Variants("{{a,s}o,b}ul.md"), "soul.md"));
  EXPECT_TRUE(Has(Variants("f{1..3}"), "f2"));
  for (const char* w : {"${X:-soul.md}", "${X-soul.md}", "${X:=soul.md}", "${X=soul.md}", "${X:+soul.md}",
                        "${X?soul.md}", "${X:-${Y:-soul.md}}", "${X/a/soul.md}", "${X//a/soul.md}", "${X:-so}ul.md"}) {
    EXPECT_TRUE(Has(Variants(w), "soul.md")) << w;
  }
  EXPECT_TRUE(Has(Variants("${X:-soul.md}"), ""));  // the variable may be set: the word may be empty
  EXPECT_TRUE(Has(Variants("\\163oul.md"), "soul.md"));
  EXPECT_TRUE(Has(Variants("\\x73oul.md"), "soul.md"));
  // Not expansions: a lone {x}, ${X} without an operator, braces in a word
  // with blanks (quoted text, which bash does not brace-expand).
  EXPECT_EQ(Variants("{x}.md"), std::vector<std::string>{"{x}.md"});
  EXPECT_EQ(Variants("${HOME}/x"), std::vector<std::string>{"${HOME}/x"});
  EXPECT_EQ(Variants("d = {'a': 1, 'b': 2}"), std::vector<std::string>{"d = {'a': 1, 'b': 2}"});
}

TEST(ShellExpand, AWordWithMoreSpellingsThanTheBoundIsIncomplete) {
  std::string w;
  for (int i = 0; i < 10; ++i) w += "{a,b}";
  bool complete = true;
  std::vector<std::string> v = Variants(w, &complete);
  EXPECT_FALSE(complete);
  EXPECT_LE(v.size(), kMaxVariants);
  // A long word is read as itself (and decoded), never expanded.
  std::string big(kMaxExpandedWord + 10, 'x');
  big += "{soul,x}.md";
  v = Variants(big, &complete);
  EXPECT_TRUE(complete);
  EXPECT_EQ(v, std::vector<std::string>{big});
}

}  // namespace
}  // namespace pulse
