// The agent log's table and its versions: a database from before versions
// and one from version 5 upgrade in place losing nothing; each row's stored
// place, whoever wrote it; only the indexes the reads walk; every read an
// index walk (EXPLAIN QUERY PLAN).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/agent_log/agent_log.h"
#include "core/agent_log/agent_log_schema.h"
#include "core/store/db.h"
#include "core/store/schema.h"
#include "tests/cpp/agent_log/agent_log_fixture.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

namespace fs = std::filesystem;
using namespace agent_log_testing;  // NOLINT: the fixture and events

// The original table exactly as it was first created, with no version record.
constexpr const char* kSeedTable =
    "CREATE TABLE IF NOT EXISTS background_agent_log (\n"
    "\tworkspace_path TEXT NOT NULL,\n"
    "\tsession_id TEXT NOT NULL,\n"
    "\tagent_id TEXT NOT NULL,\n"
    "\tname TEXT NOT NULL DEFAULT '',\n"
    "\tkind TEXT NOT NULL DEFAULT '',\n"
    "\tparent_execution_id TEXT NOT NULL DEFAULT '',\n"
    "\tstatus TEXT NOT NULL DEFAULT '',\n"
    "\tresult TEXT NOT NULL DEFAULT '',\n"
    "\terror TEXT NOT NULL DEFAULT '',\n"
    "\tduration TEXT NOT NULL DEFAULT '',\n"
    "\tstarted_at TEXT NOT NULL DEFAULT '',\n"
    "\tcompleted_at TEXT NOT NULL DEFAULT '',\n"
    "\tupdated_at TEXT NOT NULL,\n"
    "\tPRIMARY KEY (workspace_path, session_id, agent_id)\n"
    ")";

TEST(AgentLog, UpgradesASeedVersionDatabaseInPlaceLosingNothing) {
  Fixture f;
  fs::create_directories(fs::path(f.db_path).parent_path());
  {
    auto raw = Db::Open(f.db_path);
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE((*raw)->Exec(kSeedTable).ok());
    ASSERT_TRUE((*raw)->Exec(
        "INSERT INTO background_agent_log VALUES"
        " ('Workflow/demo','s-old','gate','Gate','gate','','completed','changed','','2m','2026-08-12T09:00:00Z',"
        "  '2026-08-12T09:02:00Z','2026-08-12T09:02:00Z'),"
        " ('Workflow/demo','s-old','fixer','Fixer','fixer','','running','','','','2026-08-12T09:03:00Z','',"
        "  '2026-08-12T09:03:00Z')").ok());
  }
  auto db = OpenOrDie(f.db_path);  // EnsureSchema: the upgrade
  EXPECT_EQ(*db->QueryInt64("SELECT version FROM pulse_schema_versions WHERE component = 'agent_log'"), 6);
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM pragma_table_info('background_agent_log')"
                            " WHERE name IN ('pulse_run_id', 'completed_seq', 'tokens_in', 'tokens_out', 'placed_at')"), 5);
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM sqlite_schema WHERE type = 'index'"
                            " AND tbl_name = 'background_agent_log' AND name LIKE 'background_agent_log_by_%'"), 6);
  // A row finished before completions were numbered has no number.
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM background_agent_log WHERE completed_seq IS NULL"), 2);
  // The old rows are placed by their start.
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM background_agent_log WHERE placed_at = started_at"), 2);
  auto rows = ReadAll(*db);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].agent_id, "gate");
  EXPECT_EQ(rows[0].result, "changed");
  EXPECT_EQ(rows[0].pulse_run_id, "");
  EXPECT_EQ(rows[1].status, "running");
  // The original running row completes in place, on the same key.
  db.reset();
  BackgroundAgentLog log(f.env, f.scope);
  ASSERT_TRUE(log.Completed(Done("s-old", "fixer")));
  auto again = OpenOrDie(f.db_path);  // idempotent: nothing due the second time
  rows = ReadAll(*again);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].status, "completed");
  EXPECT_EQ(*again->QueryInt64("SELECT completed_seq FROM background_agent_log WHERE agent_id = 'fixer'"), 1);
  EXPECT_EQ(*again->QueryInt64("SELECT version FROM pulse_schema_versions WHERE component = 'agent_log'"), 6);
}

// Every index is a page each event may write (bench/agent_log.mjs: bytes
// written per event): the key, the place, the place after each equality
// filter, the finished rows' completion time and their completion number
// (core/agent_log/otlp_export.h's cursor); nothing else.
TEST(AgentLog, TheLogKeepsOnlyTheIndexesItsReadsWalk) {
  Fixture f;
  auto db = OpenOrDie(f.db_path);
  auto st = db->Prepare(
      "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'background_agent_log' ORDER BY name");
  ASSERT_TRUE(st.ok());
  std::vector<std::string> got;
  while (*st->Step()) got.push_back(st->Text(0) + (st->IsNull(1) ? "" : " " + st->Text(1).substr(st->Text(1).find(" ON ") + 1)));
  EXPECT_EQ(got, (std::vector<std::string>{
                     "background_agent_log_by_completed_seq ON background_agent_log(completed_seq) WHERE completed_seq IS NOT NULL",
                     "background_agent_log_by_completion ON background_agent_log(completed_at) WHERE completed_at <> ''",
                     "background_agent_log_by_run_time ON background_agent_log(pulse_run_id, placed_at)",
                     "background_agent_log_by_session_time ON background_agent_log(session_id, placed_at)",
                     "background_agent_log_by_status_time ON background_agent_log(status, placed_at)",
                     "background_agent_log_by_time ON background_agent_log(placed_at)",
                     "sqlite_autoindex_background_agent_log_1",
                 }));
}

