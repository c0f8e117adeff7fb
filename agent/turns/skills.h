// Pulse's skill documents (agent/skills/*.md, compiled in): reference text a
// turn's runner reads beside its charter. goal-lead-check.md (the goal check,
// its facts and the "Failed runs" rule), goal-lead-work.md (Goal Work) and
// goal-lead-architecture.md (the architecture review a goal workflow's Pulse
// owns).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/autonomy/tool_sessions.h"

namespace pulse {

struct SkillDoc {
  const char* name;  // "goal-lead-check.md"
  const char* text;
};

// All three, in the order above.
const std::vector<SkillDoc>& PulseSkills();

// The skills a turn of `kind` is handed: the goal check and run_failed get
// goal-lead-check.md; Goal Work all three (architecture is its skill on a
// workflow with a goal); ask_pulse the check; qa_fix the check (its "Failed
// runs" rule says what a fix run answers). [{name, text}].
nlohmann::json SkillsForTurn(TurnKind kind);

// "" when there is no such skill.
std::string SkillText(const std::string& name);

}  // namespace pulse
