// The REST routes of `pulse serve` under /api/workflows/<wf>: each one calls
// one core API method. This is the one list both sides use: the server reads
// the array below at build time (server-shim/CMakeLists.txt embeds it, and
// server-shim/http/rest_routes.h installs a route per entry) and
// web/data/server-api.mjs builds its requests from it, so a route cannot
// exist on one side only (tests/node/rest_routes.test.mjs checks the running
// server against it).
//
// Keep the array strict JSON (quoted keys, no comments, no trailing commas):
// CMake reads it as JSON. An entry:
//   method  the core API method
//   verb    GET (open read), POST or PUT (owner writes: the body is the arguments)
//   path    after /api/workflows/<wf>; "{id}" stands for the method's `id`
//           argument (a decision id in the URL)
//   query   GET only: query parameter -> argument
//   int     query parameters that are whole numbers; bool: true/false ones
//   turn    instead of a core method's answer, starts this background turn
//           (owner token; 202 {turn}); method is then "turn.<kind>", the
//           name the tab calls it by
export const REST_ROUTES = [
  {"method": "pulse.config", "verb": "GET", "path": ""},
  {"method": "goal.check", "verb": "GET", "path": "/goal-status"},
  {"method": "goal.facts", "verb": "GET", "path": "/facts"},
  {"method": "goal.last_check", "verb": "GET", "path": "/last-check"},
  {"method": "agent_log.show", "verb": "GET", "path": "/agent-log",
   "query": {"session": "session", "run_id": "pulse_run_id", "status": "status", "since": "since",
             "stuck_after_minutes": "stuck_after_minutes", "include_running": "include_running",
             "limit": "limit", "cursor": "cursor"},
   "int": ["stuck_after_minutes", "limit"], "bool": ["include_running"]},
  {"method": "decision.list", "verb": "GET", "path": "/decisions", "query": {"status": "status"}},
  {"method": "goal.readings", "verb": "GET", "path": "/readings"},
  {"method": "goal.runs_by_route", "verb": "GET", "path": "/runs-by-route", "query": {"since": "since"}},
  {"method": "memory.show", "verb": "GET", "path": "/memory"},
  {"method": "focus.list", "verb": "GET", "path": "/focus-areas", "query": {"open": "open"}, "bool": ["open"]},
  {"method": "request.list", "verb": "GET", "path": "/requests", "query": {"kind": "kind", "status": "status"}},
  {"method": "pass.worklist", "verb": "GET", "path": "/worklist", "query": {"pass_id": "pass_id"}, "int": ["pass_id"]},
  {"method": "qa.failed_runs", "verb": "GET", "path": "/failed-runs"},
  {"method": "outbox.list", "verb": "GET", "path": "/outbox"},
  {"method": "ask.list", "verb": "GET", "path": "/asks", "query": {"direction": "direction"}},
  {"method": "autonomy.levels", "verb": "GET", "path": "/autonomy"},
  {"method": "autonomy.decisions", "verb": "GET", "path": "/autonomy/decisions", "query": {"session": "session"}},
  {"method": "conversation.show", "verb": "GET", "path": "/conversation",
   "query": {"generation": "generation", "limit": "limit", "before": "before"}, "int": ["generation", "limit", "before"]},
  {"method": "review.state", "verb": "GET", "path": "/workflow-review"},
  {"method": "decision.answer", "verb": "POST", "path": "/decisions/{id}/answer"},
  {"method": "decision.outcome", "verb": "POST", "path": "/decisions/{id}/outcome"},
  {"method": "memory.save", "verb": "PUT", "path": "/memory"},
  {"method": "focus.change", "verb": "POST", "path": "/focus-areas"},
  {"method": "attention.snooze", "verb": "POST", "path": "/attention/snooze"},
  {"method": "attention.unsnooze", "verb": "POST", "path": "/attention/unsnooze"},
  {"method": "schedule.after_run", "verb": "POST", "path": "/schedules/after-run"},
  {"method": "conversation.open", "verb": "POST", "path": "/conversation"},
  {"method": "turn.ask_pulse", "turn": "ask_pulse", "verb": "POST", "path": "/messages"},
  {"method": "turn.goal_check", "turn": "goal_check", "verb": "POST", "path": "/goal-check"},
  {"method": "turn.ask", "turn": "ask", "verb": "POST", "path": "/ask"}
];