// placed_at is the row's place (its start, else its completion, else its
// last update), whoever wrote the row: Pulse's writers set it, and the
// table's triggers keep it for anyone else (an older program, a shell).
TEST(AgentLog, EveryRowIsPlacedByItsStartOrItsCompletionWhoeverWroteIt) {
  Fixture f;
  BackgroundAgentLog log(f.env, f.scope);
  ASSERT_TRUE(log.Started(Start("s", "both", "2026-10-07T09:00:00Z")));
  ASSERT_TRUE(log.Completed(Done("s", "both", "completed", "2026-10-07T09:30:00Z")));
  ASSERT_TRUE(log.Completed(Done("s", "late-start", "failed", "2026-10-07T10:00:00Z")));
  ASSERT_TRUE(log.Completed(Done("s", "twice", "failed", "2026-10-07T10:05:00Z")));
  ASSERT_TRUE(log.Completed(Done("s", "twice", "completed", "2026-10-07T10:10:00Z")));
  auto db = OpenOrDie(f.db_path);
  auto placed = [&](const std::string& agent) {
    auto st = db->Prepare("SELECT placed_at FROM background_agent_log WHERE agent_id = ?");
    EXPECT_TRUE(st.ok());
    st->Bind(1, agent);
    return *st->Step() ? st->Text(0) : std::string("(no row)");
  };
  EXPECT_EQ(placed("both"), "2026-10-07T09:00:00Z");
  EXPECT_EQ(placed("late-start"), "2026-10-07T10:00:00Z");
  EXPECT_EQ(placed("twice"), "2026-10-07T10:10:00Z");  // a row with no start moves with its completion
  db.reset();
  // The start that comes after the completion moves the row to it.
  ASSERT_TRUE(log.Started(Start("s", "late-start", "2026-10-07T08:00:00Z")));
  db = OpenOrDie(f.db_path);
  EXPECT_EQ(placed("late-start"), "2026-10-07T08:00:00Z");
  // Another writer that knows nothing of placed_at.
  ASSERT_TRUE(db->Exec("INSERT INTO background_agent_log (workspace_path, session_id, agent_id, status, started_at,"
                       " updated_at) VALUES ('Workflow/demo', 's', 'raw', 'running', '2026-10-07T07:00:00Z',"
                       " '2026-10-07T07:00:00Z');"
                       "INSERT INTO background_agent_log (workspace_path, session_id, agent_id, status, completed_at,"
                       " updated_at) VALUES ('Workflow/demo', 's', 'raw-done', 'completed', '2026-10-07T07:30:00Z',"
                       " '2026-10-07T07:30:00Z');"
                       "INSERT INTO background_agent_log (workspace_path, session_id, agent_id, updated_at)"
                       " VALUES ('Workflow/demo', 's', 'raw-bare', '2026-10-07T06:00:00Z');"
                       "UPDATE background_agent_log SET started_at = '2026-10-07T07:10:00Z' WHERE agent_id = 'raw-done'")
                  .ok());
  EXPECT_EQ(placed("raw"), "2026-10-07T07:00:00Z");
  EXPECT_EQ(placed("raw-done"), "2026-10-07T07:10:00Z");
  EXPECT_EQ(placed("raw-bare"), "2026-10-07T06:00:00Z");
  // And read back in that order.
  EXPECT_EQ(Agents(ReadAll(*db)),
            (std::vector<std::string>{"raw-bare", "raw", "raw-done", "late-start", "both", "twice"}));
}

