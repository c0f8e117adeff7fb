#include "core/facts/goal_context_runs.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/json_limits.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

// The runs since the last check are read once each, in finished_at order,
// and counted here: one pass instead of a union with a probe per row and a
// sort per distinct time (what a goal check in the browser paid for most).
// The answers are the union's: every comparison is on the bytes as stored,
// as SQLite's were. The 14 days before today come from the run-day counts
// (pulse_fact_run_days, kept by triggers: core/facts/fact_snapshot.cc), the same
// union counted by day, so two weeks of runs are not read at all.

// A column's bytes as stored, valid until the next Step.
inline std::string_view View(const Statement& q, int col) {
  const unsigned char* t = sqlite3_column_text(q.handle(), col);
  if (!t) return {};
  return {reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(q.handle(), col))};
}

// Binds the bytes as stored (Statement::Bind repairs text on its way in;
// these are compared with stored bytes).
void BindStored(Statement& q, int index, std::string_view v) {
  sqlite3_bind_text(q.handle(), index, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

// Text shown is well-formed, as Statement::Text gives it.
std::string Clean(std::string_view v) { return IsValidUtf8(v) ? std::string(v) : RepairUtf8(v); }

Result<int64_t> TimeOf(std::string_view stored) {
  Result<int64_t> t = ParseTime(stored);
  if (t.ok()) return t;
  return ParseTime(Clean(stored));  // the error names the text as shown
}

// The schedule a goal_run_facts row names: schedule_id, else what follows
// "schedule:" in the trigger (matched as LIKE 'schedule:%' does, ASCII case
// folded; substr stops at a NUL).
std::string_view ScheduleOf(std::string_view schedule_id, std::string_view trigger) {
  if (!schedule_id.empty()) return schedule_id;
  static constexpr std::string_view kPrefix = "schedule:";
  if (trigger.size() < kPrefix.size()) return {};
  for (size_t i = 0; i < kPrefix.size(); ++i) {
    char c = trigger[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kPrefix[i]) return {};
  }
  std::string_view rest = trigger.substr(kPrefix.size());
  return rest.substr(0, rest.find('\0'));
}

// The (finished_at, run_id) of the pulse_fact_runs rows read, in
// finished_at order: a goal_run_facts row asked in the same order finds
// its pulse_fact_runs row of the same time without a query.
class RunKeys {
 public:
  // Room for a few weeks of runs up front: growing by doubling cost more
  // than the reads themselves.
  RunKeys() {
    text_.reserve(1 << 17);
    keys_.reserve(4096);
  }
  void Add(std::string_view at, std::string_view id) {
    keys_.push_back({static_cast<uint32_t>(text_.size()), static_cast<uint32_t>(at.size()),
                     static_cast<uint32_t>(id.size())});
    text_.append(at).append(id);
  }
  bool Has(std::string_view at, std::string_view id) {
    while (next_ < keys_.size() && At(next_) < at) ++next_;
    for (size_t i = next_; i < keys_.size() && At(i) == at; ++i) {
      if (Id(i) == id) return true;
    }
    return false;
  }

 private:
  struct Key {
    uint32_t off, at_len, id_len;
  };
  std::string_view At(size_t i) const { return std::string_view(text_).substr(keys_[i].off, keys_[i].at_len); }
  std::string_view Id(size_t i) const {
    return std::string_view(text_).substr(keys_[i].off + keys_[i].at_len, keys_[i].id_len);
  }
  std::string text_;
  std::vector<Key> keys_;
  size_t next_ = 0;
};

// A run since the last check the lists may name: failed, with an error or
// with CONCERNS: lines. finished_at and run_id as stored: the lists' order.
struct ListedRun {
  std::string finished_at, run_id;
  int64_t at = 0;
  std::string status, error, route, concerns_json;
};

class RunScan {
 public:
  RunScan(Db& db, const WorkflowConfig& config, ContextFacts* f)
      : db_(db), f_(f), goal_route_(config.primary_metric ? config.primary_metric->route : "") {
    int64_t today = StartOfDay(f->now);
    since_ = FormatTime(f->since);
    now_ = FormatTime(f->now);
    day_from_ = FormatTime(today - kMedianWindowSeconds).substr(0, 10);
    day_to_ = FormatTime(today).substr(0, 10);
    for (const Schedule& s : config.schedules) f->run_health.schedules.push_back({s.id, s.enabled, 0, 0, 0, "", 0});
  }

  Status Run() {
    PULSE_RETURN_IF_ERROR(ReadPulseRows());
    PULSE_RETURN_IF_ERROR(ReadGoalRows());
    ListRuns();
    return ErrorRateFromDays();
  }

 private:
  Status CountSince(std::string_view finished_at, std::string_view status, int64_t* at) {
    PULSE_ASSIGN_OR_RETURN(*at, TimeOf(finished_at));
    RunHealth& h = f_->run_health;
    ++h.runs;
    if (status == "completed") ++h.completed;
    else ++h.failed;
    return Status::OK();
  }

  // pulse_fact_runs: the window's rows whole (their errors and CONCERNS:
  // lines).
  Status ReadPulseRows() {
    PULSE_ASSIGN_OR_RETURN(Statement q, db_.Prepare(
        "SELECT run_id, finished_at, status, error, route, concerns_json FROM pulse_fact_runs"
        " WHERE finished_at > ?1 AND finished_at <= ?2 ORDER BY finished_at"));
    q.Bind(1, since_).Bind(2, now_);
    while (true) {
      PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) break;
      std::string_view id = View(q, 0), at_text = View(q, 1), status = View(q, 2);
      int64_t at = 0;
      PULSE_RETURN_IF_ERROR(CountSince(at_text, status, &at));
      keys_.Add(at_text, id);
      std::string_view error = View(q, 3), concerns = View(q, 5);
      if (status == "completed" && error.empty() && concerns == "[]") continue;
      listed_.push_back({std::string(at_text), std::string(id), at, Clean(status), Clean(error), Clean(View(q, 4)),
                         Clean(concerns)});
    }
    return Status::OK();
  }

  // goal_run_facts: every row since the last check counts for its
  // schedule; a row no pulse_fact_runs row has the run_id of is a run.
  Status ReadGoalRows() {
    PULSE_ASSIGN_OR_RETURN(Statement q, db_.Prepare(
        "SELECT finished_at, run_id, status, schedule_id, trigger FROM goal_run_facts"
        " WHERE finished_at > ?1 AND finished_at <= ?2 ORDER BY finished_at, run_id"));
    q.Bind(1, since_).Bind(2, now_);
    PULSE_ASSIGN_OR_RETURN(Statement probe, db_.Prepare("SELECT 1 FROM pulse_fact_runs WHERE run_id = ?1 LIMIT 1"));
    PULSE_ASSIGN_OR_RETURN(Statement rest, db_.Prepare("SELECT error, route FROM goal_run_facts WHERE run_id = ?1"));
    while (true) {
      PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) break;
      std::string_view at_text = View(q, 0), id = View(q, 1), status = View(q, 2);
      PULSE_RETURN_IF_ERROR(CountSchedule(ScheduleOf(View(q, 3), View(q, 4)), status, at_text));
      if (keys_.Has(at_text, id)) continue;  // its run.json row is the run
      // A run.json row of another time (outside the window) is the run too.
      probe.Reset();
      BindStored(probe, 1, id);
      PULSE_ASSIGN_OR_RETURN(bool shadowed, probe.Step());
      if (shadowed) continue;
      int64_t at = 0;
      PULSE_RETURN_IF_ERROR(CountSince(at_text, status, &at));
      rest.Reset();
      BindStored(rest, 1, id);
      PULSE_ASSIGN_OR_RETURN(bool found, rest.Step());
      std::string error = found ? Clean(View(rest, 0)) : "", route = found ? Clean(View(rest, 1)) : "";
      if (status == "completed" && error.empty()) continue;
      listed_.push_back({std::string(at_text), std::string(id), at, Clean(status), error, route, "[]"});
    }
    return Status::OK();
  }

  // Configured schedules first, then the ones only the runs name.
  Status CountSchedule(std::string_view sid, std::string_view status, std::string_view at_text) {
    if (sid.empty()) return Status::OK();
    std::vector<ScheduleHealth>& out = f_->run_health.schedules;
    const std::string id = Clean(sid);
    auto it = std::find_if(out.begin(), out.end(), [&](const ScheduleHealth& h) { return h.id == id; });
    if (it == out.end()) {
      if (out.size() >= kFactsListMax) return Status::OK();
      out.push_back(ScheduleHealth{id, false, 0, 0, 0, "", 0});
      it = out.end() - 1;
    }
    ++it->runs;
    if (status == "completed") ++it->completed;
    else ++it->failed;
    it->last_status = Clean(status);
    PULSE_ASSIGN_OR_RETURN(it->last_finished_at, TimeOf(at_text));
    return Status::OK();
  }

  // Newest first (ties by run id): the failed runs, CONCERNS: lines and
  // login hints, each list to kFactsListMax. The rest of the row breaks any
  // further tie, so rows that compare equal are identical and std::sort gives
  // the order a stable sort would (without a second sort algorithm in the
  // WASM module).
  void ListRuns() {
    std::sort(listed_.begin(), listed_.end(), [](const ListedRun& a, const ListedRun& b) {
      if (a.finished_at != b.finished_at) return a.finished_at > b.finished_at;
      return std::tie(a.run_id, a.at, a.status, a.error, a.route, a.concerns_json) <
             std::tie(b.run_id, b.at, b.status, b.error, b.route, b.concerns_json);
    });
    RunHealth& h = f_->run_health;
    for (const ListedRun& r : listed_) {
      if (h.failed_runs.size() >= kFactsListMax && h.concerns.size() >= kFactsListMax &&
          f_->login_hints.size() >= kFactsListMax) {
        break;
      }
      const std::string run_id = Clean(r.run_id);
      if (r.status != "completed" && h.failed_runs.size() < kFactsListMax) {
        h.failed_runs.push_back(
            {run_id, r.at, r.status, r.error.substr(0, 600), r.route, !goal_route_.empty() && r.route == goal_route_});
      }
      if (!r.error.empty()) AddLoginHints(run_id, r.at, "error", r.error, &f_->login_hints);
      // Most runs have no CONCERNS: lines; their "[]" needs no parse.
      if (r.concerns_json == "[]") continue;
      Result<json> concerns = ParseJsonBounded(r.concerns_json, "pulse_fact_runs.concerns_json", 4);
      if (!concerns.ok() || !concerns->is_array()) continue;
      for (const json& c : *concerns) {
        if (!c.is_string()) continue;
        std::string line = c.get<std::string>();
        if (h.concerns.size() < kFactsListMax) h.concerns.push_back({run_id, line.substr(0, 600)});
        AddLoginHints(run_id, r.at, "concerns", line, &f_->login_hints);
      }
    }
  }

  // The 14 whole UTC days before today; days without a run have no share.
  Status ErrorRateFromDays() {
    ErrorRate& e = f_->error_rate;
    e.runs = f_->run_health.runs;
    e.failed = f_->run_health.failed;
    if (e.runs > 0) e.share = static_cast<double>(e.failed) / static_cast<double>(e.runs);
    PULSE_ASSIGN_OR_RETURN(Statement days, db_.Prepare(
        "SELECT runs, failed FROM pulse_fact_run_days WHERE day >= ?1 AND day < ?2 AND runs > 0"));
    days.Bind(1, day_from_).Bind(2, day_to_);
    std::vector<double> shares;
    while (true) {
      PULSE_ASSIGN_OR_RETURN(bool row, days.Step());
      if (!row) break;
      shares.push_back(static_cast<double>(days.Int64(1)) / static_cast<double>(days.Int64(0)));
    }
    e.days_with_runs = static_cast<int64_t>(shares.size());
    e.median_daily_share = MedianShare(shares);
    e.spike = IsErrorRateSpike(e.runs, e.failed, e.median_daily_share);
    return Status::OK();
  }

  Db& db_;
  ContextFacts* f_;
  const std::string goal_route_;
  std::string since_, now_, day_from_, day_to_;
  RunKeys keys_;
  std::vector<ListedRun> listed_;
};

}  // namespace

std::string_view StoredText(const Statement& q, int col) { return View(q, col); }

void AddLoginHints(const std::string& run_id, int64_t at, const char* where, const std::string& text,
                   std::vector<LoginHint>* out) {
  size_t pos = 0;
  while (pos <= text.size() && out->size() < kFactsListMax) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, std::min<size_t>(end - pos, 400));
    for (LoginMatch& m : MatchLoginHints(line)) {
      out->push_back({run_id, at, where, m.pattern, m.matched, line});
      break;  // one hint per line: the first pattern names it
    }
    pos = end + 1;
  }
}

Status ReadRunFacts(Db& db, const WorkflowConfig& config, ContextFacts* f) {
  RunScan scan(db, config, f);
  return scan.Run();
}

}  // namespace pulse
