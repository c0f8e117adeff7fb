// UTF-8 validation, repair and cutting on character boundaries, and the
// database seam that keeps bad bytes out of rows and out of every reader.
#include "core/base/utf8.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/store/db.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

const std::string kEuro = "\xE2\x82\xAC";        // U+20AC, 3 bytes
const std::string kEmoji = "\xF0\x9F\x98\x80";   // U+1F600, 4 bytes
const std::string kFffd = "\xEF\xBF\xBD";

TEST(Utf8, ValidTextIsValid) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii\n"));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 " + kEuro + kEmoji));
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
}

TEST(Utf8, IllFormedSequencesAreFoundAtTheirFirstByte) {
  EXPECT_EQ(FirstInvalidUtf8("ab\x80"), 2u);                 // stray continuation
  EXPECT_EQ(FirstInvalidUtf8("a" + kEuro.substr(0, 2)), 1u);  // cut inside a character
  EXPECT_EQ(FirstInvalidUtf8("\xC0\xAF"), 0u);               // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8("\xE0\x80\xAF"), 0u);           // overlong
  EXPECT_EQ(FirstInvalidUtf8("\xED\xA0\x80"), 0u);           // surrogate D800
  EXPECT_EQ(FirstInvalidUtf8("\xF4\x90\x80\x80"), 0u);       // above U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("x\xFF"), 1u);
  EXPECT_FALSE(RequireUtf8("ok\xFE", "--text").ok());
  EXPECT_NE(RequireUtf8("ok\xFE", "--text").message().find("--text: not valid UTF-8 (byte 2)"), std::string::npos);
}

TEST(Utf8, RepairReplacesEachMaximalSubpartWithOneReplacementCharacter) {
  EXPECT_EQ(RepairUtf8("a" + kEuro.substr(0, 2) + "b"), "a" + kFffd + "b");
  EXPECT_EQ(RepairUtf8("\xC0\xAF"), kFffd + kFffd);
  EXPECT_EQ(RepairUtf8("\xF0\x9F\x98"), kFffd);
  EXPECT_EQ(RepairUtf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);
  std::string fine = "caf\xC3\xA9 " + kEmoji;
  EXPECT_EQ(RepairUtf8(fine), fine);
  std::string once = RepairUtf8("\xFF\xFE" + kEuro.substr(1));
  EXPECT_TRUE(IsValidUtf8(once));
  EXPECT_EQ(RepairUtf8(once), once);
}

TEST(Utf8, PrefixAndSuffixNeverCutACharacter) {
  std::string s = "ab" + kEuro + kEmoji + "z";  // 2 + 3 + 4 + 1 bytes
  EXPECT_EQ(Utf8Prefix(s, 100), s);
  EXPECT_EQ(Utf8Prefix(s, 3), "ab");
  EXPECT_EQ(Utf8Prefix(s, 4), "ab");
  EXPECT_EQ(Utf8Prefix(s, 5), "ab" + kEuro);
  EXPECT_EQ(Utf8Prefix(s, 8), "ab" + kEuro);
  EXPECT_EQ(Utf8Prefix(s, 9), "ab" + kEuro + kEmoji);
  EXPECT_EQ(Utf8Suffix(s, 1), "z");
  EXPECT_EQ(Utf8Suffix(s, 4), "z");
  EXPECT_EQ(Utf8Suffix(s, 5), kEmoji + "z");
  EXPECT_EQ(Utf8Suffix(s, 7), kEmoji + "z");
  EXPECT_EQ(Utf8Suffix(s, 8), kEuro + kEmoji + "z");
  // Bytes that are no UTF-8 at all are cut like single characters.
  EXPECT_EQ(Utf8Prefix("\x80\x80\x80\x80\x80", 2), "\x80\x80");
  for (size_t n = 0; n <= s.size(); ++n) {
    EXPECT_TRUE(IsValidUtf8(Utf8Prefix(s, n))) << n;
    EXPECT_TRUE(IsValidUtf8(Utf8Suffix(s, n))) << n;
  }
}

// Every text bound into a statement is repaired, and a reader that meets bad
// bytes stored by some other writer (an older Pulse, a sqlite3 shell) gets
// them repaired: a JSON rendering of the row can no longer fail.
TEST(Utf8, DatabaseNeverStoresOrReturnsIllFormedText) {
  testing::TempDir dir;
  auto db = Db::Open(dir.Join("t.sqlite"));
  ASSERT_TRUE(db.ok()) << db.status().message();
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t(v TEXT)").ok());
  auto put = (*db)->Prepare("INSERT INTO t VALUES (?)");
  ASSERT_TRUE(put.ok());
  ASSERT_TRUE(put->Bind(1, std::string_view("cut " + kEuro.substr(0, 2))).Run().ok());
  // A writer that bypasses Pulse's statements stores the raw bytes.
  ASSERT_TRUE((*db)->Exec("INSERT INTO t VALUES (CAST(X'6F6C64FF' AS TEXT))").ok());

  auto raw = (*db)->Prepare("SELECT hex(v) FROM t ORDER BY rowid");
  ASSERT_TRUE(raw.ok());
  ASSERT_TRUE(*raw->Step());
  EXPECT_EQ(raw->Text(0), "63757420EFBFBD");  // repaired before it was stored
  ASSERT_TRUE(*raw->Step());
  EXPECT_EQ(raw->Text(0), "6F6C64FF");  // stored raw by the other writer

  auto read = (*db)->Prepare("SELECT v FROM t ORDER BY rowid");
  ASSERT_TRUE(read.ok());
  ASSERT_TRUE(*read->Step());
  EXPECT_EQ(read->Text(0), "cut " + kFffd);
  ASSERT_TRUE(*read->Step());
  EXPECT_EQ(read->Text(0), "old" + kFffd);
  EXPECT_NO_THROW((void)nlohmann::json(read->Text(0)).dump());
}

}  // namespace
}  // namespace pulse
