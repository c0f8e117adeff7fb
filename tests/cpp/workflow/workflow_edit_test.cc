// EditWorkflowJson: formatting kept, invalid files refused untouched, and a
// writer racing the edit never loses its change (an Env whose file changes
// between Pulse's read and its swap).
#include "core/workflow/workflow_edit.h"

#include <gtest/gtest.h>

#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;

TEST(WorkflowEdit, RenderKeepsUntouchedBytes) {
  std::string text =
      "{\n    \"slug\":\"s\",  \"pulse\": {\n        \"enabled\": true,\n        \"autonomy\": {\"run\":\"ask\"}\n    },\n"
      "    \"weird\" : [ 1,2 ,3 ]\n}\n";
  json before = json::parse(text);
  json after = before;
  after["pulse"]["focus_areas"] = json::array({"A"});
  after["pulse"]["enabled"] = false;
  std::string out = RenderJsonEdit(text, before, after);
  EXPECT_EQ(json::parse(out), after);
  EXPECT_NE(out.find("\"slug\":\"s\",  \"pulse\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"autonomy\": {\"run\":\"ask\"}"), std::string::npos) << out;
  EXPECT_NE(out.find("\"weird\" : [ 1,2 ,3 ]"), std::string::npos) << out;
  EXPECT_NE(out.find("\n        \"focus_areas\": [\n"), std::string::npos) << "new members take their siblings' indent:\n" << out;
}

TEST(WorkflowEdit, RenderFallsBackWhenAKeyIsRemoved) {
  std::string text = "{\"a\": 1, \"b\": 2}";
  json after = {{"a", 1}};
  EXPECT_EQ(json::parse(RenderJsonEdit(text, json::parse(text), after)), after);
}

// Rewrites the file (adding a key) right after Pulse reads it, `races` times.
class RacingEnv : public FixedClockEnv {
 public:
  RacingEnv(Env* base, std::string path, int races) : FixedClockEnv(base, 0), path_(std::move(path)), races_(races) {}
  Result<std::string> ReadFile(const std::string& path) override {
    Result<std::string> text = FixedClockEnv::ReadFile(path);
    if (path == path_ && races_ > 0 && text.ok()) {
      --races_;
      json doc = json::parse(*text);
      doc["builder_saves"] = doc.value("builder_saves", 0) + 1;
      EXPECT_TRUE(FixedClockEnv::WriteFileAtomic(path, doc.dump(2)).ok());
    }
    return text;
  }

 private:
  std::string path_;
  int races_;
};

TEST(WorkflowEdit, ARacingWriterIsNeverLost) {
  testing::TempDir dir;
  std::string path = dir.Join("workflow.json");
  testing::WriteFile(path, "{\"pulse\": {\"enabled\": true}}\n");
  RacingEnv env(DefaultEnv(), path, 3);
  Result<WorkflowEditResult> out = EditWorkflowJson(env, path, "test", [](json& doc) {
    doc["pulse"]["focus_areas"] = json::array({"A"});
    return Status::OK();
  });
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->attempts, 4);
  json doc = json::parse(testing::ReadFileOrDie(path));
  EXPECT_EQ(doc["builder_saves"], 3) << "every racing save kept";
  EXPECT_EQ(doc["pulse"]["focus_areas"], json::array({"A"})) << "and Pulse's edit on top";
}

TEST(WorkflowEdit, GivesUpWithConflictAndWritesNothingOfItsOwn) {
  testing::TempDir dir;
  std::string path = dir.Join("workflow.json");
  testing::WriteFile(path, "{}");
  RacingEnv env(DefaultEnv(), path, 100);
  Result<WorkflowEditResult> out = EditWorkflowJson(
      env, path, "test", [](json& doc) { doc["mine"] = true; return Status::OK(); }, 5);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kConflict);
  EXPECT_FALSE(json::parse(testing::ReadFileOrDie(path)).contains("mine"));
}

TEST(WorkflowEdit, InvalidFileOrRefusedChangeLeavesItByteIdentical) {
  testing::TempDir dir;
  std::string path = dir.Join("workflow.json");
  for (const char* bad : {"{\"pulse\": ", "[1, 2]", "{\"pulse\": {\"autonomy\": {\"run\": \"sometimes\"}}}"}) {
    testing::WriteFile(path, bad);
    Result<WorkflowEditResult> out =
        EditWorkflowJson(*DefaultEnv(), path, "test", [](json& doc) { doc["x"] = 1; return Status::OK(); });
    EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << bad;
    EXPECT_EQ(testing::ReadFileOrDie(path), bad);
  }
  testing::WriteFile(path, "{ \"a\" : 1 }");
  Result<WorkflowEditResult> refused =
      EditWorkflowJson(*DefaultEnv(), path, "test", [](json&) { return Status::Conflict("no"); });
  EXPECT_EQ(refused.status().code(), Code::kConflict);
  EXPECT_EQ(testing::ReadFileOrDie(path), "{ \"a\" : 1 }");
}

}  // namespace
}  // namespace pulse
