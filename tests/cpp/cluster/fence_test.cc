// Fencing by etcd claim revision (server-shim/cluster/fence.h) on a real SQLite file
// with two connections, as two `pulse serve --etcd` instances have: once a
// newer claim has ticked the workflow, the stale holder's writes are refused
// inside SQLite, and the fence never moves back.
#include "server-shim/cluster/fence.h"

#include <gtest/gtest.h>

#include "core/store/schema.h"
#include "tests/cpp/test_util.h"

namespace pulse::serve {
namespace {

using testing::T;
using testing::TempDir;

std::unique_ptr<Db> OpenHolder(const TempDir& dir, int64_t revision) {
  auto db = Db::Open(dir.Join("db.sqlite"));
  EXPECT_TRUE(db.ok()) << db.status().message();
  EXPECT_TRUE(EnsureSchema(**db).ok());
  EXPECT_TRUE((*db)->Exec("CREATE TABLE IF NOT EXISTS notes(x TEXT)").ok());
  EXPECT_TRUE(EnsureFenceSchema(**db).ok());
  Status installed = InstallFenceTriggers(**db, revision);
  EXPECT_TRUE(installed.ok()) << installed.message();
  return std::move(db).value();
}

int64_t Count(Db& db, const char* sql) { return *db.QueryInt64(sql); }

TEST(Fence, AStaleHoldersWritesAreRefusedOnceANewerClaimTicked) {
  TempDir dir;
  std::unique_ptr<Db> a = OpenHolder(dir, 5);
  ASSERT_TRUE(RecordFencedTick(*a, Fence{"wf", 5, "a"}, 1, T("2026-10-07T12:00:00Z")).ok());
  ASSERT_TRUE(a->Exec("INSERT INTO notes VALUES('a ticked')").ok());

  // B takes the workflow over under a newer claim (A's lease lapsed).
  std::unique_ptr<Db> b = OpenHolder(dir, 9);
  ASSERT_TRUE(RecordFencedTick(*b, Fence{"wf", 9, "b"}, 1, T("2026-10-07T12:00:10Z")).ok());

  // A still believes it holds the workflow: every kind of write is refused.
  Status ins = a->Exec("INSERT INTO notes VALUES('a again')");
  EXPECT_FALSE(ins.ok());
  EXPECT_NE(ins.message().find("fenced: a newer claim than revision 5"), std::string::npos) << ins.message();
  EXPECT_FALSE(a->Exec("UPDATE notes SET x = 'changed'").ok());
  EXPECT_FALSE(a->Exec("DELETE FROM notes").ok());
  // Pulse's own tables too, e.g. the schema versions every module keeps.
  EXPECT_FALSE(a->Exec("UPDATE pulse_schema_versions SET version = version").ok());
  Status tick = RecordFencedTick(*a, Fence{"wf", 5, "a"}, 2, T("2026-10-07T12:00:11Z"));
  EXPECT_EQ(tick.code(), Code::kConflict);
  EXPECT_NE(tick.message().find("revision 5 is older than revision 9 held by b"), std::string::npos)
      << tick.message();

  // Nothing of A's after the takeover is there; B writes as usual.
  EXPECT_EQ(Count(*b, "SELECT count(*) FROM notes"), 1);
  EXPECT_TRUE(b->Exec("INSERT INTO notes VALUES('b ticked')").ok());
  EXPECT_EQ(Count(*b, "SELECT count(*) FROM pulse_ticks WHERE instance = 'a'"), 1);
  EXPECT_EQ(Count(*b, "SELECT revision FROM pulse_fence"), 9);
}

TEST(Fence, TheFenceNeverMovesBack) {
  TempDir dir;
  std::unique_ptr<Db> b = OpenHolder(dir, 9);
  ASSERT_TRUE(RecordFencedTick(*b, Fence{"wf", 9, "b"}, 1, T("2026-10-07T12:00:00Z")).ok());
  std::unique_ptr<Db> older = OpenHolder(dir, 7);
  EXPECT_EQ(RecordFencedTick(*older, Fence{"wf", 7, "c"}, 1, T("2026-10-07T12:00:01Z")).code(),
            Code::kConflict);
  EXPECT_EQ(Count(*b, "SELECT revision FROM pulse_fence"), 9);
  // The same claim ticks again and again under its own fence.
  ASSERT_TRUE(RecordFencedTick(*b, Fence{"wf", 9, "b"}, 2, T("2026-10-07T12:00:02Z")).ok());
  EXPECT_EQ(Count(*b, "SELECT count(*) FROM pulse_ticks WHERE revision = 9"), 2);
}

TEST(Fence, TheThreadsFenceAppliesOnlyToItsWorkflow) {
  TempDir dir;
  std::unique_ptr<Db> newer = OpenHolder(dir, 9);
  ASSERT_TRUE(RecordFencedTick(*newer, Fence{"wf", 9, "b"}, 1, T("2026-10-07T12:00:00Z")).ok());
  auto other = Db::Open(dir.Join("db.sqlite"));
  ASSERT_TRUE(other.ok());
  FenceScope scope(Fence{"wf", 3, "a"});
  // A connection for another workflow (or outside any tick) is not fenced.
  ASSERT_TRUE(ApplyCurrentFence(**other, "another").ok());
  EXPECT_TRUE((*other)->Exec("INSERT INTO notes VALUES('not a tick')").ok());
  // The tick's own workflow is.
  ASSERT_TRUE(ApplyCurrentFence(**other, "wf").ok());
  EXPECT_FALSE((*other)->Exec("INSERT INTO notes VALUES('stale tick')").ok());
  ASSERT_TRUE(CurrentFence().has_value());
  EXPECT_EQ(CurrentFence()->revision, 3);
}

}  // namespace
}  // namespace pulse::serve
