// Snapshots of a live database (SQLite's backup API): what a WAL holds is
// in the copy, the copy is one file in rollback mode, and a copy taken while
// another connection writes holds whole transactions only.
#include "core/store/snapshot.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::TempDir;

int64_t Count(Db& db, const std::string& sql) {
  Result<int64_t> n = db.QueryInt64(sql);
  EXPECT_TRUE(n.ok()) << n.status().message();
  return n.ok() ? *n : -1;
}

std::string Text(Db& db, const std::string& sql) {
  Result<Statement> st = db.Prepare(sql);
  EXPECT_TRUE(st.ok());
  if (!st.ok() || !*st->Step()) return "";
  return st->Text(0);
}

TEST(DatabaseSnapshot, HoldsWhatOnlyTheWalHoldsAndIsOneRollbackFile) {
  TempDir dir;
  auto src = Db::Open(dir.Join("db.sqlite"));
  ASSERT_TRUE(src.ok());
  // Nothing checkpointed: every row below is in db.sqlite-wal only.
  ASSERT_TRUE((*src)->Exec("PRAGMA wal_autocheckpoint=0; CREATE TABLE t(a INTEGER, b TEXT)").ok());
  for (int i = 0; i < 500; i++) {
    ASSERT_TRUE((*src)->Exec("INSERT INTO t VALUES(" + std::to_string(i) + ", 'row " + std::to_string(i) + "')").ok());
  }
  ASSERT_GT(std::filesystem::file_size(dir.Join("db.sqlite-wal")), 0u);

  Result<SnapshotInfo> info = SnapshotDatabase(**src, dir.Join("copy.sqlite"));
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->bytes, static_cast<int64_t>(std::filesystem::file_size(dir.Join("copy.sqlite"))));
  EXPECT_EQ(info->page_size, 1024);  // the source's (Db::Open's new_page_size)
  EXPECT_FALSE(std::filesystem::exists(dir.Join("copy.sqlite-wal")));

  OpenOptions ro;
  ro.read_only = true;
  ro.wal = false;
  auto copy = Db::Open(dir.Join("copy.sqlite"), ro);
  ASSERT_TRUE(copy.ok()) << copy.status().message();
  EXPECT_EQ(Count(**copy, "SELECT count(*) FROM t"), 500);
  EXPECT_EQ(Text(**copy, "SELECT b FROM t WHERE a = 499"), "row 499");
  EXPECT_EQ(Text(**copy, "PRAGMA journal_mode"), "delete");
  EXPECT_EQ(Text(**copy, "PRAGMA integrity_check"), "ok");
  // The source is only read: its rows are all still there, in its WAL.
  EXPECT_EQ(Count(**src, "SELECT count(*) FROM t"), 500);
}

// Another connection commits pairs of rows (and a counter) the whole time;
// every snapshot holds whole pairs and a counter that agrees with them.
TEST(DatabaseSnapshot, IsOneStateWhileAnotherConnectionWrites) {
  TempDir dir;
  {
    auto setup = Db::Open(dir.Join("db.sqlite"));
    ASSERT_TRUE(setup.ok());
    ASSERT_TRUE((*setup)->Exec("CREATE TABLE pairs(k INTEGER, half INTEGER); CREATE TABLE counter(n INTEGER);"
                               "INSERT INTO counter VALUES(0)")
                    .ok());
  }
  std::atomic<bool> stop{false};
  std::atomic<int> committed{0};
  std::thread writer([&] {
    auto w = Db::Open(dir.Join("db.sqlite"));
    ASSERT_TRUE(w.ok());
    for (int k = 0; !stop; k++) {
      std::string n = std::to_string(k);
      ASSERT_TRUE((*w)->Exec("BEGIN IMMEDIATE; INSERT INTO pairs VALUES(" + n + ", 1); INSERT INTO pairs VALUES(" + n +
                             ", 2); UPDATE counter SET n = n + 1; COMMIT")
                      .ok());
      committed++;
    }
  });
  auto reader = Db::Open(dir.Join("db.sqlite"));
  ASSERT_TRUE(reader.ok());
  int taken = 0;
  for (int i = 0; i < 20 || committed < 50; i++) {
    std::string path = dir.Join("copy-" + std::to_string(i) + ".sqlite");
    Result<SnapshotInfo> info = SnapshotDatabase(**reader, path);
    ASSERT_TRUE(info.ok()) << info.status().message();
    OpenOptions ro;
    ro.read_only = true;
    ro.wal = false;
    auto copy = Db::Open(path, ro);
    ASSERT_TRUE(copy.ok());
    int64_t rows = Count(**copy, "SELECT count(*) FROM pairs");
    EXPECT_EQ(rows % 2, 0) << "snapshot " << i << " holds half a transaction";
    EXPECT_EQ(Count(**copy, "SELECT n FROM counter"), rows / 2) << "snapshot " << i;
    EXPECT_EQ(Count(**copy, "SELECT count(*) FROM (SELECT k FROM pairs GROUP BY k HAVING count(*) != 2)"), 0);
    EXPECT_EQ(Text(**copy, "PRAGMA integrity_check"), "ok");
    taken++;
    if (i > 2000) break;
  }
  stop = true;
  writer.join();
  EXPECT_GE(taken, 20);
  EXPECT_GT(committed.load(), 0);
}

TEST(DatabaseSnapshot, AFolderThatIsNotThereIsAnErrorNamingTheDatabase) {
  TempDir dir;
  auto src = Db::Open(dir.Join("db.sqlite"));
  ASSERT_TRUE(src.ok());
  Result<SnapshotInfo> info = SnapshotDatabase(**src, dir.Join("missing/copy.sqlite"));
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("db.sqlite"), std::string::npos) << info.status().message();
  EXPECT_NE(info.status().message().find("missing/copy.sqlite"), std::string::npos) << info.status().message();
}

}  // namespace
}  // namespace pulse
