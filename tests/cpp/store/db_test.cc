// The Db layer: WAL, corruption, SQLite messages, transactions.
#include "core/store/db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <vector>


#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::TempDir;
using testing::WriteFile;

std::vector<unsigned char> ReadBytes(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::vector<unsigned char> out(n, 0);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n));
  return out;
}

TEST(Db, OpensWalAndRoundTrips) {
  TempDir dir;
  auto db = Db::Open(dir.Join("a.sqlite"));
  ASSERT_TRUE(db.ok()) << db.status().message();
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t(a INTEGER, b TEXT)").ok());
  auto st = (*db)->Prepare("INSERT INTO t VALUES(?, ?)");
  ASSERT_TRUE(st.ok());
  st->Bind(1, int64_t{7}).Bind(2, "seven");
  ASSERT_TRUE(st->Run().ok());
  auto mode = (*db)->Prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok());
  ASSERT_TRUE(*mode->Step());
  EXPECT_EQ(mode->Text(0), "wal");
  auto q = (*db)->Prepare("SELECT a, b FROM t");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->Step());
  EXPECT_EQ(q->Int64(0), 7);
  EXPECT_EQ(q->Text(1), "seven");
}

// A new file appears whole: never empty at its name (SQLite would delete a
// WAL found beside an empty file), its WAL header already in page 1, and no
// sibling left behind; a file another process made first is used, not replaced.
TEST(Db, NewFileAppearsWholeAndAnExistingOneIsKept) {
  TempDir dir;
  const std::string path = dir.Join("new.sqlite");
  {
    auto db = Db::Open(path);
    ASSERT_TRUE(db.ok()) << db.status().message();
  }
  ASSERT_GE(std::filesystem::file_size(path), 512u);
  auto header = ReadBytes(path, 20);
  EXPECT_EQ(header[18], 2);  // WAL write version
  EXPECT_EQ(header[19], 2);  // WAL read version
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".new-"), std::string::npos) << entry.path();
  }
  {
    auto db = Db::Open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("CREATE TABLE kept(x); INSERT INTO kept VALUES(1)").ok());
  }
  auto again = Db::Open(path);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*(*again)->QueryInt64("SELECT count(*) FROM kept"), 1);
}

TEST(Db, NotSqliteAndTruncatedFilesAreCorruption) {
  TempDir dir;
  WriteFile(dir.Join("junk.sqlite"), "this is not a database, just some text that is long enough to matter");
  auto junk = Db::Open(dir.Join("junk.sqlite"));
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.status().code(), Code::kCorruption);
  EXPECT_NE(junk.status().message().find("junk.sqlite"), std::string::npos);
  EXPECT_NE(junk.status().message().find("not a database"), std::string::npos);
  // The junk is left exactly as it was.
  EXPECT_EQ(testing::ReadFileOrDie(dir.Join("junk.sqlite")).substr(0, 12), "this is not ");

  // A real database cut short.
  {
    auto db = Db::Open(dir.Join("full.sqlite"), OpenOptions{true, false, false});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("CREATE TABLE t(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<5000)"
                            " INSERT INTO t SELECT randomblob(100) FROM c").ok());
  }
  std::string bytes = testing::ReadFileOrDie(dir.Join("full.sqlite"));
  WriteFile(dir.Join("cut.sqlite"), bytes.substr(0, 1000));
  auto cut = Db::Open(dir.Join("cut.sqlite"));
  if (cut.ok()) {
    // The header survived; reading the data must then fail.
    auto n = (*cut)->QueryInt64("SELECT count(*) FROM t");
    EXPECT_FALSE(n.ok());
  } else {
    EXPECT_EQ(cut.status().code(), Code::kCorruption) << cut.status().message();
  }
}

TEST(Db, SqlErrorsCarrySqliteMessage) {
  TempDir dir;
  auto db = Db::Open(dir.Join("a.sqlite"));
  ASSERT_TRUE(db.ok());
  Status s = (*db)->Exec("SELECT * FROM missing_table");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no such table: missing_table"), std::string::npos) << s.message();
}

TEST(Db, TransactionRollsBackUnlessCommitted) {
  TempDir dir;
  auto db = Db::Open(dir.Join("a.sqlite"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t(a)").ok());
  {
    Transaction tx(**db);
    ASSERT_TRUE(tx.Begin().ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO t VALUES(1)").ok());
  }
  EXPECT_EQ(*(*db)->QueryInt64("SELECT count(*) FROM t"), 0);
  {
    Transaction tx(**db);
    ASSERT_TRUE(tx.Begin().ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO t VALUES(1)").ok());
    ASSERT_TRUE(tx.Commit().ok());
  }
  EXPECT_EQ(*(*db)->QueryInt64("SELECT count(*) FROM t"), 1);
}

}  // namespace
}  // namespace pulse
