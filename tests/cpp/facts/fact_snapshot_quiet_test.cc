// A goal status computed again on unchanged outside files writes nothing to
// the workflow database (so readers kept on other connections stay valid),
// and a changed file is still copied.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>

#include "core/api/api.h"
#include "core/facts/fact_snapshot.h"
#include "tests/cpp/goal/goal_test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::GoalConfigJson;
using testing::GoalDb;
using testing::T;
using testing::WriteFile;

const char kNow[] = "2026-10-07T12:00:00Z";

void Exec(Db& db, const std::string& sql) { ASSERT_TRUE(db.Exec(sql).ok()) << sql; }

class QuietFixture {
 public:
  QuietFixture() : g_(GoalConfigJson(), kNow) {
    Write("planning/changelog.jsonl",
          R"({"at": "2026-10-07T09:00:00Z", "tool": "plan.edit", "steps": ["draft"], "session": "b-1"})" "\n"
          "not json\n");
    Write("chats.json", R"([{"session_id": "b-1", "kind": "builder"}, {"kind": "no id"}])");
    Write("runs/iteration-1/default/run.json",
          R"({"run_id": "r-1", "started_at": "2026-10-07T08:00:00Z", "finished_at": "2026-10-07T08:10:00Z",
              "status": "failed", "error": "boom"})");
    Write("runs/iteration-2/default/run.json", "{ not json");
    Write("runs/iteration-3/default/.keep", "");  // still going: no run.json yet
    Write("runs/iteration-4/default/run.json",
          R"({"run_id": "r-4", "started_at": "2026-10-07T10:00:00Z", "finished_at": "2026-10-07T10:10:00Z",
              "status": "completed"})");
    // planning/plan.json is missing.
    OpenOptions rollback;  // the ledger's own journal mode is not Pulse's to choose
    rollback.wal = false;
    const std::string ledger_path = g_.dir().Join("costs/costs.sqlite");
    WriteFile(ledger_path, "");  // makes the folder
    std::remove(ledger_path.c_str());
    auto ledger = Db::Open(ledger_path, rollback);
    if (!ledger.ok()) ADD_FAILURE() << ledger.status().message(), std::abort();
    ledger_ = std::move(*ledger);
    Exec(*ledger_, "CREATE TABLE cost_events(at TEXT, run_id TEXT NULL, source TEXT, usd REAL)");
    Exec(*ledger_, "INSERT INTO cost_events VALUES('2026-10-07T08:05:00Z', 'r-1', 'run', 1.5),"
                   " ('2026-10-07T08:06:00Z', 'r-1', 'run', -3)");
    auto made = ContextFromDb(g_.db(), g_.env());
    EXPECT_TRUE(made.ok());
    ctx_ = *made;
    ctx_.workflow_dir = g_.dir().path();
    ctx_.outside_files = &ReadOutsideFiles;  // the folder at hand, as the native program has it
    auto watcher = Db::Open(g_.dir().Join("db.sqlite"));
    EXPECT_TRUE(watcher.ok());
    watcher_ = std::move(*watcher);
  }

  void Write(const std::string& rel, const std::string& text) { WriteFile(g_.dir().Join(rel), text); }
  GoalDb& g() { return g_; }
  Db& ledger() { return *ledger_; }

  json Check() {
    auto doc = CallApi(ctx_, "goal.check", json::object());
    EXPECT_TRUE(doc.ok()) << doc.status().message();
    return doc.ok() ? *doc : json();
  }
  // What another connection sees change: its data_version moves with every
  // commit made elsewhere.
  int64_t DataVersion() {
    auto v = watcher_->QueryInt64("PRAGMA data_version");
    EXPECT_TRUE(v.ok());
    return v.ok() ? *v : -1;
  }
  int64_t Changes() { return sqlite3_total_changes64(g_.db().handle()); }

  static json Source(const json& doc, const std::string& file) {
    for (const json& s : doc["facts"]["sources"]) {
      if (s["file"] == file) return s;
    }
    return json();
  }

 private:
  GoalDb g_;
  std::unique_ptr<Db> ledger_;
  std::unique_ptr<Db> watcher_;
  ApiContext ctx_;
};

TEST(FactSnapshotQuiet, RepeatedCheckOnUnchangedInputsWritesNothing) {
  QuietFixture fx;
  json first = fx.Check();
  ASSERT_EQ(fx.Source(first, "planning/plan.json")["state"], "missing");
  ASSERT_EQ(fx.Source(first, "costs/costs.sqlite")["skipped"], 1);
  ASSERT_EQ(fx.Source(first, "runs")["skipped"], 1);
  ASSERT_EQ(first["facts"]["run_health"]["unreadable"].size(), 2u);
  const int64_t version = fx.DataVersion();
  const int64_t changes = fx.Changes();
  EXPECT_EQ(fx.Check(), first);
  EXPECT_EQ(fx.DataVersion(), version);
  EXPECT_EQ(fx.Changes(), changes);
  // A later clock on the same files: still nothing written, and each
  // source's read_at stays the time its row last changed.
  fx.g().env().Advance(3600);
  json later = fx.Check();
  EXPECT_EQ(fx.DataVersion(), version);
  EXPECT_EQ(fx.Changes(), changes);
  EXPECT_EQ(later["facts"]["sources"], first["facts"]["sources"]);
  EXPECT_EQ(fx.Source(later, "planning/plan.json")["read_at"], kNow);
}

TEST(FactSnapshotQuiet, AChangedInputIsStillCopied) {
  QuietFixture fx;
  json first = fx.Check();
  const int64_t version = fx.DataVersion();
  fx.g().env().Advance(60);
  Exec(fx.ledger(), "INSERT INTO cost_events VALUES('2026-10-07T11:00:00Z', 'r-4', 'run', 2.25)");
  json after = fx.Check();
  EXPECT_NE(fx.DataVersion(), version);
  EXPECT_EQ(fx.g().Count("SELECT count(*) FROM pulse_fact_costs WHERE run_id = 'r-4'"), 1);
  EXPECT_EQ(fx.Source(after, "costs/costs.sqlite")["read_at"], "2026-10-07T12:01:00Z");
  EXPECT_EQ(fx.Source(after, "costs/costs.sqlite")["skipped"], 1);
  EXPECT_EQ(fx.Source(after, "chats.json")["read_at"], kNow);

  const int64_t v2 = fx.DataVersion();
  fx.Write("planning/plan.json", R"({"routes": {"growth_funnel": {"steps": ["draft"]}}})");
  json planned = fx.Check();
  EXPECT_NE(fx.DataVersion(), v2);
  EXPECT_EQ(fx.Source(planned, "planning/plan.json")["state"], "ok");
  EXPECT_EQ(fx.g().Count("SELECT count(*) FROM pulse_fact_route_steps WHERE step = 'draft'"), 1);

  const int64_t v3 = fx.DataVersion();
  fx.Write("runs/iteration-3/default/run.json",
           R"({"run_id": "r-3", "started_at": "2026-10-07T09:00:00Z", "finished_at": "2026-10-07T09:10:00Z",
               "status": "completed"})");
  json ran = fx.Check();
  EXPECT_NE(fx.DataVersion(), v3);
  EXPECT_EQ(fx.g().Count("SELECT count(*) FROM pulse_fact_runs WHERE run_id = 'r-3'"), 1);
  EXPECT_EQ(fx.Source(ran, "runs")["read_at"], "2026-10-07T12:01:00Z");
}

}  // namespace
}  // namespace pulse
