// The after-run options: pulse_mode read where after_run is absent, the
// migration's rows (and that a racing save is kept), which options a run's
// trigger picks, and where its summary goes.
#include "core/workflow/after_run.h"

#include <gtest/gtest.h>

#include "core/workflow/workflow_edit.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;

TEST(AfterRun, PulseModeOffReadsAsNoneWhereAfterRunIsAbsent) {
  Result<WorkflowConfig> c = ParseWorkflowConfig(
      R"({"schedules": [{"id": "a", "pulse_mode": "off"}, {"id": "b", "pulse_mode": "basic"}, {"id": "c"},
                         {"id": "d", "pulse_mode": "off", "after_run": {"notify": true, "backup": false, "publish": false}}]})",
      "workflow.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->schedules[0].after_run, (AfterRun{false, false, false}));
  EXPECT_EQ(c->schedules[1].after_run, (AfterRun{true, true, true}));
  EXPECT_EQ(c->schedules[2].after_run, (AfterRun{true, true, true}));
  EXPECT_EQ(c->schedules[3].after_run, (AfterRun{false, false, true})) << "after_run wins over pulse_mode";
  EXPECT_EQ(c->after_manual_run, (AfterRun{false, false, true}));
  Result<WorkflowConfig> bad = ParseWorkflowConfig(R"({"schedules": [{"id": "a", "pulse_mode": "half"}]})", "wf.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "wf.json: schedules[0].pulse_mode: expected \"basic\", \"full\" or \"off\", got \"half\"");
}

TEST(AfterRun, MigrationRowsAndIdempotence) {
  json doc = json::parse(R"({"schedules": [
    {"id": "b", "pulse_mode": "basic"}, {"id": "f", "pulse_mode": "full"}, {"id": "o", "pulse_mode": "off"},
    {"id": "s", "pulse_mode": "basic", "after_run": {"backup": false, "publish": false, "notify": false}},
    {"id": "n"}], "pulse": {"enabled": false}})");
  AfterRunMigration m;
  ASSERT_TRUE(MigrateAfterRunDoc(doc, &m).ok());
  EXPECT_EQ(doc["schedules"][0]["after_run"], json::parse(R"({"backup": true, "publish": true, "notify": true})"));
  EXPECT_EQ(doc["schedules"][1]["after_run"], json::parse(R"({"backup": true, "publish": true, "notify": true})"));
  EXPECT_EQ(doc["schedules"][2]["after_run"], json::parse(R"({"backup": false, "publish": false, "notify": false})"));
  EXPECT_EQ(doc["schedules"][3]["pulse_mode"], "off");
  EXPECT_FALSE(doc["schedules"][4].contains("after_run"));
  EXPECT_EQ(doc["pulse"]["enabled"], true) << "a legacy full keeps the workflow's own Pulse on";
  EXPECT_TRUE(m.changed());
  json again = doc;
  AfterRunMigration second;
  ASSERT_TRUE(MigrateAfterRunDoc(again, &second).ok());
  EXPECT_EQ(again, doc);
  EXPECT_FALSE(second.changed());
}

// Rewrites workflow.json (a Builder save) right after Pulse reads it.
class SavingEnv : public FixedClockEnv {
 public:
  SavingEnv(std::string path, int saves) : FixedClockEnv(DefaultEnv(), 0), path_(std::move(path)), saves_(saves) {}
  Result<std::string> ReadFile(const std::string& path) override {
    Result<std::string> text = FixedClockEnv::ReadFile(path);
    if (path == path_ && saves_ > 0 && text.ok()) {
      --saves_;
      json doc = json::parse(*text);
      doc["builder_saves"] = doc.value("builder_saves", 0) + 1;
      EXPECT_TRUE(FixedClockEnv::WriteFileAtomic(path, doc.dump(2)).ok());
    }
    return text;
  }

 private:
  std::string path_;
  int saves_;
};

TEST(AfterRun, MigrationNeverLosesAConcurrentSave) {
  testing::TempDir dir;
  std::string path = dir.Join("workflow.json");
  testing::WriteFile(path, R"({"schedules": [{"id": "o", "pulse_mode": "off"}]})");
  SavingEnv env(path, 2);
  Result<WorkflowEditResult> out =
      EditWorkflowJson(env, path, "migrate", [](json& doc) { return MigrateAfterRunDoc(doc, nullptr); });
  ASSERT_TRUE(out.ok()) << out.status().message();
  json doc = json::parse(testing::ReadFileOrDie(path));
  EXPECT_EQ(doc["builder_saves"], 2);
  EXPECT_EQ(doc["schedules"][0]["after_run"]["notify"], false);
}

TEST(AfterRun, TriggerPicksTheScheduleOrTheManualRow) {
  Result<WorkflowConfig> c = ParseWorkflowConfig(
      R"({"schedules": [{"id": "daily", "after_run": {"backup": false}}], "after_manual_run": {"notify": false}})", "w");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(AfterRunForTrigger(*c, "schedule:daily").options, (AfterRun{false, true, true}));
  EXPECT_EQ(AfterRunForTrigger(*c, "manual").options, (AfterRun{false, false, false}));
  EXPECT_EQ(AfterRunForTrigger(*c, "schedule:gone").options, (AfterRun{false, false, false}));
}

TEST(AfterRun, FailuresAndStatusChangesGoToTheChannelsRoutineSuccessesDoNot) {
  EXPECT_TRUE(DecideRunNotice("s", "r1", "failed", "completed", "boom", "x").to_channels);
  EXPECT_TRUE(DecideRunNotice("s", "r1", "completed", "failed", "", "x").to_channels);
  RunNotice routine = DecideRunNotice("s", "r1", "completed", "completed", "", "x");
  EXPECT_FALSE(routine.to_channels);
  EXPECT_EQ(routine.why, "routine success");
  EXPECT_FALSE(DecideRunNotice("s", "r1", "completed", "", "", "").to_channels) << "a first success is routine";
}

}  // namespace
}  // namespace pulse
