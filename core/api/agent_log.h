// The agent log's JSON shapes, shared by its API methods and the command
// line's batch mode (`pulse agent-log record`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/agent_log/agent_log.h"
#include "core/base/status.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

// {session, agent, name?, kind?, parent?, pulse_run_id?, at?}; InvalidArgument
// naming `where` and the field for a missing or mistyped one.
Result<AgentStart> AgentStartFromJson(const nlohmann::json& args, const std::string& where);
// {session, agent, status?, result?, error?, duration? (text or seconds), at?}
Result<AgentCompletion> AgentCompletionFromJson(const nlohmann::json& args, const std::string& where);
nlohmann::json AgentLogRowJson(const AgentLogRow& row);
// agent_log.show: {rows:[...], stuck_after_minutes, stuck}
nlohmann::json AgentLogShowJson(const std::vector<AgentLogRow>& rows, int64_t stuck_after_minutes);
// pulse.agent_log.stuck_after_minutes from workflow.json, else the default.
int64_t ConfiguredStuckAfter(const WorkflowConfig& config);

}  // namespace pulse
