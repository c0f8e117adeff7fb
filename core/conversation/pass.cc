#include "core/conversation/pass.h"

#include "core/base/cron.h"
#include "core/base/json_limits.h"
#include "core/conversation/pulse_requests.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

const std::vector<std::string>& PassOrder() {
  static const std::vector<std::string> kOrder = {"gate", "goal_work", "finalize"};
  return kOrder;
}

Status EnsurePassSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_passes ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " kind TEXT NOT NULL,"
       " trigger TEXT NOT NULL DEFAULT '',"
       " started_at TEXT NOT NULL,"
       " finished_at TEXT NOT NULL DEFAULT '',"
       " state TEXT NOT NULL DEFAULT 'running',"
       " summary TEXT NOT NULL DEFAULT '',"
       " goal_status TEXT NOT NULL DEFAULT '',"
       " steps_json TEXT NOT NULL DEFAULT '[]');"
       "CREATE TABLE IF NOT EXISTS pulse_fast_requests ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " why TEXT NOT NULL,"
       " session TEXT NOT NULL DEFAULT '',"
       " requested_at TEXT NOT NULL,"
       " pass_id INTEGER NOT NULL DEFAULT 0);"
       "CREATE INDEX IF NOT EXISTS pulse_fast_requests_waiting ON pulse_fast_requests(pass_id, id);"},
      // Fast requests are pulse_requests rows (kind fast), the one store
      // record_pulse_fast_request writes and the Pulse tab lists.
      {2, "DROP TABLE IF EXISTS pulse_fast_requests;"},
  };
  return ApplyMigrations(db, "pass", kMigrations);
}

json PassDue::ToJson() const { return json{{"due", due}, {"kind", kind}, {"reason", reason}}; }

json PassRecord::ToJson() const {
  json list = json::array();
  for (const PassStep& s : steps) {
    json item = {{"step", s.step}, {"state", s.state}, {"detail", s.detail}};
    if (s.turn_id) item["turn_id"] = s.turn_id;
    list.push_back(item);
  }
  return json{{"id", id},           {"kind", kind},       {"trigger", trigger},         {"started_at", started_at},
              {"finished_at", finished_at}, {"state", state}, {"summary", summary}, {"goal_status", goal_status},
              {"steps", list},      {"fast_requests", fast_requests}};
}

Result<PassDue> PassDueAt(Db& db, const WorkflowConfig& config, int64_t now) {
  PassDue due;
  if (!config.pulse_enabled) return due;
  PULSE_ASSIGN_OR_RETURN(std::vector<PulseRequest> fast, ListRequests(db, RequestKind::kFast, "pending"));
  if (!fast.empty()) {
    // ListRequests is newest first: the reason names the oldest waiting.
    due.due = true;
    due.kind = "fast";
    due.reason = "fast request " + std::to_string(fast.back().id) + ": " + fast.back().what;
    return due;
  }
  const json& raw = config.raw;
  if (!raw.contains("pulse") || !raw["pulse"].is_object() || !raw["pulse"].contains("full_pass")) return due;
  const json& fp = raw["pulse"]["full_pass"];
  if (!fp.is_object() || !fp.contains("cron") || !fp["cron"].is_string()) {
    return Status::InvalidArgument("workflow.json: pulse.full_pass.cron must be a string");
  }
  const std::string cron = fp["cron"].get<std::string>();
  PULSE_ASSIGN_OR_RETURN(CronSpec spec, ParseCron(cron, "workflow.json: pulse.full_pass.cron"));
  std::optional<int64_t> fired = PreviousFire(spec, now);
  if (!fired) return due;
  PULSE_ASSIGN_OR_RETURN(Statement last, db.Prepare("SELECT MAX(started_at) FROM pulse_passes WHERE kind = 'full'"));
  PULSE_ASSIGN_OR_RETURN(bool row, last.Step());
  std::string last_at = row && !last.IsNull(0) ? last.Text(0) : "";
  if (!last_at.empty() && last_at >= FormatTime(*fired)) return due;
  due.due = true;
  due.kind = "full";
  due.reason = "pulse.full_pass \"" + cron + "\" fired at " + FormatTime(*fired);
  return due;
}

Result<PassRecord> StartPass(Db& db, Env& env, const std::string& kind, const std::string& trigger) {
  const int64_t now = env.NowSeconds();
  if (kind != "full" && kind != "fast") return Status::InvalidArgument("kind: \"" + kind + "\" is not full or fast");
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PassRecord p;
  p.kind = kind;
  p.trigger = trigger;
  p.started_at = FormatTime(now);
  p.state = "running";
  PULSE_ASSIGN_OR_RETURN(Statement ins, db.Prepare("INSERT INTO pulse_passes(kind, trigger, started_at) VALUES(?, ?, ?)"));
  ins.Bind(1, kind).Bind(2, trigger).Bind(3, p.started_at);
  PULSE_RETURN_IF_ERROR(ins.Run());
  p.id = db.LastInsertRowId();
  PULSE_RETURN_IF_ERROR(tx.Commit());
  // Any pass answers the waiting fast requests: the earlier pass they asked
  // for is this one (taken once, whoever else is looking).
  PULSE_ASSIGN_OR_RETURN(std::vector<PulseRequest> taken,
                         TakePendingFastRequests(db, env, "pass " + std::to_string(p.id)));
  for (const PulseRequest& r : taken) p.fast_requests.push_back(r.id);
  return p;
}

Status FinishPass(Db& db, const PassRecord& pass, int64_t now) {
  json steps = pass.ToJson()["steps"];
  PULSE_ASSIGN_OR_RETURN(Statement up, db.Prepare(
      "UPDATE pulse_passes SET finished_at = ?, state = ?, summary = ?, goal_status = ?, steps_json = ? WHERE id = ?"));
  up.Bind(1, FormatTime(now)).Bind(2, pass.state).Bind(3, RepairUtf8(pass.summary)).Bind(4, pass.goal_status)
      .Bind(5, steps.dump()).Bind(6, pass.id);
  return up.Run();
}

Result<std::vector<PassRecord>> ListPasses(Db& db, int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT id, kind, trigger, started_at, finished_at, state, summary, goal_status, steps_json FROM pulse_passes"
      " ORDER BY id DESC LIMIT ?"));
  st.Bind(1, static_cast<int64_t>(limit));
  std::vector<PassRecord> out;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    PassRecord p{st.Int64(0), st.Text(1), st.Text(2), st.Text(3), st.Text(4), st.Text(5), st.Text(6), st.Text(7), {}, {}};
    json steps = ParseJsonOrDiscarded(st.Text(8));
    if (steps.is_array()) {
      for (const json& s : steps) {
        if (!s.is_object()) continue;
        PassStep ps;
        ps.step = s.value("step", "");
        ps.state = s.value("state", "");
        ps.detail = s.value("detail", "");
        ps.turn_id = s.contains("turn_id") && s["turn_id"].is_number_integer() ? s["turn_id"].get<int64_t>() : 0;
        p.steps.push_back(ps);
      }
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace pulse
