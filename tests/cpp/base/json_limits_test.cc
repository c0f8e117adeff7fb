#include "core/base/json_limits.h"

#include <gtest/gtest.h>

namespace pulse {
namespace {

TEST(JsonLimits, AcceptsDocumentsUpToTheLimit) {
  std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  Result<nlohmann::json> doc = ParseJsonBounded(ok, "body");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_TRUE(doc->is_array());
}

TEST(JsonLimits, RefusesDeepNestingNamingTheInput) {
  std::string deep(200000, '[');
  Result<nlohmann::json> doc = ParseJsonBounded(deep, "request body");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(doc.status().message(), "request body: JSON nested deeper than 64 levels (at byte 64)");
  std::string objects;
  for (int i = 0; i < 65; ++i) objects += "{\"a\":";
  EXPECT_FALSE(ParseJsonBounded(objects, "x").ok());
}

TEST(JsonLimits, BracketsInsideStringsDoNotCount) {
  std::string text = "{\"s\": \"" + std::string(500, '[') + "\\\"" + std::string(500, '{') + "\"}";
  Result<nlohmann::json> doc = ParseJsonBounded(text, "body");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ((*doc)["s"].get<std::string>().size(), 1001u);
}

TEST(JsonLimits, MalformedInputIsNotQuotedBack) {
  Result<nlohmann::json> doc = ParseJsonBounded("{\"a\": SECRETSECRET}", "workflow.json");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(doc.status().message().rfind("workflow.json: malformed JSON at byte ", 0), 0u) << doc.status().message();
  EXPECT_EQ(doc.status().message().find("SECRET"), std::string::npos) << doc.status().message();
  Result<nlohmann::json> utf8 = ParseJsonBounded("{\"a\": \"\xff\xfe\"}", "body");
  ASSERT_FALSE(utf8.ok());
  EXPECT_NE(utf8.status().message().find("UTF-8"), std::string::npos) << utf8.status().message();
  EXPECT_EQ(utf8.status().message().find('\xff'), std::string::npos);
}

}  // namespace
}  // namespace pulse
