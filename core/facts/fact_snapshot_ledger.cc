// The snapshot's shared steps, the cost ledger and the run folders.
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/facts/fact_snapshot_util.h"
#include "core/goal/goal_facts.h"
#include "core/base/json_limits.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

// Error texts name the file as the workflow folder does ("costs/costs.sqlite:
// ..."), not by this machine's absolute path.
std::string Relative(std::string message, const std::string& dir) {
  const std::string prefix = dir + "/";
  for (size_t p = message.find(prefix); p != std::string::npos; p = message.find(prefix, p)) message.erase(p, prefix.size());
  return message;
}

std::string Bounded(const std::string& s, size_t max) {
  std::string ok = IsValidUtf8(s) ? s : RepairUtf8(s);
  if (ok.size() > max) ok = std::string(Utf8Prefix(ok, max)) + "…";
  return ok;
}

}  // namespace

// ---- SnapshotRun ----

void SnapshotRun::Warn(const std::string& file, const std::string& message) {
  int n = ++warned_[file];
  std::string line;
  if (n <= limits.max_warnings) line = Relative(message, dir);
  else if (n == limits.max_warnings + 1) line = file + ": more skipped (counted in the facts, not listed)";
  else return;
  report.warnings.push_back(line);
  env.Log(LogLevel::kWarn, line);
}

void SnapshotRun::Skip(const std::string& file, const std::string& message) {
  first_skip_.emplace(file, Relative(message, dir));
  Warn(file, message + ", skipped");
}

int64_t SnapshotRun::Mark(const char* file) {
  Result<Statement> q = db.Prepare("SELECT mark FROM pulse_fact_sources WHERE file = ?");
  if (!q.ok()) return 0;
  q->Bind(1, file);
  Result<bool> row = q->Step();
  return row.ok() && *row ? q->Int64(0) : 0;
}

bool SnapshotRun::StoredOk(const char* file, const SourceRead& src, int64_t mark) {
  Result<Statement> q = db.Prepare("SELECT 1 FROM pulse_fact_sources WHERE file = ? AND state = 'ok'"
                                   " AND mtime = ? AND size = ? AND mark = ?");
  if (!q.ok()) return false;
  q->Bind(1, file).Bind(2, src.mtime).Bind(3, src.size).Bind(4, mark);
  Result<bool> row = q->Step();
  return row.ok() && *row;
}

Status SnapshotRun::PutSource(const char* file, const char* state, const std::string& reason, int64_t skipped,
                              const SourceRead& src, const int64_t* mark, bool copied) {
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT INTO pulse_fact_sources(file, state, reason, skipped, read_at, mtime, size, mark)"
      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, coalesce(?8, 0))"
      " ON CONFLICT(file) DO UPDATE SET state = ?2,"
      " reason = CASE WHEN ?2 = 'ok' AND ?3 = '' AND ?4 > 0 THEN reason ELSE ?3 END,"
      " skipped = ?4, read_at = ?5, mtime = ?6, size = ?7, mark = coalesce(?8, mark)"
      // A read that copied nothing and found what the row already says
      // writes nothing: a repeated check on unchanged files leaves the
      // database as it was, so `read_at` is the last read that copied rows
      // or changed the row.
      " WHERE ?9 OR state IS NOT ?2 OR skipped IS NOT ?4 OR mtime IS NOT ?6 OR size IS NOT ?7"
      " OR mark IS NOT coalesce(?8, mark)"
      " OR reason IS NOT (CASE WHEN ?2 = 'ok' AND ?3 = '' AND ?4 > 0 THEN reason ELSE ?3 END)"));
  std::string why = reason;
  if (why.empty() && std::string(state) == "ok") {
    auto it = first_skip_.find(file);
    if (it != first_skip_.end()) why = it->second;
  }
  put.Bind(1, file).Bind(2, state).Bind(3, why).Bind(4, skipped).Bind(5, FormatTime(now)).Bind(6, src.mtime)
      .Bind(7, src.size);
  if (mark) put.Bind(8, *mark);
  else put.BindNull(8);
  put.Bind(9, static_cast<int64_t>(copied));
  return put.Run();
}

