// The agent log read a page at a time: a cursor walks every matching row
// exactly once, newest first, whatever the filters; filters combine; and each
// page is a walk down an index (EXPLAIN QUERY PLAN: an index, no sort).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/agent_log/agent_log.h"
#include "core/agent_log/agent_log_page.h"
#include "core/store/db.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

namespace fs = std::filesystem;
using testing::T;
using testing::TempDir;

const int64_t kNow = T("2026-10-07T12:00:00Z");

// 1,500 rows over ten days: sessions of 50, Pulse runs of 10, a failed row
// every 7th, a running row every 101st, some rows sharing a start time and
// a few recorded by their completion only.
std::unique_ptr<Db> MakeLog(const std::string& path) {
  fs::create_directories(fs::path(path).parent_path());
  auto opened = Db::Open(path);
  EXPECT_TRUE(opened.ok());
  std::unique_ptr<Db> db = std::move(opened).value();
  EXPECT_TRUE(EnsureSchema(*db).ok());
  AgentLogWriter w(*db);
  for (int i = 0; i < 1500; ++i) {
    const int64_t at = kNow - 10 * kSecondsPerDay + (i / 2) * 1150;  // pairs share a start
    const std::string session = "sess-" + std::to_string(i / 50), agent = "agent-" + std::to_string(i);
    if (i % 97 != 3) {
      AgentStart s;
      s.session_id = session;
      s.agent_id = agent;
      s.pulse_run_id = "pr-" + std::to_string(i / 10);
      s.at = at;
      EXPECT_TRUE(w.Started("Workflow/demo", s, at).ok());
    }
    if (i % 101 == 0 && i % 97 != 3) continue;  // still running
    AgentCompletion d;
    d.session_id = session;
    d.agent_id = agent;
    d.status = i % 7 == 0 ? "failed" : "completed";
    d.at = at + 600;
    EXPECT_TRUE(w.Completed("Workflow/demo", d, at + 600).ok());
  }
  return db;
}

// Every page of `q`, `limit` rows at a time, in order.
std::vector<AgentLogRow> Walk(Db& db, const AgentLogQuery& q, int64_t limit, int* pages = nullptr) {
  std::vector<AgentLogRow> out;
  std::string cursor;
  for (int n = 1;; ++n) {
    auto page = ReadAgentLogPage(db, q, limit, cursor, kNow);
    EXPECT_TRUE(page.ok()) << page.status().message();
    if (!page.ok()) break;
    EXPECT_LE(static_cast<int64_t>(page->rows.size()), limit);
    out.insert(out.end(), page->rows.begin(), page->rows.end());
    if (pages) *pages = n;
    if (page->next_cursor.empty()) break;
    cursor = page->next_cursor;
    if (n > 10000) break;
  }
  return out;
}

std::vector<std::string> Ids(std::vector<AgentLogRow> rows, bool reverse) {
  std::vector<std::string> ids;
  for (const auto& r : rows) ids.push_back(r.session_id + "/" + r.agent_id);
  if (reverse) std::reverse(ids.begin(), ids.end());
  return ids;
}

std::vector<AgentLogQuery> Filters() {
  std::vector<AgentLogQuery> out(1);
  AgentLogQuery q;
  q.status = "failed";
  out.push_back(q);
  q = {};
  q.session_id = "sess-7";
  out.push_back(q);
  q = {};
  q.pulse_run_id = "pr-42";
  out.push_back(q);
  q = {};
  q.since = kNow - 3 * kSecondsPerDay;
  out.push_back(q);
  q.include_running = true;
  out.push_back(q);
  q = {};  // combined: a session's failed rows of the last week
  q.session_id = "sess-20";
  q.status = "failed";
  q.since = kNow - 7 * kSecondsPerDay;
  out.push_back(q);
  q = {};
  q.status = "stuck";
  q.stuck_after_minutes = 60;
  out.push_back(q);
  q = {};  // two rows started before it and completed after it
  q.since = kNow - 7 * kSecondsPerDay + 100;
  out.push_back(q);
  return out;
}

TEST(AgentLogPage, CursorWalksEveryMatchingRowOnceNewestFirst) {
  TempDir dir;
  auto db = MakeLog(dir.path() + "/db/db.sqlite");
  for (const AgentLogQuery& q : Filters()) {
    auto all = ReadAgentLog(*db, q, kNow);
    ASSERT_TRUE(all.ok());
    ASSERT_FALSE(all->empty()) << "a filter that matches nothing proves nothing";
    for (int64_t limit : {1, 7, 100, 1000}) {
      int pages = 0;
      std::vector<AgentLogRow> walked = Walk(*db, q, limit, &pages);
      // The same rows as the whole read, each once, in reverse order.
      EXPECT_EQ(Ids(walked, false), Ids(*all, true)) << "limit " << limit;
      const std::vector<std::string> ids = Ids(walked, false);
      const std::set<std::string> once(ids.begin(), ids.end());
      EXPECT_EQ(once.size(), walked.size());
      EXPECT_EQ(pages, std::max<int64_t>(1, (static_cast<int64_t>(all->size()) + limit - 1) / limit));
    }
  }
}

TEST(AgentLogPage, FiltersCombine) {
  TempDir dir;
  auto db = MakeLog(dir.path() + "/db/db.sqlite");
  AgentLogQuery q;
  q.session_id = "sess-20";
  q.status = "failed";
  q.since = kNow - 7 * kSecondsPerDay;
  std::vector<AgentLogRow> rows = Walk(*db, q, 3);
  ASSERT_FALSE(rows.empty());
  for (const AgentLogRow& r : rows) {
    EXPECT_EQ(r.session_id, "sess-20");
    EXPECT_EQ(r.status, "failed");
    EXPECT_TRUE((r.started_at && *r.started_at >= *q.since) || (r.completed_at && *r.completed_at >= *q.since));
  }
}

