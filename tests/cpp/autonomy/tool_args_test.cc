#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/autonomy/tool_args.h"

namespace pulse {
namespace {

using nlohmann::json;

std::string Joined(const std::string& raw) {
  std::string out;
  for (const std::string& s : PathSegments(raw)) out += "/" + s;
  return out;
}

TEST(ToolArgs, PathSegmentsReadAPathAsTheFileSystemWould) {
  std::vector<std::pair<std::string, std::string>> table = {
      {"soul.md", "/soul.md"},
      {"./Soul.MD", "/soul.md"},
      {"x/../soul.md", "/soul.md"},
      {"../../.pulse/owner-token", "/.pulse/owner-token"},
      {"%2Epulse%2Fowner-token", "/.pulse/owner-token"},
      {"soul%252Emd", "/soul.md"},
      {std::string("soul.md\0.txt", 12), "/soul.md"},
      {"soul.md%00.txt", "/soul.md"},
      {"C:\\ws\\Flow\\SOUL.MD ", "/c:/ws/flow/soul.md"},
      {"soul.md::$DATA", "/soul.md"},
      {"soul.md...", "/soul.md"},
      {"file:///ws/soul.md", "/ws/soul.md"},
      {"\"./db/db.sqlite\"", "/db/db.sqlite"},
      {"", ""},
  };
  for (const auto& [raw, want] : table) EXPECT_EQ(Joined(raw), want) << ::testing::PrintToString(raw);
}

TEST(ToolArgs, WhatIsSoulPlanOrProtected) {
  EXPECT_TRUE(IsSoulPath(PathSegments("a/b/soul.md")));
  EXPECT_FALSE(IsSoulPath(PathSegments("pulse/work/soul.md.draft")));
  EXPECT_TRUE(IsPlanPath(PathSegments("planning/steps/x.md")));
  EXPECT_TRUE(IsPlanPath(PathSegments("./workflow.json")));
  for (const char* p : {".pulse/owner-token", "ws/.pulse", "db/db.sqlite", "db.sqlite-wal", "x/db/anything",
                        "memory/goal.md", "../../memory/goal.md", "owner-token"}) {
    EXPECT_TRUE(IsProtectedPath(PathSegments(p))) << p;
  }
  for (const char* p : {"db", "memory", "memory/notes.md", "pulse/work/db-notes.md", "goal.md", "mydb/x"}) {
    EXPECT_FALSE(IsProtectedPath(PathSegments(p))) << p;
  }
  EXPECT_TRUE(IsProtectedDir(PathSegments("./db/")));
  EXPECT_TRUE(IsProtectedDir(PathSegments("memory")));
}

TEST(ToolArgs, PatchPathsReadEveryHeader) {
  std::string patch =
      "diff --git a/x.md b/y.md\nsimilarity index 90%\nrename from x.md\nrename to soul.md\n"
      "copy from a.md\ncopy to \"b c.md\"\nIndex: idx.md\n  --- a/old.md\t2024-01-01\n+++ b/new.md\r"
      "*** Update File: upd.md\n*** Move to: moved.md\n*** Add File: added.md\n*** Delete File: gone.md\n";
  std::vector<std::string> paths = PatchPaths(patch);
  for (const char* want : {"a/x.md", "b/y.md", "x.md", "soul.md", "a.md", "b c.md", "idx.md", "a/old.md", "b/new.md",
                           "upd.md", "moved.md", "added.md", "gone.md"}) {
    EXPECT_NE(std::find(paths.begin(), paths.end(), want), paths.end()) << want;
  }
}

TEST(ToolArgs, ArgumentPathsReadEveryKeyThatCanHoldAPath) {
  json args = {{"dst", "a.md"},
               {"new_name", "b.md"},
               {"opts", {{"rename_to", "c.md"}}},
               {"list", {"d.md", "e.md"}},
               {"encoded", "{\"target\": \"f.md\"}"},
               {"path", "with blank.md"},
               {"message", "a sentence, not a path"},
               {"url", "https://example.com/db/x"},
               {"patch", "--- a/g.md\n+++ b/g.md\n"}};
  std::vector<std::string> paths = ArgumentPaths(args);
  for (const char* want : {"a.md", "b.md", "c.md", "d.md", "e.md", "f.md", "with blank.md", "b/g.md"}) {
    EXPECT_NE(std::find(paths.begin(), paths.end(), want), paths.end()) << want;
  }
  for (const char* not_path : {"a sentence, not a path", "https://example.com/db/x"}) {
    EXPECT_EQ(std::find(paths.begin(), paths.end(), not_path), paths.end()) << not_path;
  }
}

TEST(ToolArgs, RecipientKeysByRule) {
  for (const char* k : {"to", "To", "mail_to", "mailTo", "email", "email_cc", "EmailBCC", "address", "toAddresses",
                        "target", "targets", "recipient", "recipients", "cc", "bcc", "phone_number", "channel",
                        "slack_channel_id", "webhook", "webhookUrl", "user_ids", "sendTo", "reply-to", "destination",
                        "notify_list", "\xd0\xb5mail"}) {
    EXPECT_TRUE(IsRecipientKey(k)) << k;
  }
  for (const char* k : {"message", "title", "body", "priority", "level", "subject", "into", "token", "total"}) {
    EXPECT_FALSE(IsRecipientKey(k)) << k;
  }
  EXPECT_EQ(FindRecipientKey({{"message", "m"}, {"x", {{"y", {{"reply_to", "a@b.c"}}}}}}), "reply_to");
  EXPECT_EQ(FindRecipientKey({{"message", "m"}, {"to", ""}}), "");
  EXPECT_EQ(FindRecipientKey({{"message", "write to a@b.c"}}), "");
}

TEST(ToolArgs, DispatchedCallsAtAnyDepth) {
  json args = {{"tool_call", {{"name", "delete_step"}, {"arguments", "{\"step_id\": \"s1\"}"}}},
               {"batch", json::array({{{"function", {{"name", "update_step"}, {"args", {{"x", 1}}}}}}})}};
  std::vector<DispatchedCall> calls = DispatchedCalls(args);
  ASSERT_EQ(calls.size(), 2u);
  std::sort(calls.begin(), calls.end(), [](const DispatchedCall& a, const DispatchedCall& b) { return a.name < b.name; });
  EXPECT_EQ(calls[0].name, "delete_step");
  EXPECT_EQ(calls[0].args, (json{{"step_id", "s1"}}));
  EXPECT_EQ(calls[1].name, "update_step");
  EXPECT_EQ(calls[1].args, (json{{"x", 1}}));
}


// A pre-encoded argument is read only as deep as any outside document: a
// string of nested brackets stays a string, and nothing overflows.
TEST(ToolArgs, PreEncodedArgumentsAreParsedWithTheDepthBound) {
  std::string deep(200000, '[');
  json args = {{"payload", deep + std::string(200000, ']')}};
  std::vector<ArgString> strings = CollectStrings(args);
  ASSERT_EQ(strings.size(), 1u);
  EXPECT_EQ(strings[0].value.size(), 400000u);
  json shallow = {{"payload", "{\"to\": \"x@y.z\"}"}};
  EXPECT_EQ(FindRecipientKey(shallow), "to");
}

}  // namespace
}  // namespace pulse