bool SnapshotRun::OpenTextFile(const char* file, int64_t max_bytes, SourceRead* out, const char* rows_table) {
  const std::string path = Path(file);
  if (!env.FileExists(path)) {
    Missing(file, rows_table);
    return false;
  }
  Result<int64_t> size = env.FileSize(path);
  Result<int64_t> mtime = env.ModifiedAt(path);
  out->size = size.ok() ? *size : 0;
  out->mtime = mtime.ok() ? *mtime : 0;
  // Unchanged since the last read (same time and size): its rows are stored.
  Result<Statement> q = db.Prepare("SELECT 1 FROM pulse_fact_sources WHERE file = ? AND state != 'missing'"
                                   " AND mtime = ? AND size = ?");
  if (q.ok() && mtime.ok() && size.ok()) {
    q->Bind(1, file).Bind(2, out->mtime).Bind(3, out->size);
    Result<bool> same = q->Step();
    if (same.ok() && *same) return false;
  }
  if (!size.ok()) {
    Unreadable(file, *out, std::string(file) + ": " + Relative(size.status().message(), dir));
    return false;
  }
  if (*size > max_bytes) {
    Unreadable(file, *out, std::string(file) + ": too large (" + std::to_string(*size) + " bytes; the bound is " +
                               std::to_string(max_bytes) + ")");
    return false;
  }
  Result<std::string> text = env.ReadFile(path);
  if (!text.ok()) {
    Unreadable(file, *out, Relative(text.status().message(), dir));
    return false;
  }
  out->text = std::move(*text);
  return true;
}

void SnapshotRun::Store(const char* file, const SourceRead& src, int64_t skipped,
                        const std::function<Status(Db&)>& write) {
  Transaction tx(db);
  Status s = tx.Begin();
  if (s.ok()) s = write(db);
  if (s.ok()) s = PutSource(file, "ok", "", skipped, src, nullptr, /*copied=*/true);
  if (s.ok()) s = tx.Commit();
  if (!s.ok()) Warn(file, std::string(file) + ": not stored: " + s.message());
}

void SnapshotRun::Unreadable(const char* file, const SourceRead& src, const std::string& reason) {
  Warn(file, reason);
  Status s = PutSource(file, "unreadable", Relative(reason, dir), 0, src);
  if (!s.ok()) Warn(file, std::string(file) + ": " + s.message());
}

void SnapshotRun::Missing(const char* file, const char* rows_table) {
  Result<int64_t> rows =
      rows_table ? db.QueryInt64(std::string("SELECT EXISTS (SELECT 1 FROM ") + rows_table + ")") : Result<int64_t>(int64_t{0});
  Status s = rows.status();
  if (s.ok() && *rows) {
    Transaction tx(db);
    s = tx.Begin();
    if (s.ok()) s = db.Exec(std::string("DELETE FROM ") + rows_table);
    if (s.ok()) s = PutSource(file, "missing", "", 0, SourceRead{});
    if (s.ok()) s = tx.Commit();
  } else if (s.ok()) {
    s = PutSource(file, "missing", "", 0, SourceRead{});
  }
  if (!s.ok()) Warn(file, std::string(file) + ": " + s.message());
}

// ---- the cost ledger ----

namespace {

struct LedgerRow {
  int64_t rowid = 0;
  std::string at;
  std::optional<std::string> run_id;
  std::string source;
  double usd = 0;
};

// One ledger row, checked; InvalidArgument "row N: <problem>".
Status ReadLedgerRow(Statement& q, LedgerRow* row) {
  sqlite3_stmt* st = q.handle();
  row->rowid = q.Int64(0);
  const std::string where = std::string(kLedgerFile) + ": row " + std::to_string(row->rowid);
  if (sqlite3_column_type(st, 1) != SQLITE_TEXT) return Status::InvalidArgument(where + ": at is not a time");
  Result<std::string> at = NormalizeTime(q.Text(1), where + ": at");
  if (!at.ok()) return at.status();
  row->at = *at;
  int usd_type = sqlite3_column_type(st, 4);
  if (usd_type != SQLITE_FLOAT && usd_type != SQLITE_INTEGER) return Status::InvalidArgument(where + ": usd is not a number");
  row->usd = q.Double(4);
  if (!std::isfinite(row->usd)) return Status::InvalidArgument(where + ": usd is not finite");
  if (row->usd < 0) return Status::InvalidArgument(where + ": usd " + std::to_string(row->usd) + " is negative");
  if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
    std::string id = Bounded(q.Text(2), 200);
    if (!id.empty()) row->run_id = id;
  }
  row->source = sqlite3_column_type(st, 3) == SQLITE_NULL ? "" : Bounded(q.Text(3), 100);
  return Status::OK();
}

