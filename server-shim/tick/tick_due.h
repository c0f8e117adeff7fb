// The tick's due-index: which workflows the tick (and the outbox deliverer)
// may pass over without opening their database, because nothing they read
// changed since a visit found nothing to do and the clock has not reached the
// next time a rule of the tick could fire by the clock alone.
//
// What a visit reads: the database (stamped as db_stamp.h does), workflow.json,
// schedule-runs.json, the planning files and runs/. Any of them moving, the
// clock passing the quiet horizon or going back before the visit, or the
// workflow being new sends the tick in again.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/api/api.h"
#include "server-shim/db_stamp.h"
#include "server-shim/tick/visit_stamp.h"

namespace pulse::serve {

class TurnManager;
struct ServeOptions;

struct WorkflowStamp {
  DbStamp db;
  std::vector<FileStamp> files;  // workflow.json, schedule-runs.json, planning/*, runs/
  bool operator==(const WorkflowStamp& o) const { return db == o.db && files == o.files; }
  bool operator!=(const WorkflowStamp& o) const { return !(*this == o); }
};

// Stats only: no database is opened.
WorkflowStamp StampWorkflow(const std::string& workspace, const std::string& workflow);

// The earliest time a rule of the tick could become due by the clock alone
// (the next UTC day for the daily goal check and focus end dates, the next
// pulse.full_pass.cron fire, the next safe_default_by, the plan's quiet
// time for a Workflow Review ahead); nullopt when it cannot be said (a
// queued ask, a review running, a malformed cron): then the workflow is
// visited on every tick. `now` is the clock the visit ran on.
std::optional<int64_t> TickQuietUntil(Env& env, ApiContext& ctx, int64_t now);

// For the outbox deliverer: nothing waits to be planned or retried, so only
// a change of the database or workflow.json can give it work.
bool OutboxQuiet(ApiContext& ctx);

class DueIndex {
 public:
  explicit DueIndex(std::string workspace) : workspace_(std::move(workspace)) {}
  // Kept over a restart in <workspace>/.pulse/<file_name> (tick_due_file.cc):
  // an entry read back may last at most `max_quiet_seconds` from its visit,
  // and the file is written at most every `min_save_seconds` (Save(true)
  // writes at once).
  DueIndex(std::string workspace, const std::string& file_name, int64_t max_quiet_seconds, double min_save_seconds)
      : workspace_(std::move(workspace)), file_(workspace_ + "/.pulse/" + file_name),
        max_quiet_seconds_(max_quiet_seconds), min_save_seconds_(min_save_seconds) {}
  // Reads the file; a missing one is an empty index, one that fails a check
  // is ignored with one warning line.
  void Load();
  // Writes the entries when they changed since the file was last written.
  void Save(bool force);
  // True when `workflow` may be passed over at `now`: its stamp is the one a
  // quiet visit recorded and now is in [visited_at, until).
  bool Quiet(const std::string& workflow, int64_t now);
  // After a visit found nothing to do and closed the database: recorded only
  // if the files still match `expected` (the other files as they were before
  // the visit opened the database, the database as OwnWrites stamped it): a
  // write by anyone else, during the visit or since, means visit again.
  void MarkQuiet(const std::string& workflow, const WorkflowStamp& expected, int64_t visited_at, int64_t until);
  // Drops entries of workflows no longer listed.
  void Retain(const std::vector<std::string>& workflows);
  size_t size();

 private:
  struct Entry {
    WorkflowStamp stamp;
    int64_t visited_at = 0;
    int64_t until = 0;
  };
  Status ParseEntries(const std::string& text, std::map<std::string, Entry>* out) const;
  std::string workspace_;
  std::string file_;  // empty: kept in memory only
  int64_t max_quiet_seconds_ = INT64_MAX;
  double min_save_seconds_ = 0;
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
  bool saved_ = false;  // the file holds entries_ as they are
  bool save_warned_ = false;
  std::chrono::steady_clock::time_point last_save_{};
};

// The index of the tick or the deliverer, kept in <workspace>/.pulse/<file_name>
// over a restart (in memory only with --etcd).
std::unique_ptr<DueIndex> DueIndexFor(const ServeOptions& options, const std::string& file_name,
                                      int64_t max_quiet_seconds, double min_save_seconds);

// One tick's visit of one workflow, declared before the workflow is opened so
// its end (after the database closed) records whether the visit was quiet.
class TickVisit {
 public:
  TickVisit(DueIndex& index, Env& env, const ServeOptions& options, TurnManager& turns, const std::string& workflow);
  ~TickVisit();
  // The index says the workflow may be passed over.
  bool skip() const { return skip_; }
  // Right after the database opened.
  void Opened(Db& db) { own_.Begin(db); }
  // The visit left work for the next pass (runs still to import): it is not
  // recorded as quiet, whatever it wrote.
  void NotQuiet() { not_quiet_ = true; }
  // Called with the workflow still open, after everything the tick did (its
  // last use of the database).
  void Done(ApiContext& ctx);

 private:
  // No turn of this workflow, no review anywhere, the goal checks' cap not
  // reached: what the tick skipped was skipped by the rules, not by load.
  bool Calm() const;

  DueIndex& index_;
  Env& env_;
  const ServeOptions& options_;
  TurnManager& turns_;
  std::string workflow_;
  int64_t now_ = 0;
  bool skip_ = false;
  bool calm_before_ = false;
  bool not_quiet_ = false;
  WorkflowStamp before_;
  OwnWrites own_;
  std::optional<DbStamp> db_after_;
  std::optional<int64_t> until_;
};

// The calling thread (the tick's, the outbox deliverer's) yields the CPU to
// the HTTP side: nice 10 for this thread only, so a long pass never starves
// the answers. Threads it starts (the turns the tick starts) inherit it.
void LowerThreadPriority(const char* who);

// What the last tick pass did, for /api/health.
struct TickStats {
  bool running = false;  // a pass is under way now (the other fields are the last finished one's)
  int64_t workflows = 0;
  int64_t visited = 0;
  int64_t skipped = 0;
  int64_t importing = 0;  // visits that left runs of schedule-runs.json for the next pass (--import-batch)
  double seconds = 0;
};
// {running, workflows, visited, skipped, importing, seconds}
nlohmann::json TickStatsJson(const TickStats& stats);

}  // namespace pulse::serve