// A database the program before placed_at wrote (agent_log at version 5:
// completion numbers and tokens, the page indexes on the place as an
// expression) upgrades to version 6 keeping every row, number and token,
// and placed in the same order.
TEST(AgentLog, UpgradesAVersion5DatabaseToStoredPlaces) {
  Fixture f;
  fs::create_directories(fs::path(f.db_path).parent_path());
  {
    auto raw = Db::Open(f.db_path);
    ASSERT_TRUE(raw.ok());
    const std::string place =
        "(CASE WHEN started_at <> '' THEN started_at WHEN completed_at <> '' THEN completed_at ELSE updated_at END)";
    std::string sql = std::string(kSeedTable) + ";" +
        "ALTER TABLE background_agent_log ADD COLUMN pulse_run_id TEXT NOT NULL DEFAULT '';"
        "CREATE INDEX background_agent_log_by_session ON background_agent_log(session_id, started_at);"
        "CREATE INDEX background_agent_log_by_run ON background_agent_log(pulse_run_id, started_at);"
        "CREATE INDEX background_agent_log_by_status ON background_agent_log(status, started_at);"
        "CREATE INDEX background_agent_log_by_start ON background_agent_log(started_at);"
        "CREATE INDEX background_agent_log_by_completion ON background_agent_log(completed_at);"
        "CREATE INDEX background_agent_log_by_time ON background_agent_log(" + place + ");"
        "CREATE INDEX background_agent_log_by_status_time ON background_agent_log(status, " + place + ");"
        "CREATE INDEX background_agent_log_by_session_time ON background_agent_log(session_id, " + place + ");"
        "CREATE INDEX background_agent_log_by_run_time ON background_agent_log(pulse_run_id, " + place + ");"
        "ALTER TABLE background_agent_log ADD COLUMN completed_seq INTEGER;"
        "CREATE INDEX background_agent_log_by_completed_seq ON background_agent_log(completed_seq)"
        " WHERE completed_seq IS NOT NULL;"
        "ALTER TABLE background_agent_log ADD tokens_in INTEGER NOT NULL DEFAULT 0;"
        "ALTER TABLE background_agent_log ADD tokens_out INTEGER NOT NULL DEFAULT 0;"
        "CREATE TABLE pulse_schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL);"
        "INSERT INTO pulse_schema_versions VALUES ('agent_log', 5);"
        "INSERT INTO background_agent_log (workspace_path, session_id, agent_id, status, started_at, completed_at,"
        " updated_at, completed_seq, tokens_in, tokens_out) VALUES"
        " ('Workflow/demo', 's', 'turn', 'completed', '2026-10-07T09:00:00Z', '2026-10-07T09:05:00Z',"
        "  '2026-10-07T09:05:00Z', 1, 120, 45),"
        " ('Workflow/demo', 's', 'no-start', 'failed', '', '2026-10-07T08:00:00Z', '2026-10-07T08:00:00Z', 2, 0, 0),"
        " ('Workflow/demo', 's', 'running', 'running', '2026-10-07T10:00:00Z', '', '2026-10-07T10:00:00Z', NULL, 0, 0)";
    ASSERT_TRUE((*raw)->Exec(sql).ok());
  }
  auto db = OpenOrDie(f.db_path);  // EnsureSchema: 5 -> 6
  EXPECT_EQ(*db->QueryInt64("SELECT version FROM pulse_schema_versions WHERE component = 'agent_log'"), 6);
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM background_agent_log WHERE placed_at = "
                            "CASE WHEN started_at <> '' THEN started_at ELSE completed_at END"), 3);
  // Version 2's duplicate indexes are gone; completed_seq's stays.
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM sqlite_schema WHERE type = 'index'"
                            " AND name IN ('background_agent_log_by_start', 'background_agent_log_by_status',"
                            " 'background_agent_log_by_session', 'background_agent_log_by_run')"), 0);
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM sqlite_schema WHERE name = 'background_agent_log_by_completed_seq'"), 1);
  auto rows = ReadAll(*db);
  EXPECT_EQ(Agents(rows), (std::vector<std::string>{"no-start", "turn", "running"}));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].tokens_in, 120);
  EXPECT_EQ(rows[1].tokens_out, 45);
  // The next completion takes the next number.
  db.reset();
  BackgroundAgentLog log(f.env, f.scope);
  ASSERT_TRUE(log.Completed(Done("s", "running")));
  auto again = OpenOrDie(f.db_path);
  EXPECT_EQ(*again->QueryInt64("SELECT completed_seq FROM background_agent_log WHERE agent_id = 'running'"), 3);
  // Its place stays its start.
  EXPECT_EQ(*again->QueryInt64("SELECT count(*) FROM background_agent_log WHERE agent_id = 'running'"
                               " AND placed_at = '2026-10-07T10:00:00Z'"), 1);
}

TEST(AgentLog, SchemaIsIdempotentAndUsesTheIndexes) {
  Fixture f;
  auto db = OpenOrDie(f.db_path);
  ASSERT_TRUE(EnsureAgentLogSchema(*db).ok());
  ASSERT_TRUE(EnsureSchema(*db).ok());
  auto plan = [&](const std::string& where) {
    auto st = db->Prepare("EXPLAIN QUERY PLAN SELECT * FROM background_agent_log WHERE " + where);
    EXPECT_TRUE(st.ok());
    std::string out;
    while (*st->Step()) out += st->Text(3) + "\n";
    return out;
  };
  EXPECT_NE(plan("session_id = 'x'").find("background_agent_log_by_session_time"), std::string::npos);
  EXPECT_NE(plan("pulse_run_id = 'x'").find("background_agent_log_by_run_time"), std::string::npos);
  EXPECT_NE(plan("status = 'running'").find("background_agent_log_by_status_time"), std::string::npos);
}

// ---- retention ----

}  // namespace
}  // namespace pulse
