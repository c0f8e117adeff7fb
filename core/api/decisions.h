// The decisions and goal memory methods' shared pieces: the agent's tools
// reach the same operations with the same JSON answers.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/api/api.h"
#include "core/decisions/decisions.h"
#include "core/goal/goal_memory.h"

namespace pulse {

// memory/goal.md in the workflow's folder; empty in the browser (the
// database copy only).
std::string GoalMemoryPath(const ApiContext& ctx);

// memory.show: {text, hash, entries, entry_count, sections, limit,
// consolidate_past, consolidate_due, over_limit, unparsed_lines, storage,
// conflict, rules}.
Result<nlohmann::json> GoalMemoryJson(GoalMemory& memory);
// memory.show over this context.
Result<nlohmann::json> MemoryShowJson(ApiContext& ctx);
// memory.add: one entry in its own transaction (goal.md put back if the
// commit fails), answered with the new show document and "dropped".
Result<nlohmann::json> AddGoalMemoryEntry(ApiContext& ctx, MemorySection section, MemorySource source,
                                          const std::string& text);
// memory.consolidate, the same way.
Result<nlohmann::json> ConsolidateGoalMemory(ApiContext& ctx);
// Pulse's rewrite (GoalMemory::ConsolidateAs), answered like memory.show.
Result<nlohmann::json> ConsolidateGoalMemoryAs(ApiContext& ctx, const std::vector<MemoryLine>& lines);

// The JSON every caller (the command line, HTTP, MCP, the browser) gets for
// a decision: {id, question, options, blocks, raised_by, status, created_at,
// recommendation, answer, outcome, events, waited_seconds (pending)}.
nlohmann::json DecisionViewJson(const DecisionView& view);
// decision.list: {decisions:[...], outcomes_due:[...]}.
nlohmann::json DecisionListJson(const DecisionList& list);
// ListDecisions answered as DecisionListJson (for the documents the agent
// reads, which hold it as one part).
Result<nlohmann::json> ListDecisionsJson(DecisionContext& dc, const std::string& status);
// decision.apply_due_defaults: {answer, applied:[...], skipped:[{id, reason}], reason?}.
nlohmann::json DefaultsAppliedJson(const DefaultsApplied& done);

// The decision operations over this context's database, clock, levels and
// goal memory. REQUIRES: ctx.db and ctx.env.
class ContextDecisions {
 public:
  explicit ContextDecisions(ApiContext& ctx);
  DecisionContext& get() { return dc_; }

 private:
  GoalMemory memory_;
  DecisionContext dc_;
};

}  // namespace pulse
