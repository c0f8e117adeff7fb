// The workspace layout: names, opening a workflow, the config snapshot.
#include "core/store/workspace.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "core/api/api.h"
#include "core/store/db.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::TempDir;
using testing::WriteFile;

TEST(Workspace, RefusesPathTraversalNames) {
  for (const char* bad : {"..", ".", "../etc", "/abs", "a/b", "a%2Fb", "", ".hidden", "a\\b"}) {
    EXPECT_FALSE(ValidateWorkflowName(bad).ok()) << bad;
  }
  EXPECT_TRUE(ValidateWorkflowName("substack-2.v1_x").ok());
}

TEST(Workspace, OpenCreatesDatabaseAndSnapshotsConfig) {
  TempDir dir;
  std::string ws = testing::MakeWorkspace(dir, "substack", R"({"goal": {"primary_metric": {"name": "subscribers"}}})");
  WriteFile(ws + "/Workflow/substack/soul.md", "Grow the newsletter.");
  WriteFile(ws + "/Workflow/notes/readme.txt", "not a workflow");
  FixedClockEnv env(DefaultEnv(), T("2026-10-07T12:00:00Z"));
  auto w = OpenWorkflow(env, ws, "substack");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_TRUE(std::filesystem::exists(ws + "/Workflow/substack/db/db.sqlite"));
  auto snap = LoadConfigSnapshot(*w->db);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->workflow, "substack");
  EXPECT_EQ(snap->soul_md, "Grow the newsletter.");
  EXPECT_EQ(snap->updated_at, *ParseTime("2026-10-07T12:00:00Z"));

  // The database alone gives the same configuration (the browser's path).
  auto ctx = ContextFromDb(*w->db, env);
  ASSERT_TRUE(ctx.ok());
  EXPECT_EQ(ctx->workflow, "substack");
  EXPECT_TRUE(ctx->config.HasGoal());
  auto version = CallApi(*ctx, "pulse.version", nlohmann::json::object());
  ASSERT_TRUE(version.ok());
  EXPECT_EQ((*version)["sqlite"], sqlite3_libversion());
  EXPECT_EQ(CallApi(*ctx, "no.such.method", {}).status().code(), Code::kNotFound);

  auto names = ListWorkflows(env, ws);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, std::vector<std::string>{"substack"});
}

TEST(Workspace, MissingAndMalformedFilesAreClearErrors) {
  TempDir dir;
  std::string ws = testing::MakeWorkspace(dir, "bad", "{ not json");
  FixedClockEnv env(DefaultEnv(), T("2026-10-07T12:00:00Z"));
  auto bad = OpenWorkflow(env, ws, "bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Workflow/bad/workflow.json: malformed JSON"), std::string::npos);
  // Nothing was created for a workflow whose configuration is unreadable.
  EXPECT_FALSE(std::filesystem::exists(ws + "/Workflow/bad/db"));
  auto missing = OpenWorkflow(env, ws, "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace pulse
