// Versioned, idempotent schema creation.
#include "core/schema.h"

#include <gtest/gtest.h>

#include "core/db.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::TempDir;
using testing::WriteFile;

TEST(Schema, MigrationsAreIdempotentAndUpgradeInPlace) {
  TempDir dir;
  auto db = Db::Open(dir.Join("a.sqlite"));
  ASSERT_TRUE(db.ok());
  std::vector<Migration> v1 = {{1, "CREATE TABLE widgets(id INTEGER PRIMARY KEY, name TEXT)"}};
  ASSERT_TRUE(ApplyMigrations(**db, "widgets", v1).ok());
  ASSERT_TRUE(ApplyMigrations(**db, "widgets", v1).ok());
  ASSERT_TRUE((*db)->Exec("INSERT INTO widgets(name) VALUES('kept')").ok());
  std::vector<Migration> v2 = v1;
  v2.push_back({2, "ALTER TABLE widgets ADD COLUMN color TEXT NOT NULL DEFAULT 'blue'"});
  ASSERT_TRUE(ApplyMigrations(**db, "widgets", v2).ok());
  auto q = (*db)->Prepare("SELECT name, color FROM widgets");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->Step());
  EXPECT_EQ(q->Text(0), "kept");
  EXPECT_EQ(q->Text(1), "blue");
  // A database from a newer Pulse is refused, not damaged.
  Status older = ApplyMigrations(**db, "widgets", v1);
  EXPECT_EQ(older.code(), Code::kConflict);
}

}  // namespace
}  // namespace pulse
