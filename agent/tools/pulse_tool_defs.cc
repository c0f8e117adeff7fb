// The descriptors of the tools Pulse offers over MCP (tools/list) and in a
// turn's context: Pulse's own tools with their input schemas, and every
// other tool the autonomy guard knows, so the catalog an agent sees is never
// narrowed per turn (calls are refused instead).
#include "agent/tools/pulse_tools.h"

#include "core/autonomy/tool_catalog.h"

namespace pulse {

using nlohmann::json;

namespace {

// Pulse's own tools as MCP descriptors: data, kept as the JSON an agent
// reads (descriptions are the agent's instructions for each tool).
const char kPulseTools[] = R"JSON([
  {"name": "get_pulse_state",
   "title": "Pulse state",
   "description": "Reads the workflow's Pulse state. view=goal_status: the goal check document (status, key number, last measured, alarms) with goal_lead: goal memory, the open focus areas and QA requests (read them first). view=goal_work: the goal status plus readings, runs by route, pending decisions, goal memory, the open focus areas and autonomy levels. view=agent_log: the durable background-agent log, oldest first (filter by session, pulse_run_id, status, since). view=module: the latest Workflow Review (revision, due set, verdict) and each schedule's after-run options, as inputs.",
   "inputSchema": {"type": "object",
     "properties": {
       "view": {"type": "string", "enum": ["goal_status", "goal_work", "agent_log", "module"]},
       "session": {"type": "string", "description": "agent_log: only this session"},
       "pulse_run_id": {"type": "string", "description": "agent_log: only this Pulse run"},
       "status": {"type": "string", "description": "agent_log: only rows with this status (running, completed, ...)"},
       "since": {"type": "string", "description": "agent_log: rows updated at or after this RFC 3339 time"}},
     "required": ["view"], "additionalProperties": false}},
  {"name": "record_pulse_goal_check",
   "title": "Record the goal check",
   "description": "Records today's goal check: the core computes the status from the database and stores it (this is what keeps a reported pause quiet). Pass your verdict; the stored check is returned.",
   "inputSchema": {"type": "object",
     "properties": {
       "verdict": {"type": "string", "enum": ["on_track", "at_risk", "off_track", "not_measured", "no_goal"]},
       "note": {"type": "string"}},
     "additionalProperties": false}},
  {"name": "record_pulse_recommendation",
   "title": "Recommend on a decision",
   "description": "Attaches Pulse's recommendation to a pending decision (decision_id), or opens one batched decision request for the owner with the recommendation when no decision_id is given. Pulse recommends; only the owner answers.",
   "inputSchema": {"type": "object",
     "properties": {
       "decision_id": {"type": ["integer", "string"]},
       "question": {"type": "string", "description": "for a new decision"},
       "options": {"type": "array", "items": {"type": "string"}},
       "blocks": {"type": "string"},
       "option": {"type": "string", "description": "the recommended option (one of options)"},
       "text": {"type": "string", "description": "a free-text recommended answer when there are no options"},
       "why": {"type": "string"},
       "evidence": {"type": "string"},
       "confidence": {"type": "string", "enum": ["low", "medium", "high"]},
       "safe_default_by": {"type": "string", "description": "RFC 3339; applied then when answer=act and nobody answered"}},
     "required": ["why", "confidence"], "additionalProperties": false}},
  {"name": "record_pulse_goal_memory",
   "title": "Goal memory: add or consolidate",
   "description": "action=add (the default) adds one dated line to the workflow's goal memory (memory/goal.md) in a section. action=consolidate rewrites it to at most 60 entries: duplicates and the oldest of Pulse's own lines go first, the owner's lines are always kept; consolidate once memory passes 45 entries (the memory view says consolidate_due). Owner lines are written only by the owner's answers.",
   "inputSchema": {"type": "object",
     "properties": {
       "action": {"type": "string", "enum": ["add", "consolidate"], "description": "default add"},
       "section": {"type": "string", "description": "add: owner, decisions, lessons, bets or waiting (or the section's title)"},
       "text": {"type": "string", "description": "add: the entry, one line"},
       "source": {"type": "string", "description": "add: result, Pulse inference (default) or builder answer"},
       "entries": {"type": "integer", "description": "consolidate: keep at most this many (at most 60, the default)"}},
     "additionalProperties": false}},
  {"name": "create_decision_request",
   "title": "Ask the owner",
   "description": "Opens a pending decision request in the owner's Needs you list: a question, options (none: a free-text answer), what it blocks and why. What a refused call tells you to do: right after a refusal in this session, the refused call (tool, rule, reason) is attached as the decision's context. Answers {decision_id}. Add your recommendation with record_pulse_recommendation(decision_id).",
   "inputSchema": {"type": "object",
     "properties": {
       "question": {"type": "string"},
       "options": {"type": "array", "items": {"type": "string"}},
       "blocks": {"type": "string", "description": "what waits on the answer"},
       "why": {"type": "string", "description": "why the owner has to decide (shown with the question)"}},
     "required": ["question"], "additionalProperties": false}},
  {"name": "record_pulse_focus_area",
   "title": "Focus areas: propose, track, close",
   "description": "Time-boxed direction kept in workflow.json (pulse.focus_areas, pulse.focus_area_details). action=propose: a new area for the owner to confirm (title, end_date YYYY-MM-DD, default 14 days; check: how you will tell it worked); at most three are open (proposed + active). action=track: one dated progress line a day on an active area (id, note). action=close: the area is done (id, lesson); the lesson also goes to goal memory. Only the owner confirms, rejects, extends or drops.",
   "inputSchema": {"type": "object",
     "properties": {
       "action": {"type": "string", "enum": ["propose", "track", "close"]},
       "id": {"type": "string", "description": "track, close: the area's id (fa-N)"},
       "title": {"type": "string", "description": "propose"},
       "end_date": {"type": "string", "description": "propose: YYYY-MM-DD, not in the past"},
       "check": {"type": "string", "description": "propose: how success is checked"},
       "note": {"type": "string", "description": "track: today's line"},
       "lesson": {"type": "string", "description": "close: what was learned"}},
     "required": ["action"], "additionalProperties": false}},
  {"name": "record_pulse_qa_request",
   "title": "Request QA",
   "description": "Records what a QA fix run should check (what, why). The scheduler starts one fix run for it (turn qa_fix, its own session, Run held) when the workflow is free; its short result (status, technical review, reason) comes back into Pulse's conversation and the next turn's qa_results. Listed by pulse qa list and the Pulse tab. Answers {request_id}.",
   "inputSchema": {"type": "object",
     "properties": {"what": {"type": "string"}, "why": {"type": "string"}},
     "required": ["what"], "additionalProperties": false}},
  {"name": "record_pulse_fast_request",
   "title": "Request an earlier pass",
   "description": "Asks for the next full Pulse pass to start earlier (why). A pending request absorbs later ones (coalesced: true); the pass scheduler takes it. Answers {request_id, coalesced}.",
   "inputSchema": {"type": "object",
     "properties": {"why": {"type": "string"}},
     "required": ["why"], "additionalProperties": false}},
  {"name": "ask_builder",
   "title": "Ask the Builder chat",
   "description": "Asks the workflow's Builder chat. kind=question: a fact from the chat's conversation; without a Builder chat to ask the answer is status no_builder_chat (the ask is recorded). kind=fix (held by pulse.autonomy.change): without a Builder chat to carry it out it becomes one decision for the owner with the recommendation \"Make this fix\" (status decision, decision_id). Never for soul.md, deletions or contract migrations.",
   "inputSchema": {"type": "object",
     "properties": {
       "kind": {"type": "string", "enum": ["question", "fix"]},
       "message": {"type": "string"},
       "evidence": {"type": "string"},
       "title": {"type": "string", "description": "fix: a plain title"},
       "why": {"type": "string"},
       "builder_session_id": {"type": "string"},
       "wait_seconds": {"type": "integer", "minimum": 1, "maximum": 120}},
     "required": ["kind", "message"], "additionalProperties": false}},
  {"name": "record_workflow_review",
   "title": "Workflow Review: the receipt",
   "description": "The Workflow Review turn's one receipt for the plan revision it reviewed. result=clean: nothing is broken, runs go. result=broken: list every broken step with its reason, however many (the record keeps the first 50 and counts the rest, and so many stop every run); only runs that touch a broken step are stopped, with that reason. A receipt that is refused and not followed by one that is recorded stops every run. Only a workflow_review turn records it.",
   "inputSchema": {"type": "object",
     "properties": {
       "result": {"type": "string", "enum": ["clean", "broken"]},
       "broken": {"type": "array", "items": {"type": "object",
         "properties": {"step": {"type": "string"}, "reason": {"type": "string"}}, "required": ["step", "reason"]}},
       "summary": {"type": "string"}},
     "required": ["result"], "additionalProperties": false}},
  {"name": "record_housekeeping",
   "title": "Housekeeping: backup or publish done",
   "description": "The housekeeping turn's receipt for one action it was asked for (backup or publish): done=true records the workflow's source hash, so the next run with the same source skips it in code. Only a housekeeping turn records it.",
   "inputSchema": {"type": "object",
     "properties": {
       "action": {"type": "string", "enum": ["backup", "publish"]},
       "done": {"type": "boolean"},
       "note": {"type": "string"}},
     "required": ["action", "done"], "additionalProperties": false}},
  {"name": "record_pulse_decision_outcome",
   "title": "Record a decision's outcome",
   "description": "Records what came of an answered decision (the decision log's result).",
   "inputSchema": {"type": "object",
     "properties": {
       "id": {"type": ["integer", "string"]},
       "result": {"type": "string"}},
     "required": ["id", "result"], "additionalProperties": false}}
]
)JSON";

}  // namespace

