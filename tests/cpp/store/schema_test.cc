// Versioned, idempotent schema creation.
#include "core/store/schema.h"

#include <gtest/gtest.h>

#include "core/store/db.h"
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

// The shortcut for a database already up to date never stands in for a
// migration that is due, nor for the refusal of a newer database.
TEST(Schema, EnsureSchemaShortcutOnlyForDatabasesUpToDate) {
  TempDir dir;
  auto versions = [](Db& db) {
    std::string out;
    auto q = db.Prepare("SELECT component || '=' || version FROM pulse_schema_versions ORDER BY component");
    EXPECT_TRUE(q.ok());
    while (*q->Step()) out += q->Text(0) + " ";
    return out;
  };
  auto a = Db::Open(dir.Join("a.sqlite"));
  auto b = Db::Open(dir.Join("b.sqlite"));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(EnsureSchema(**a).ok());
  ASSERT_TRUE(EnsureSchema(**b).ok());
  EXPECT_EQ(versions(**a), versions(**b));
  ASSERT_TRUE(EnsureSchema(**a).ok());  // up to date: the shortcut
  EXPECT_EQ(versions(**a), versions(**b));

  // One component behind (its table and its version gone): migrated again.
  ASSERT_TRUE((*b)->Exec("DROP TABLE pulse_asks; DELETE FROM pulse_schema_versions WHERE component = 'asks'").ok());
  ASSERT_TRUE(EnsureSchema(**b).ok());
  EXPECT_EQ(versions(**a), versions(**b));
  EXPECT_TRUE((*b)->Exec("SELECT COUNT(*) FROM pulse_asks").ok());

  // A component newer than this build knows: refused as before.
  ASSERT_TRUE((*b)->Exec("UPDATE pulse_schema_versions SET version = version + 1 WHERE component = 'asks'").ok());
  EXPECT_EQ(EnsureSchema(**b).code(), Code::kConflict);
}

}  // namespace
}  // namespace pulse