Status StoreLedgerRows(Db& db, const std::vector<LedgerRow>& rows) {
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      // An upsert, not INSERT OR REPLACE: a replaced row would leave the
      // hourly and per-run sums (kept by triggers) counting it still.
      "INSERT INTO pulse_fact_costs(ledger_rowid, at, run_id, source, usd) VALUES(?, ?, ?, ?, ?)"
      " ON CONFLICT(ledger_rowid) DO UPDATE SET at = excluded.at, run_id = excluded.run_id,"
      " source = excluded.source, usd = excluded.usd"));
  for (const LedgerRow& r : rows) {
    put.Bind(1, r.rowid).Bind(2, r.at);
    if (r.run_id) put.Bind(3, *r.run_id);
    else put.BindNull(3);
    put.Bind(4, r.source).Bind(5, r.usd);
    PULSE_RETURN_IF_ERROR(put.Run());
    put.Reset();
  }
  return Status::OK();
}

}  // namespace

void SnapshotLedger(SnapshotRun& run) {
  const std::string path = run.Path(kLedgerFile);
  if (!run.env.FileExists(path)) return run.Missing(kLedgerFile);
  SourceRead src;
  if (Result<int64_t> size = run.env.FileSize(path); size.ok()) src.size = *size;
  if (Result<int64_t> mtime = run.env.ModifiedAt(path); mtime.ok()) src.mtime = *mtime;
  OpenOptions ro;
  ro.create = false;
  ro.read_only = true;
  ro.wal = false;
  Result<std::unique_ptr<Db>> ledger = Db::Open(path, ro);
  if (!ledger.ok()) return run.Unreadable(kLedgerFile, src, Relative(ledger.status().message(), run.dir));
  (void)(*ledger)->Exec("PRAGMA query_only=1");
  int64_t mark = run.Mark(kLedgerFile);
  Result<int64_t> top = (*ledger)->QueryInt64("SELECT coalesce(max(rowid), 0) FROM cost_events");
  if (!top.ok()) return run.Unreadable(kLedgerFile, src, Relative(top.status().message(), run.dir));
  if (*top < mark) {
    run.Warn(kLedgerFile, std::string(kLedgerFile) + ": the ledger shrank (last row " + std::to_string(*top) +
                              ", " + std::to_string(mark) + " copied before); reading it again from the start");
    mark = 0;
  }
  Result<Statement> q = (*ledger)->Prepare(
      "SELECT rowid, at, run_id, source, usd FROM cost_events WHERE rowid > ? ORDER BY rowid LIMIT ?");
  if (!q.ok()) return run.Unreadable(kLedgerFile, src, Relative(q.status().message(), run.dir));
  q->Bind(1, mark).Bind(2, run.limits.max_ledger_rows);
  std::vector<LedgerRow> rows;
  int64_t skipped = 0, last = mark;
  for (;;) {
    Result<bool> more = q->Step();
    if (!more.ok()) return run.Unreadable(kLedgerFile, src, Relative(more.status().message(), run.dir));
    if (!*more) break;
    LedgerRow row;
    Status s = ReadLedgerRow(*q, &row);
    last = row.rowid;
    if (!s.ok()) {
      ++skipped;
      run.Skip(kLedgerFile, s.message());
      continue;
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty() && skipped == 0 && run.StoredOk(kLedgerFile, src, last)) return;  // nothing new
  // Skipped rows add up across reads: each read copies only the new rows.
  Result<Statement> prior = run.db.Prepare("SELECT skipped FROM pulse_fact_sources WHERE file = ? AND state = 'ok'");
  int64_t before = 0;
  if (prior.ok() && mark > 0) {
    prior->Bind(1, kLedgerFile);
    if (Result<bool> r = prior->Step(); r.ok() && *r) before = prior->Int64(0);
  }
  Transaction tx(run.db);
  Status s = tx.Begin();
  if (s.ok()) s = StoreLedgerRows(run.db, rows);
  if (s.ok()) s = run.PutSource(kLedgerFile, "ok", "", before + skipped, src, &last, !rows.empty());
  if (s.ok()) s = tx.Commit();
  if (!s.ok()) run.Warn(kLedgerFile, std::string(kLedgerFile) + ": not stored: " + s.message());
}

// ---- run folders ----

namespace {

struct RunFolder {
  int64_t iteration = 0;
  std::string name;
};

// "iteration-<N>" folders newer than `mark` less a margin (a run may finish
// after a later one started), newest first.
std::vector<RunFolder> CandidateFolders(const std::vector<std::string>& names, int64_t mark) {
  std::vector<RunFolder> out;
  const std::string prefix = "iteration-";
  for (const std::string& n : names) {
    if (n.rfind(prefix, 0) != 0 || n.size() > prefix.size() + 12) continue;
    std::string digits = n.substr(prefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    int64_t it = std::strtoll(digits.c_str(), nullptr, 10);
    if (it > mark - 64) out.push_back({it, n});
  }
  std::sort(out.begin(), out.end(), [](const RunFolder& a, const RunFolder& b) { return a.iteration > b.iteration; });
  return out;
}

struct RunRow {
  std::string folder;
  RunRecord run;
  json concerns = json::array();
  std::optional<double> cost;
};

// One run folder's run.json (and route_selection.json when present).
Status ReadRunRow(SnapshotRun& run, const std::string& folder, RunRow* out) {
  const std::string rel = std::string(kRunsDir) + "/" + folder + "/default/run.json";
  PULSE_ASSIGN_OR_RETURN(int64_t size, run.env.FileSize(run.Path(rel.c_str())));
  if (size > run.limits.max_run_json_bytes) {
    return Status::InvalidArgument(rel + ": too large (" + std::to_string(size) + " bytes; the bound is " +
                                   std::to_string(run.limits.max_run_json_bytes) + ")");
  }
  PULSE_ASSIGN_OR_RETURN(std::string text, run.env.ReadFile(run.Path(rel.c_str())));
  PULSE_ASSIGN_OR_RETURN(json doc, ParseJsonBounded(text, rel, 16));
  PULSE_ASSIGN_OR_RETURN(out->run, ParseRunJson(doc, rel));
  out->folder = folder;
  out->run.error = Bounded(out->run.error, 4000);
  if (doc.contains("concerns") && doc["concerns"].is_array()) {
    for (const json& c : doc["concerns"]) {
      if (c.is_string() && out->concerns.size() < 50) out->concerns.push_back(Bounded(c.get<std::string>(), 1000));
    }
  }
  if (doc.contains("cost_usd") && !doc["cost_usd"].is_null()) {
    const json& c = doc["cost_usd"];
    if (!c.is_number() || !std::isfinite(c.get<double>()) || c.get<double>() < 0) {
      run.Warn(kRunsDir, rel + ": cost_usd is not a finite amount of zero or more, ignored");
    } else {
      out->cost = c.get<double>();
    }
  }
  const std::string sel = std::string(kRunsDir) + "/" + folder + "/default/route_selection.json";
  if (run.env.FileExists(run.Path(sel.c_str()))) {
    Result<std::string> stext = run.env.ReadFile(run.Path(sel.c_str()));
    Result<json> sdoc = stext.ok() && stext->size() < 65536 ? ParseJsonBounded(*stext, sel, 8)
                                                            : Result<json>(Status::InvalidArgument(sel + ": unreadable"));
    Result<std::string> route = sdoc.ok() ? ParseRouteSelection(*sdoc, sel) : Result<std::string>(sdoc.status());
    if (route.ok()) out->run.route = Bounded(*route, 200);
  }
  return Status::OK();
}

Status StoreRunRows(Db& db, const std::vector<RunRow>& rows) {
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      // An upsert, not a REPLACE: the run-day counts' triggers see the change.
      "INSERT INTO pulse_fact_runs(folder, run_id, started_at, finished_at, status, error,"
      " concerns_json, cost_usd, route) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)"
      " ON CONFLICT(folder) DO UPDATE SET run_id = excluded.run_id, started_at = excluded.started_at,"
      " finished_at = excluded.finished_at, status = excluded.status, error = excluded.error,"
      " concerns_json = excluded.concerns_json, cost_usd = excluded.cost_usd, route = excluded.route"));
  for (const RunRow& r : rows) {
    put.Bind(1, r.folder).Bind(2, r.run.run_id).Bind(3, FormatTime(r.run.started_at))
        .Bind(4, FormatTime(r.run.finished_at)).Bind(5, r.run.status).Bind(6, r.run.error)
        .Bind(7, r.concerns.dump());
    if (r.cost) put.Bind(8, *r.cost);
    else put.BindNull(8);
    put.Bind(9, r.run.route);
    PULSE_RETURN_IF_ERROR(put.Run());
    put.Reset();
  }
  return Status::OK();
}

}  // namespace

