// Pulse's skill documents (agent/turns/skills.cc): compiled in from
// agent/skills/*.md, and handed to each kind of turn.
#include "agent/turns/skills.h"

#include <gtest/gtest.h>

#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

std::vector<std::string> Names(const nlohmann::json& skills) {
  std::vector<std::string> out;
  for (const auto& s : skills) out.push_back(s["name"].get<std::string>());
  return out;
}

TEST(Skills, TheCompiledTextIsTheFileInTheTree) {
  const std::string dir = std::string(PULSE_TEST_FIXTURES) + "/../../agent/skills/";
  ASSERT_EQ(PulseSkills().size(), 3u);
  EXPECT_EQ(std::string(PulseSkills()[0].name), "goal-lead-check.md");
  EXPECT_EQ(std::string(PulseSkills()[1].name), "goal-lead-work.md");
  EXPECT_EQ(std::string(PulseSkills()[2].name), "goal-lead-architecture.md");
  for (const SkillDoc& s : PulseSkills()) {
    EXPECT_EQ(SkillText(s.name), testing::ReadFileOrDie(dir + s.name)) << s.name;
  }
  EXPECT_EQ(SkillText("goal-lead-check"), "");
  EXPECT_EQ(SkillText(""), "");
}

TEST(Skills, EachTurnGetsItsSkills) {
  const std::vector<std::string> work = {"goal-lead-work.md", "goal-lead-check.md", "goal-lead-architecture.md"};
  const std::vector<std::string> check = {"goal-lead-check.md"};
  EXPECT_EQ(Names(SkillsForTurn(TurnKind::kGoalWork)), work);
  EXPECT_EQ(Names(SkillsForTurn(TurnKind::kGoalWorkReceipt)), work);
  for (TurnKind k : {TurnKind::kGoalCheck, TurnKind::kRunFailed, TurnKind::kAskPulse, TurnKind::kQaFix}) {
    EXPECT_EQ(Names(SkillsForTurn(k)), check) << TurnKindName(k);
  }
  for (TurnKind k : {TurnKind::kBuilderQuestion, TurnKind::kBuilderFix, TurnKind::kWorkflowStep,
                     TurnKind::kWorkflowReview, TurnKind::kHousekeeping}) {
    EXPECT_TRUE(SkillsForTurn(k).empty()) << TurnKindName(k);
  }
  nlohmann::json one = SkillsForTurn(TurnKind::kGoalCheck);
  EXPECT_EQ(one[0]["text"], SkillText("goal-lead-check.md"));
  EXPECT_FALSE(one[0]["text"].get<std::string>().empty());
}

}  // namespace
}  // namespace pulse
