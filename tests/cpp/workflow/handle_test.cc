// WorkflowHandle: opening ensures the schema and reads the configuration
// once; a borrowed database re-reads its stored snapshot only when another
// connection (or its own) changed the database; the typed services work on
// the handle's database.
#include "core/workflow/handle.h"

#include <gtest/gtest.h>

#include "core/store/schema.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

const char* kConfig = R"({"goal": {"primary_metric": {"name": "paid subscribers"}}, "pulse": {"enabled": true}})";

TEST(WorkflowHandle, OpenReadsTheConfigurationAndEnsuresTheSchema) {
  testing::TempDir dir;
  std::string ws = testing::MakeWorkspace(dir, "substack", kConfig);
  Result<std::unique_ptr<WorkflowHandle>> h = WorkflowHandle::Open(*DefaultEnv(), ws, "substack");
  ASSERT_TRUE(h.ok()) << h.status().message();
  WorkflowHandle& handle = **h;
  EXPECT_EQ(handle.workflow(), "substack");
  ASSERT_TRUE(handle.config().HasGoal());
  EXPECT_EQ(handle.config().primary_metric->name, "paid subscribers");
  ASSERT_NE(handle.paths(), nullptr);
  EXPECT_EQ(handle.goal_memory_path(), handle.dir() + "/memory/goal.md");
  // The schema is there: the services need no Ensure call of their own.
  Result<int64_t> tables = handle.db().QueryInt64(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'background_agent_log'");
  ASSERT_TRUE(tables.ok()) << tables.status().message();
  EXPECT_EQ(*tables, 1);
  // The snapshot is stored, so a borrowed connection on the same file
  // answers from the database alone.
  Result<ConfigSnapshot> snap = LoadConfigSnapshot(handle.db());
  ASSERT_TRUE(snap.ok()) << snap.status().message();
  EXPECT_EQ(snap->workflow, "substack");
  // An opened handle's configuration is the file it read: Refresh is a no-op.
  const uint64_t g = handle.generation();
  ASSERT_TRUE(handle.Refresh().ok());
  EXPECT_EQ(handle.generation(), g);
}

TEST(WorkflowHandle, OpenNamesWhatIsWrong) {
  testing::TempDir dir;
  std::string ws = testing::MakeWorkspace(dir, "substack", kConfig);
  Result<std::unique_ptr<WorkflowHandle>> missing = WorkflowHandle::Open(*DefaultEnv(), ws, "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos) << missing.status().message();

  testing::WriteFile(ws + "/Workflow/broken/workflow.json", "{\"goal\": ");
  Result<std::unique_ptr<WorkflowHandle>> broken = WorkflowHandle::Open(*DefaultEnv(), ws, "broken");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("workflow.json"), std::string::npos) << broken.status().message();
}

TEST(WorkflowHandle, BorrowReadsTheSnapshotAgainOnlyWhenTheDatabaseChanged) {
  testing::TempDir dir;
  const std::string path = dir.Join("db.sqlite");
  Result<std::unique_ptr<Db>> writer = testing::OpenWithSchema(path);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  ASSERT_TRUE(StoreConfigSnapshot(**writer, "substack", kConfig, "", testing::T("2026-12-01T00:00:00Z")).ok());

  Result<std::unique_ptr<Db>> reader = Db::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  Result<std::unique_ptr<WorkflowHandle>> h = WorkflowHandle::Borrow(**reader, *DefaultEnv());
  ASSERT_TRUE(h.ok()) << h.status().message();
  WorkflowHandle& handle = **h;
  EXPECT_EQ(handle.workflow(), "substack");
  EXPECT_EQ(handle.dir(), "");
  EXPECT_EQ(handle.paths(), nullptr);
  EXPECT_EQ(handle.goal_memory_path(), "");
  ASSERT_TRUE(handle.config().HasGoal());
  const uint64_t first = handle.generation();

  // Nothing changed: no read.
  ASSERT_TRUE(handle.Refresh().ok());
  ASSERT_TRUE(handle.Refresh().ok());
  EXPECT_EQ(handle.generation(), first);

  // Another connection commits a new snapshot: the next Refresh sees it.
  ASSERT_TRUE(StoreConfigSnapshot(**writer, "substack",
                                  R"({"goal": {"primary_metric": {"name": "open rate"}}})", "",
                                  testing::T("2026-12-02T00:00:00Z"))
                  .ok());
  ASSERT_TRUE(handle.Refresh().ok());
  EXPECT_EQ(handle.generation(), first + 1);
  EXPECT_EQ(handle.config().primary_metric->name, "open rate");
  ASSERT_TRUE(handle.Refresh().ok());
  EXPECT_EQ(handle.generation(), first + 1);

  // A write on the borrowed connection itself counts too.
  ASSERT_TRUE(StoreConfigSnapshot(**reader, "substack", kConfig, "", testing::T("2026-12-03T00:00:00Z")).ok());
  ASSERT_TRUE(handle.Refresh().ok());
  EXPECT_EQ(handle.generation(), first + 2);
  EXPECT_EQ(handle.config().primary_metric->name, "paid subscribers");
}

TEST(WorkflowHandle, BorrowOfADatabaseWithNoSnapshotHasNoGoalAndABrokenSnapshotIsNamed) {
  testing::TempDir dir;
  const std::string path = dir.Join("db.sqlite");
  Result<std::unique_ptr<Db>> db = Db::Open(path);
  ASSERT_TRUE(db.ok());
  Result<std::unique_ptr<WorkflowHandle>> h = WorkflowHandle::Borrow(**db, *DefaultEnv());
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ((*h)->workflow(), "");
  EXPECT_FALSE((*h)->config().HasGoal());
  // Borrowing ensured the schema on the bare database.
  Result<int64_t> tables = (*db)->QueryInt64("SELECT count(*) FROM sqlite_master WHERE name = 'pulse_workflow_config'");
  ASSERT_TRUE(tables.ok());
  EXPECT_EQ(*tables, 1);

  ASSERT_TRUE(StoreConfigSnapshot(**db, "substack", "{\"goal\": 7", "", 1).ok());
  Status s = (*h)->Refresh();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("stored workflow.json snapshot"), std::string::npos) << s.message();
}

