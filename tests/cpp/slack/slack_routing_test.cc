// Which workflow's Pulse a Slack message is for, and who may talk to it.
#include <gtest/gtest.h>

#include "core/slack/slack_routing.h"

namespace pulse {
namespace {

using nlohmann::json;

const std::vector<SlackTarget> kTargets = {{"substack", "substack"}, {"digest", "weekly-digest"}};

TEST(SlackRouting, RoutesBySlugAndAlias) {
  SlugRoute r = RouteBySlug("substack-pulse how are subscribers doing?", kTargets);
  EXPECT_EQ(r.kind, SlugRouteKind::kOne);
  EXPECT_EQ(r.target.workflow, "substack");
  EXPECT_FALSE(r.alias);
  // Anywhere in the message, any case, inside Slack's channel markup, and the -goal alias.
  EXPECT_EQ(RouteBySlug("hey, can Substack-Pulse look at this", kTargets).kind, SlugRouteKind::kOne);
  EXPECT_EQ(RouteBySlug("see <#C024BE7LR|substack-pulse> please", kTargets).target.slug, "substack");
  SlugRoute alias = RouteBySlug("<@U0BOT> digest-goal: status?", kTargets);
  EXPECT_EQ(alias.kind, SlugRouteKind::kOne);
  EXPECT_EQ(alias.target.workflow, "weekly-digest");
  EXPECT_TRUE(alias.alias);
  // Both names of one workflow are one workflow.
  EXPECT_EQ(RouteBySlug("substack-pulse or substack-goal?", kTargets).kind, SlugRouteKind::kOne);
  EXPECT_EQ(RouteBySlug("just chatting about the weather", kTargets).kind, SlugRouteKind::kNone);
}

TEST(SlackRouting, TwoSlugsAndUnknownSlugGetOneReply) {
  SlugRoute two = RouteBySlug("substack-pulse and digest-pulse, compare notes", kTargets);
  EXPECT_EQ(two.kind, SlugRouteKind::kTwo);
  EXPECT_NE(two.reply.find("substack-pulse, digest-pulse"), std::string::npos) << two.reply;
  EXPECT_NE(two.reply.find("Name one"), std::string::npos);

  SlugRoute unknown = RouteBySlug("podcast-pulse are we growing?", kTargets);
  EXPECT_EQ(unknown.kind, SlugRouteKind::kUnknown);
  EXPECT_NE(unknown.reply.find("podcast-pulse"), std::string::npos) << unknown.reply;
  EXPECT_NE(unknown.reply.find("substack-pulse, digest-pulse"), std::string::npos) << unknown.reply;
  EXPECT_EQ(RouteBySlug("@podcast-pulse hello", kTargets).kind, SlugRouteKind::kUnknown);
  // A passing word that happens to end in -pulse is not addressed to anyone.
  EXPECT_EQ(RouteBySlug("my heart-pulse is racing", kTargets).kind, SlugRouteKind::kNone);
  // A known name wins over an unknown one.
  EXPECT_EQ(RouteBySlug("podcast-pulse? no, substack-pulse", kTargets).kind, SlugRouteKind::kOne);
}

TEST(SlackRouting, SlugFromWorkflowJsonElseFolder) {
  EXPECT_EQ(WorkflowSlug(json{{"slug", "digest"}}, "weekly-digest"), "digest");
  EXPECT_EQ(WorkflowSlug(json::object(), "substack"), "substack");
  EXPECT_EQ(WorkflowSlug(json{{"slug", "Has Spaces"}}, "substack"), "substack");
  EXPECT_EQ(WorkflowSlug(json{{"slug", 3}}, "substack"), "substack");
  EXPECT_EQ(SlackPulseName("substack"), "Substack Pulse");
}

TEST(SlackRouting, AccessByEmailAccountAndWorkflowAccess) {
  auto accounts = ParseAccounts(json::parse(R"([{"account":"ana","emails":["Ana@Example.com"]},
                                                {"account":"cy","emails":["cy@example.com"]}])"),
                                "accounts.json");
  ASSERT_TRUE(accounts.ok());
  auto access = ParseWorkflowAccess(json::parse(R"({"access":[{"account":"ana","role":"owner"},{"account":"bo","role":"editor"}]})"),
                                    "workflow.json");
  ASSERT_TRUE(access.ok());
  SlackAccess ana = CheckSlackAccess("ana@example.COM", *accounts, *access);
  EXPECT_TRUE(ana.allowed);
  EXPECT_EQ(ana.account, "ana");
  EXPECT_EQ(ana.role, "owner");
  SlackAccess cy = CheckSlackAccess("cy@example.com", *accounts, *access);
  EXPECT_FALSE(cy.allowed);
  EXPECT_NE(cy.reason.find("\"cy\" has no access"), std::string::npos);
  EXPECT_FALSE(CheckSlackAccess("stranger@example.com", *accounts, *access).allowed);
  EXPECT_FALSE(CheckSlackAccess("", *accounts, *access).allowed);
  // No access list: nobody.
  auto none = ParseWorkflowAccess(json::object(), "workflow.json");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(CheckSlackAccess("ana@example.com", *accounts, *none).allowed);
  EXPECT_FALSE(ParseAccounts(json::parse(R"([{"emails":[]}])"), "accounts.json").ok());
  EXPECT_FALSE(ParseAccounts(json::parse(R"({"account":"ana"})"), "accounts.json").ok());
  EXPECT_FALSE(ParseWorkflowAccess(json::parse(R"({"access":[{"role":"owner"}]})"), "workflow.json").ok());
  EXPECT_NE(NoAccessReply("substack").find("Substack Pulse"), std::string::npos);
}

TEST(SlackRouting, TurnMessageReplaysTheThreadNewestThatFit) {
  std::vector<SlackThreadLine> lines = {{"2026-10-07T09:00:00Z", "ana", "first question"},
                                        {"2026-10-07T09:01:00Z", "Substack Pulse", "first answer"},
                                        {"2026-10-07T09:05:00Z", "ana", std::string(300, 'x')}};
  std::string all = SlackTurnMessage("substack", "ana", false, lines, "and now?", 4000);
  EXPECT_NE(all.find("Earlier in this Slack thread"), std::string::npos);
  EXPECT_LT(all.find("first question"), all.find("first answer"));
  EXPECT_LT(all.find("first answer"), all.find("ana wrote:\nand now?"));
  // A small budget keeps the newest line and the message itself.
  std::string small = SlackTurnMessage("substack", "ana", false, lines, "and now?", 520);
  EXPECT_EQ(small.find("first question"), std::string::npos);
  EXPECT_NE(small.find(std::string(300, 'x')), std::string::npos);
  EXPECT_NE(small.find("and now?"), std::string::npos);
  EXPECT_LE(small.size(), 520u);
  EXPECT_EQ(SlackTurnMessage("substack", "ana", true, {}, "hi", 4000).find("Earlier"), std::string::npos);
}

}  // namespace
}  // namespace pulse
