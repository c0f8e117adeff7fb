#include "core/conversation/pass_worklist.h"

#include <algorithm>

#include "core/store/db_rows.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

const char kOwnedArchitecture[] =
    "not due: this workflow's Pulse owns architecture (goal-lead-architecture.md, in Goal Work in its conversation)";
const char kOwnedTechnical[] =
    "not due: this workflow's Pulse owns QA; a fix run starts only on record_pulse_qa_request";

bool KnownModule(const std::string& m) {
  const std::vector<std::string>& order = ExecutionOrder();
  return std::find(order.begin(), order.end(), m) != order.end();
}

bool KnownRule(const std::string& r) { return r == "recovery" || r == "prompt_budget" || r == "protected_boundary"; }

WorklistRow ReadRow(const Statement& q) {
  WorklistRow r;
  r.pass_id = q.Int64(0);
  r.module = q.Text(1);
  r.due = q.Int64(2) != 0;
  r.reason = q.Text(3);
  r.state = q.Text(4);
  r.detail = q.Text(5);
  r.closed_at = q.Text(6);
  return r;
}

Status PutRow(Db& db, const WorklistRow& r) {
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT OR REPLACE INTO pulse_pass_worklist(pass_id, module, due, reason, state, detail, closed_at, position)"
      " VALUES(?, ?, ?, ?, ?, ?, ?, ?)"));
  const std::vector<std::string>& order = ExecutionOrder();
  int64_t pos = std::find(order.begin(), order.end(), r.module) - order.begin();
  put.Bind(1, r.pass_id).Bind(2, r.module).Bind(3, static_cast<int64_t>(r.due ? 1 : 0)).Bind(4, r.reason)
      .Bind(5, r.state).Bind(6, RepairUtf8(r.detail)).Bind(7, r.closed_at).Bind(8, pos);
  return put.Run();
}

Status ClearModuleDue(Db& db, const std::string& module) {
  PULSE_ASSIGN_OR_RETURN(Statement del, db.Prepare("DELETE FROM pulse_module_due WHERE module = ?"));
  del.Bind(1, module);
  return del.Run();
}

}  // namespace

const std::vector<std::string>& ExecutionOrder() {
  static const std::vector<std::string> kOrder = {"goal_work", "architecture", "technical"};
  return kOrder;
}

std::vector<std::string> PassOrderFor(bool has_goal) {
  if (has_goal) return {"gate", "goal_work", "finalize"};
  std::vector<std::string> out = {"gate"};
  for (const std::string& m : ExecutionOrder()) out.push_back(m);
  out.push_back("finalize");
  return out;
}

json WorklistRow::ToJson() const {
  return json{{"pass_id", pass_id}, {"module", module}, {"due", due},          {"reason", reason},
              {"state", state},     {"detail", detail}, {"closed_at", closed_at}};
}

Status EnsureWorklistSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_pass_worklist ("
       " pass_id INTEGER NOT NULL,"
       " module TEXT NOT NULL,"
       " position INTEGER NOT NULL DEFAULT 0,"
       " due INTEGER NOT NULL,"
       " reason TEXT NOT NULL DEFAULT '',"
       " state TEXT NOT NULL,"
       " detail TEXT NOT NULL DEFAULT '',"
       " closed_at TEXT NOT NULL DEFAULT '',"
       " PRIMARY KEY (pass_id, module));"
       "CREATE TABLE IF NOT EXISTS pulse_module_due ("
       " module TEXT NOT NULL,"
       " rule TEXT NOT NULL,"
       " reason TEXT NOT NULL DEFAULT '',"
       " since TEXT NOT NULL,"
       " PRIMARY KEY (module, rule));"},
  };
  return ApplyMigrations(db, "worklist", kMigrations);
}

Status MarkModuleDue(Db& db, const ModuleDue& due, int64_t now) {
  if (!KnownModule(due.module)) return Status::InvalidArgument("module: \"" + due.module + "\" is not goal_work, architecture or technical");
  if (!KnownRule(due.rule)) return Status::InvalidArgument("rule: \"" + due.rule + "\" is not recovery, prompt_budget or protected_boundary");
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT INTO pulse_module_due(module, rule, reason, since) VALUES(?, ?, ?, ?)"
      " ON CONFLICT(module, rule) DO UPDATE SET reason = excluded.reason"));
  put.Bind(1, due.module).Bind(2, due.rule).Bind(3, std::string(Utf8Prefix(RepairUtf8(due.reason), 600)))
      .Bind(4, FormatTime(now));
  return put.Run();
}