TEST(AgentLogPage, BadLimitsAndCursorsAreRefusedByName) {
  TempDir dir;
  auto db = MakeLog(dir.path() + "/db/db.sqlite");
  auto zero = ReadAgentLogPage(*db, {}, 0, "", kNow);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("limit must be 1 to 1000, not 0"), std::string::npos);
  for (const char* bad : {"nonsense", "2026-10-07T12:00:00Z/", "/12", "2026-10-07T12:00:00Z/x1", "yesterday/3"}) {
    auto page = ReadAgentLogPage(*db, {}, 10, bad, kNow);
    ASSERT_FALSE(page.ok()) << bad;
    EXPECT_NE(page.status().message().find("cursor \"" + std::string(bad) + "\" is not one this log gave"),
              std::string::npos)
        << page.status().message();
  }
}

// The plan of the page query each filter makes (or of its lower bound), as
// SQLite explains it.
std::string PlanOf(Db& db, const AgentLogQuery& q, bool lower_bound = false) {
  std::string plan;
  auto st = db.Prepare(std::string("EXPLAIN QUERY PLAN ") + (lower_bound ? AgentLogLowerBoundSql(q) : AgentLogPageSql(q, true)));
  EXPECT_TRUE(st.ok()) << st.status().message();
  if (!st.ok()) return plan;
  for (;;) {
    auto has = st->Step();
    if (!has.ok() || !*has) break;
    plan += st->Text(3) + "; ";
  }
  return plan;
}

TEST(AgentLogPage, EachFilterWalksAnIndexWithoutSorting) {
  TempDir dir;
  auto db = MakeLog(dir.path() + "/db/db.sqlite");
  const std::vector<std::pair<std::string, std::string>> expect = {
      {"none", "background_agent_log_by_time"},          {"status", "background_agent_log_by_status_time"},
      {"session", "background_agent_log_by_session_time"}, {"run", "background_agent_log_by_run_time"},
      {"since", "background_agent_log_by_time"},         {"since+running", "background_agent_log_by_time"}};
  std::vector<AgentLogQuery> qs = Filters();
  for (size_t i = 0; i < expect.size(); ++i) {
    const std::string plan = PlanOf(*db, qs[i]);
    EXPECT_NE(plan.find("USING INDEX " + expect[i].second), std::string::npos) << expect[i].first << ": " << plan;
    EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << expect[i].first << ": " << plan;
  }
}

// show (ReadAgentLog, oldest first) finds each filter's rows through an
// index too: a walk up the place's index (or a filter's followed by it) with
// no sort, and since as the union of the places since `since` and the
// completions since it (then sorted: those rows only).
TEST(AgentLogPage, ShowFindsEachFilterThroughAnIndex) {
  TempDir dir;
  auto db = MakeLog(dir.path() + "/db/db.sqlite");
  const std::vector<std::string> expect = {
      "SCAN background_agent_log USING INDEX background_agent_log_by_time",
      "SEARCH background_agent_log USING INDEX background_agent_log_by_status_time (status=?)",
      "SEARCH background_agent_log USING INDEX background_agent_log_by_session_time (session_id=?)",
      "SEARCH background_agent_log USING INDEX background_agent_log_by_run_time (pulse_run_id=?)",
      "INDEX background_agent_log_by_completion (completed_at>?)",
      "INDEX background_agent_log_by_completion (completed_at>?)",
      "SEARCH background_agent_log USING INDEX background_agent_log_by_session_time (session_id=?",
      "SEARCH background_agent_log USING INDEX background_agent_log_by_status_time (status=? AND placed_at<?)",
      "INDEX background_agent_log_by_completion (completed_at>?)"};
  std::vector<AgentLogQuery> qs = Filters();
  ASSERT_EQ(qs.size(), expect.size());
  for (size_t i = 0; i < qs.size(); ++i) {
    std::string plan;
    auto st = db->Prepare("EXPLAIN QUERY PLAN " + AgentLogShowSql(qs[i]));
    ASSERT_TRUE(st.ok()) << st.status().message();
    while (*st->Step()) plan += st->Text(3) + "; ";
    EXPECT_NE(plan.find(expect[i]), std::string::npos) << i << ": " << plan;
    // Never the whole table.
    EXPECT_EQ((plan + " ").find("SCAN background_agent_log; "), std::string::npos) << i << ": " << plan;
    if (!qs[i].since) EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << i << ": " << plan;
    if (qs[i].since && !qs[i].session_id) {
      EXPECT_NE(plan.find("INDEX background_agent_log_by_time (placed_at>?)"), std::string::npos) << i << ": " << plan;
    }
  }
}

// A since walk that reaches `since` with its page not full looks for the
// rows that started before and ran past it through an index too: the
// completions since `since` (or the session's rows), never the whole log.
TEST(AgentLogPage, TheLowerBoundOfASinceWalkUsesAnIndex) {
  TempDir dir;
  auto db = MakeLog(dir.path() + "/db/db.sqlite");
  std::vector<AgentLogQuery> qs = Filters();
  const std::vector<std::pair<size_t, std::string>> expect = {
      {4, "background_agent_log_by_completion"}, {5, "background_agent_log_by_completion"},
      {6, "background_agent_log_by_session_time"}, {8, "background_agent_log_by_completion"}};
  for (const auto& [i, index] : expect) {
    const std::string plan = PlanOf(*db, qs[i], /*lower_bound=*/true);
    EXPECT_NE(plan.find("USING INDEX " + index), std::string::npos) << i << ": " << plan;
    EXPECT_EQ(plan.find("SCAN background_agent_log"), std::string::npos) << i << ": " << plan;
  }
}

}  // namespace
}  // namespace pulse
