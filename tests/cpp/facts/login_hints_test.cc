// The login hints (core/facts/login_hints.cc): the narrow text match that raises
// "needs re-auth" from a run's error or CONCERNS: line. The near misses of
// each pattern are in goal_context_facts_test; here, how the matches read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/facts/goal_context_facts.h"

namespace pulse {
namespace {

std::vector<std::string> Patterns(const std::string& line) {
  std::vector<std::string> out;
  for (const LoginMatch& m : MatchLoginHints(line)) out.push_back(m.pattern);
  return out;
}

TEST(LoginHints, OneLineCanMatchSeveralPatternsEachOnceWithTheTextAsWritten) {
  std::vector<LoginMatch> m = MatchLoginHints("HTTP 401 Unauthorized: Token has been Expired, 401 again");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].pattern, "http_401");
  EXPECT_EQ(m[0].matched, "401");
  EXPECT_EQ(m[1].pattern, "unauthorized");
  EXPECT_EQ(m[1].matched, "Unauthorized");
  EXPECT_EQ(m[2].pattern, "expired_login");
  EXPECT_EQ(m[2].matched, "Token has been Expired");
}

TEST(LoginHints, AStatusCodeStandsAlone) {
  EXPECT_EQ(Patterns("failed (401)."), std::vector<std::string>{"http_401"});
  EXPECT_EQ(Patterns("got 403."), std::vector<std::string>{"http_403"});
  EXPECT_EQ(Patterns("401"), std::vector<std::string>{"http_401"});
  for (const char* miss : {"e401 raised", "took 401.5 ms", "v1.401", "PLAT-401", "4010 items", "14013"}) {
    EXPECT_TRUE(Patterns(miss).empty()) << miss;
  }
  // The first lone one is found past a near miss in the same line.
  std::vector<LoginMatch> m = MatchLoginHints("port 4010 said 401");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].matched, "401");
}

TEST(LoginHints, ExpiredNeedsALoginWordAtMostTwoWordsAway) {
  EXPECT_EQ(Patterns("the refresh_token expired"), std::vector<std::string>{"expired_login"});
  EXPECT_EQ(Patterns("expired OAuth grant"), std::vector<std::string>{"expired_login"});
  EXPECT_TRUE(Patterns("token for the big account expired").empty());
  EXPECT_TRUE(Patterns("expired: 3 days ago, the token").empty());
  EXPECT_TRUE(Patterns("the token is fine").empty());
  // "expiredtoken" is one word, not "expired" beside "token".
  EXPECT_TRUE(Patterns("expiredtoken").empty());
}

TEST(LoginHints, ReauthenticateAndMcpConnectionInEitherOrder) {
  std::vector<LoginMatch> r = MatchLoginHints("Please Log In Again to continue");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].pattern, "reauthenticate");
  EXPECT_EQ(r[0].matched, "Log In Again");

  std::vector<LoginMatch> m = MatchLoginHints("ECONNREFUSED while the mcp client started");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].pattern, "mcp_connection");
  EXPECT_EQ(m[0].matched, "ECONNREFUSED while the mcp");
  // "mcp" must be a word of its own.
  EXPECT_TRUE(Patterns("mcps: connection refused").empty());
  EXPECT_TRUE(Patterns("").empty());
}

}  // namespace
}  // namespace pulse