Result<std::vector<ModuleDue>> ListModuleDue(Db& db) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT module, rule, reason, since FROM pulse_module_due ORDER BY since, module, rule"));
  return ReadRows(q, [](const Statement& q) { return ModuleDue{q.Text(0), q.Text(1), q.Text(2), q.Text(3)}; });
}

Result<std::vector<WorklistRow>> WriteGateWorklist(Db& db, int64_t pass_id, bool has_goal, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(std::vector<ModuleDue> rules, ListModuleDue(db));
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  std::vector<WorklistRow> rows;
  for (const std::string& m : ExecutionOrder()) {
    WorklistRow r;
    r.pass_id = pass_id;
    r.module = m;
    r.due = true;
    r.state = "pending";
    if (m == "goal_work") {
      r.reason = has_goal ? "due: Goal Work in Pulse's conversation, beginning with the goal check"
                          : "due: Goal Work in its own session (the workflow has no goal)";
    } else if (has_goal) {
      r.due = false;
      r.state = "not_due";
      r.reason = m == "architecture" ? kOwnedArchitecture : kOwnedTechnical;
    } else {
      r.reason = m == "architecture" ? "due: the Architecture review of a workflow without a goal"
                                     : "due: the Technical review and fix run of a workflow without a goal";
    }
    // Rules outside Gate may still make a module due.
    for (const ModuleDue& d : rules) {
      if (d.module != m || r.state == "pending") continue;
      r.due = true;
      r.state = "pending";
      r.reason = "due by " + d.rule + ": " + d.reason;
    }
    PULSE_RETURN_IF_ERROR(PutRow(db, r));
    rows.push_back(r);
  }
  PULSE_RETURN_IF_ERROR(tx.Commit());
  (void)now;
  return rows;
}

Result<std::vector<WorklistRow>> CloseOwnedModules(Db& db, int64_t pass_id, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(std::vector<WorklistRow> rows, ReadWorklist(db, pass_id));
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  std::vector<WorklistRow> closed;
  for (WorklistRow& r : rows) {
    if (r.module == "goal_work" || r.state != "pending") continue;
    r.state = "skipped";
    r.closed_at = FormatTime(now);
    r.detail = "skipped by code after Gate: this workflow's Pulse owns " +
               std::string(r.module == "architecture" ? "architecture" : "QA") + " (" + r.reason + "); the rule is cleared";
    PULSE_RETURN_IF_ERROR(PutRow(db, r));
    PULSE_RETURN_IF_ERROR(ClearModuleDue(db, r.module));
    closed.push_back(r);
  }
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return closed;
}

Status FinishModule(Db& db, int64_t pass_id, const std::string& module, bool completed, const std::string& detail,
                    int64_t now) {
  PULSE_ASSIGN_OR_RETURN(std::vector<WorklistRow> rows, ReadWorklist(db, pass_id));
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  for (WorklistRow& r : rows) {
    if (r.module != module) continue;
    r.state = completed ? "completed" : "failed";
    r.detail = std::string(Utf8Prefix(RepairUtf8(detail), 600));
    r.closed_at = FormatTime(now);
    PULSE_RETURN_IF_ERROR(PutRow(db, r));
  }
  if (completed) {
    PULSE_ASSIGN_OR_RETURN(Statement del, db.Prepare("DELETE FROM pulse_module_due WHERE module = ? AND rule = 'recovery'"));
    del.Bind(1, module);
    PULSE_RETURN_IF_ERROR(del.Run());
  }
  PULSE_RETURN_IF_ERROR(tx.Commit());
  if (!completed) {
    return MarkModuleDue(db, ModuleDue{module, "recovery", "pass " + std::to_string(pass_id) + ": " + detail, ""}, now);
  }
  return Status::OK();
}

Result<std::vector<WorklistRow>> ReadWorklist(Db& db, int64_t pass_id) {
  if (pass_id == 0) {
    PULSE_ASSIGN_OR_RETURN(pass_id, db.QueryInt64("SELECT COALESCE(MAX(pass_id), 0) FROM pulse_pass_worklist"));
  }
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT pass_id, module, due, reason, state, detail, closed_at FROM pulse_pass_worklist WHERE pass_id = ?"
      " ORDER BY position"));
  q.Bind(1, pass_id);
  return ReadRows(q, ReadRow);
}

}  // namespace pulse
