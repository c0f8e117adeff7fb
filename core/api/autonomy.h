// The autonomy guard's JSON documents, shared by the autonomy.* methods and
// the agent's tools.
#pragma once

#include <nlohmann/json.hpp>

#include "core/autonomy/autonomy.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

// autonomy.levels: pulse.autonomy as the guard reads it.
nlohmann::json AutonomyLevelsJson(const WorkflowConfig& config);

}  // namespace pulse
