#include "agent/turns/skills.h"

namespace pulse {

using nlohmann::json;

std::string SkillText(const std::string& name) {
  for (const SkillDoc& s : PulseSkills()) {
    if (name == s.name) return s.text;
  }
  return "";
}

json SkillsForTurn(TurnKind kind) {
  std::vector<std::string> names;
  switch (kind) {
    case TurnKind::kGoalWork:
    case TurnKind::kGoalWorkReceipt:
      names = {"goal-lead-work.md", "goal-lead-check.md", "goal-lead-architecture.md"};
      break;
    case TurnKind::kGoalCheck:
    case TurnKind::kRunFailed:
    case TurnKind::kAskPulse:
    case TurnKind::kQaFix:
      names = {"goal-lead-check.md"};
      break;
    default:
      break;
  }
  json out = json::array();
  for (const std::string& n : names) out.push_back({{"name", n}, {"text", SkillText(n)}});
  return out;
}

}  // namespace pulse