const json& PulseToolDefinitions() {
  static const json kTools = json::parse(kPulseTools);
  return kTools;
}


namespace {

// ask_pulse is carried out by Pulse when a platform session (a step) calls
// it: a round of a bounded thread, answered with the decision lines.
json AskPulseDefinition() {
  return json::parse(R"JSON({
    "name": "ask_pulse",
    "title": "Ask Pulse",
    "description": "Ask the workflow's Pulse, the goal expert: goal status, why Pulse did something, which option serves the goal, direction for Pulse (from a workflow step's session; never from Pulse's own turns or a Builder turn Pulse started). One round of a thread of at most 6: continue with thread_id; the answer ends with decision lines (decision, owner_needed, pulse_question, thread_open) and next says what to do. Waits up to wait_seconds (default 60, at most 120), then returns status running with call_id: ask again with call_id for the answer. 20 rounds per workflow per hour; over that the ask is queued and starts when a slot frees.",
    "inputSchema": {"type": "object",
      "properties": {
        "message": {"type": "string", "description": "what to ask Pulse, or the answer to its question in a thread"},
        "thread_id": {"type": "string"},
        "call_id": {"type": "string", "description": "read back an earlier call's answer"},
        "wait_seconds": {"type": "integer", "minimum": 0, "maximum": 120}},
      "additionalProperties": false}})JSON");
}

}  // namespace

const json& CatalogToolDefinitions() {
  static const json kAll = [] {
    json all = PulseToolDefinitions();
    for (const ToolEntry& e : ToolCatalog()) {
      bool own = false;
      for (const json& t : PulseToolDefinitions()) own = own || t["name"] == e.name;
      if (own) continue;
      if (std::string(e.name) == "ask_pulse") {
        all.push_back(AskPulseDefinition());
        continue;
      }
      std::string cls = ToolClassName(e.cls);
      all.push_back({{"name", e.name},
                     {"description", std::string(e.note) + " (" + cls +
                                         "; a platform tool: Pulse holds it to the turn's autonomy and, when allowed, "
                                         "forwards it to the platform or answers carry_out_on_platform)"},
                     {"inputSchema", {{"type", "object"}, {"additionalProperties", true}}}});
    }
    return all;
  }();
  return kAll;
}

}  // namespace pulse