TEST(WorkflowHandle, TypedServicesWorkOnTheHandlesDatabase) {
  testing::TempDir dir;
  std::string ws = testing::MakeWorkspace(dir, "substack", kConfig);
  FixedClockEnv env(DefaultEnv(), testing::T("2026-12-06T09:00:00Z"));
  Result<std::unique_ptr<WorkflowHandle>> h = WorkflowHandle::Open(env, ws, "substack");
  ASSERT_TRUE(h.ok()) << h.status().message();
  WorkflowHandle& handle = **h;

  GoalMemory memory = handle.memory();
  ASSERT_TRUE(memory.Add(MemorySection::kOwner, MemorySource::kOwnerAnswer, "Weekly posts only").ok());
  EXPECT_NE(testing::ReadFileOrDie(handle.goal_memory_path()).find("Weekly posts only"), std::string::npos);

  FocusAreas areas = handle.focus_areas(&memory);
  FocusChange add;
  add.action = FocusAction::kAdd;
  add.title = "Grow the welcome series";
  Result<FocusOutcome> added = areas.Apply(add);
  ASSERT_TRUE(added.ok()) << added.status().message();
  Result<std::vector<FocusArea>> open = handle.focus_areas(nullptr).Open();
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);
  EXPECT_EQ((*open)[0].title, "Grow the welcome series");

  // The same database borrowed: reads work, edits are refused (no
  // workflow.json at hand).
  Result<std::unique_ptr<WorkflowHandle>> borrowed = WorkflowHandle::Borrow(handle.db(), env);
  ASSERT_TRUE(borrowed.ok()) << borrowed.status().message();
  Result<std::vector<FocusArea>> seen = (*borrowed)->focus_areas(nullptr).Open();
  ASSERT_TRUE(seen.ok());
  EXPECT_EQ(seen->size(), 1u);
  add.title = "Another";
  EXPECT_FALSE((*borrowed)->focus_areas(nullptr).Apply(add).ok());
}

}  // namespace
}  // namespace pulse
