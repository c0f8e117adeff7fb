// The context facts read from the runs (core/facts/goal_context_runs.cc): the
// login hints of a run's text, one a line and bounded; run_health and
// error_rate over real databases are in goal_context_facts_test.
#include "core/facts/goal_context_runs.h"

#include <gtest/gtest.h>

namespace pulse {
namespace {

TEST(GoalContextRuns, OneLoginHintALineTheFirstPatternNamingIt) {
  std::vector<LoginHint> out;
  AddLoginHints("r-9", 100, "error", "step fetch: HTTP 401 Unauthorized\nall good\nplease log in again", &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].run_id, "r-9");
  EXPECT_EQ(out[0].at, 100);
  EXPECT_EQ(out[0].where, "error");
  EXPECT_EQ(out[0].pattern, "http_401");
  EXPECT_EQ(out[0].matched, "401");
  EXPECT_EQ(out[0].line, "step fetch: HTTP 401 Unauthorized");
  EXPECT_EQ(out[1].pattern, "reauthenticate");
  EXPECT_EQ(out[1].line, "please log in again");
}

TEST(GoalContextRuns, HintsStopAtTheListBoundAndLongLinesAreCut) {
  std::vector<LoginHint> out;
  std::string many;
  for (size_t i = 0; i < kFactsListMax + 5; ++i) many += "token expired\n";
  AddLoginHints("r-1", 0, "concerns", many, &out);
  EXPECT_EQ(out.size(), kFactsListMax);
  std::vector<LoginHint> one;
  AddLoginHints("r-2", 0, "error", "HTTP 403 " + std::string(1000, 'x'), &one);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].line.size(), 400u);
  std::vector<LoginHint> none;
  AddLoginHints("r-3", 0, "error", "step summarize: timed out\n\n", &none);
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace pulse