namespace {

// Folders that could not be read get a problem row; folders read fine lose
// theirs.
Status StoreRunProblems(SnapshotRun& run, const std::vector<std::pair<std::string, std::string>>& problems,
                        const std::vector<RunRow>& rows) {
  PULSE_ASSIGN_OR_RETURN(Statement put, run.db.Prepare(
      // `seen_at` is when the folder was first seen so: seeing it again writes nothing.
      "INSERT INTO pulse_fact_run_problems(folder, reason, seen_at) VALUES(?1, ?2, ?3)"
      " ON CONFLICT(folder) DO UPDATE SET reason = ?2, seen_at = ?3 WHERE reason IS NOT ?2"));
  for (const auto& [folder, reason] : problems) {
    put.Bind(1, folder).Bind(2, reason).Bind(3, FormatTime(run.now));
    PULSE_RETURN_IF_ERROR(put.Run());
    put.Reset();
  }
  PULSE_ASSIGN_OR_RETURN(Statement del, run.db.Prepare("DELETE FROM pulse_fact_run_problems WHERE folder = ?"));
  for (const RunRow& r : rows) {
    del.Bind(1, r.folder);
    PULSE_RETURN_IF_ERROR(del.Run());
    del.Reset();
  }
  return Status::OK();
}

}  // namespace

