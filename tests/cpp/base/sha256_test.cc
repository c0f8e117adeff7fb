#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

#include "core/base/sha256.h"

namespace pulse {
namespace {

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  Sha256 split;
  split.Update("abcdbcdecdefdefgefghfghighijhijk");
  split.Update("ijkljklmklmnlmnomnopnopq");
  EXPECT_EQ(HexEncode(split.Finish()), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
}

// Padding is where SHA-256 code goes wrong: 55 bytes is the most that fits
// one block with the length, 56 to 64 need a second block.
TEST(Sha256, LengthsAroundTheBlockBoundaries) {
  const std::pair<size_t, const char*> vectors[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
  };
  for (const auto& [n, hex] : vectors) {
    EXPECT_EQ(Sha256Hex(std::string(n, 'a')), hex) << n << " bytes";
    // The same bytes fed one at a time.
    Sha256 bytewise;
    for (size_t i = 0; i < n; ++i) bytewise.Update("a", 1);
    EXPECT_EQ(HexEncode(bytewise.Finish()), hex) << n << " bytes, one at a time";
  }
}

TEST(Sha256, EveryByteValueAndAnyUpdateSplitGiveTheSameDigest) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  const std::string want = "40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880";
  EXPECT_EQ(Sha256Hex(all), want);
  for (size_t cut : {0u, 1u, 63u, 64u, 65u, 128u, 255u, 256u}) {
    Sha256 h;
    h.Update(std::string_view(all).substr(0, cut));
    h.Update(std::string_view(all).substr(cut));
    EXPECT_EQ(HexEncode(h.Finish()), want) << "split at " << cut;
  }
  std::string digest = Sha256().Finish();
  EXPECT_EQ(digest.size(), 32u);  // raw bytes; Sha256Hex is their hex
}

TEST(Sha256, HexEncodeIsLowercaseTwoDigitsPerByte) {
  EXPECT_EQ(HexEncode(""), "");
  EXPECT_EQ(HexEncode(std::string("\x00\x0f\xa0\xff", 4)), "000fa0ff");
  EXPECT_EQ(Sha256Hex("x").size(), 64u);
}

TEST(Sha256, ConstantTimeEqualsEdgeCases) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_FALSE(ConstantTimeEquals("", "a"));
  EXPECT_FALSE(ConstantTimeEquals("a", ""));
  // Differences anywhere, including a NUL that a C-string compare would stop at.
  EXPECT_FALSE(ConstantTimeEquals(std::string("ab\0c", 4), std::string("ab\0d", 4)));
  EXPECT_TRUE(ConstantTimeEquals(std::string("ab\0c", 4), std::string("ab\0c", 4)));
  EXPECT_FALSE(ConstantTimeEquals("Xbc", "abc"));
  const std::string token = Sha256Hex("token");
  EXPECT_TRUE(ConstantTimeEquals(token, Sha256Hex("token")));
  EXPECT_FALSE(ConstantTimeEquals(token, Sha256Hex("token ")));
}

// RFC 4231 test cases 1, 2 and 6 (a key longer than the block).
TEST(Sha256, HmacKnownVectors) {
  EXPECT_EQ(HexEncode(HmacSha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(HexEncode(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(HexEncode(HmacSha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

}  // namespace
}  // namespace pulse