void SnapshotRunFolders(SnapshotRun& run) {
  const std::string dir = run.Path(kRunsDir);
  if (!run.env.IsDirectory(dir)) return run.Missing(kRunsDir);
  Result<std::vector<std::string>> names = run.env.ListDir(dir);
  if (!names.ok()) return run.Unreadable(kRunsDir, SourceRead{}, Relative(names.status().message(), run.dir));
  int64_t mark = run.Mark(kRunsDir);
  Result<Statement> known = run.db.Prepare("SELECT 1 FROM pulse_fact_runs WHERE folder = ?");
  if (!known.ok()) return run.Warn(kRunsDir, known.status().message());
  std::vector<RunRow> rows;
  std::vector<std::pair<std::string, std::string>> problems;
  int64_t skipped = 0, top = mark;
  bool newest = true;
  for (const RunFolder& f : CandidateFolders(*names, mark)) {
    const bool is_newest = newest;
    newest = false;
    if (static_cast<int>(rows.size()) + skipped >= run.limits.max_run_folders) break;
    known->Bind(1, f.name);
    Result<bool> has = known->Step();
    known->Reset();
    if (!has.ok() || *has) continue;
    const std::string rel = std::string(kRunsDir) + "/" + f.name + "/default/run.json";
    // The newest folder without run.json is a run still going: read it next
    // time. An older one lost its run.json (or never wrote it).
    if (!run.env.FileExists(run.Path(rel.c_str()))) {
      if (!is_newest) problems.emplace_back(f.name, rel + ": missing (a later run has finished)");
      continue;
    }
    RunRow row;
    Status s = ReadRunRow(run, f.name, &row);
    if (!s.ok()) {
      ++skipped;
      const std::string why = Relative(s.message(), run.dir);
      run.Skip(kRunsDir, why);
      problems.emplace_back(f.name, why);
      continue;
    }
    top = std::max(top, f.iteration);
    rows.push_back(std::move(row));
  }
  // Nothing new: no folder read, none failing, and the source row says so.
  if (rows.empty() && skipped == 0 && problems.empty() && run.StoredOk(kRunsDir, SourceRead{}, top)) return;
  Transaction tx(run.db);
  Status s = tx.Begin();
  if (s.ok()) s = StoreRunRows(run.db, rows);
  if (s.ok()) s = StoreRunProblems(run, problems, rows);
  if (s.ok()) s = run.PutSource(kRunsDir, "ok", "", skipped, SourceRead{}, &top, !rows.empty());
  if (s.ok()) s = tx.Commit();
  if (!s.ok()) run.Warn(kRunsDir, std::string(kRunsDir) + ": not stored: " + s.message());
}

}  // namespace pulse
