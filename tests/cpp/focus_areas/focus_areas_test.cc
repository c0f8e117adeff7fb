// The focus-area rules (ApplyFocusChange, ExpireFocusAreas) and the
// FocusAreas service over a real workflow.json and database in a temp dir.
#include "core/focus_areas/focus_areas.h"

#include <gtest/gtest.h>

#include "core/store/workspace.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;

const int64_t kNow = T("2026-10-07T12:00:00Z");

FocusChange Propose(const std::string& title, const std::string& end = "") {
  FocusChange c;
  c.action = FocusAction::kPropose;
  c.title = title;
  c.end_date = end;
  return c;
}

FocusChange On(FocusAction action, const std::string& id) {
  FocusChange c;
  c.action = action;
  c.id = id;
  return c;
}

TEST(FocusAreas, ProposeConfirmTrackClose) {
  std::vector<FocusArea> areas;
  Result<std::string> id = ApplyFocusChange(areas, Propose("Weekly growth experiment", "2026-11-01"), kNow);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(*id, "fa-1");
  EXPECT_EQ(areas[0].status, FocusStatus::kProposed);
  EXPECT_EQ(areas[0].proposed_by, "pulse");
  ASSERT_TRUE(ApplyFocusChange(areas, On(FocusAction::kConfirm, "fa-1"), kNow).ok());
  EXPECT_EQ(areas[0].status, FocusStatus::kActive);

  FocusChange track = On(FocusAction::kTrack, "fa-1");
  track.note = "+12 subscribers";
  ASSERT_TRUE(ApplyFocusChange(areas, track, kNow).ok());
  track.note = "+14 subscribers";
  ASSERT_TRUE(ApplyFocusChange(areas, track, kNow + 3600).ok());
  ASSERT_EQ(areas[0].tracking.size(), 1u) << "one dated line a day at most";
  EXPECT_EQ(areas[0].tracking[0].note, "+14 subscribers");
  ASSERT_TRUE(ApplyFocusChange(areas, track, kNow + 86400).ok());
  EXPECT_EQ(areas[0].tracking.size(), 2u);
  EXPECT_EQ(areas[0].tracking[1].date, "2026-10-08");

  FocusChange close = On(FocusAction::kClose, "fa-1");
  EXPECT_EQ(ApplyFocusChange(areas, close, kNow).status().code(), Code::kInvalidArgument) << "a lesson is required";
  close.lesson = "weekly experiments beat monthly ones";
  ASSERT_TRUE(ApplyFocusChange(areas, close, kNow).ok());
  EXPECT_EQ(areas[0].status, FocusStatus::kDone);
  EXPECT_EQ(areas[0].lesson, "weekly experiments beat monthly ones");
}

TEST(FocusAreas, DefaultEndDateIsFourteenDaysOut) {
  std::vector<FocusArea> areas;
  ASSERT_TRUE(ApplyFocusChange(areas, Propose("Fix the funnel"), kNow).ok());
  EXPECT_EQ(areas[0].end_date, "2026-10-21");
}

TEST(FocusAreas, AtMostThreeOpen) {
  std::vector<FocusArea> areas;
  for (const char* t : {"a", "b", "c"}) ASSERT_TRUE(ApplyFocusChange(areas, Propose(t), kNow).ok());
  Result<std::string> fourth = ApplyFocusChange(areas, Propose("d"), kNow);
  ASSERT_FALSE(fourth.ok());
  EXPECT_EQ(fourth.status().code(), Code::kConflict);
  EXPECT_NE(fourth.status().message().find("at most 3 focus areas are open"), std::string::npos)
      << fourth.status().message();
  EXPECT_EQ(areas.size(), 3u);
  // A rejected one frees a place; a dropped one does too.
  ASSERT_TRUE(ApplyFocusChange(areas, On(FocusAction::kReject, "fa-2"), kNow).ok());
  EXPECT_TRUE(ApplyFocusChange(areas, Propose("d"), kNow).ok());
  FocusChange add = Propose("e");
  add.action = FocusAction::kAdd;
  EXPECT_EQ(ApplyFocusChange(areas, add, kNow).status().code(), Code::kConflict) << "the owner's add counts too";
}

TEST(FocusAreas, BadInputNamesTheProblem) {
  std::vector<FocusArea> areas;
  Result<std::string> past = ApplyFocusChange(areas, Propose("x", "2026-10-06"), kNow);
  EXPECT_EQ(past.status().code(), Code::kInvalidArgument);
  EXPECT_NE(past.status().message().find("end date 2026-10-06 is in the past"), std::string::npos);
  EXPECT_EQ(ApplyFocusChange(areas, Propose("x", "2026-13-01"), kNow).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ApplyFocusChange(areas, Propose("  "), kNow).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(areas.empty());

  Result<std::string> unknown = ApplyFocusChange(areas, On(FocusAction::kConfirm, "fa-9"), kNow);
  EXPECT_EQ(unknown.status().code(), Code::kNotFound);
  EXPECT_NE(unknown.status().message().find("no focus area \"fa-9\""), std::string::npos);

  ASSERT_TRUE(ApplyFocusChange(areas, Propose("x"), kNow).ok());
  ASSERT_TRUE(ApplyFocusChange(areas, On(FocusAction::kDrop, "fa-1"), kNow).ok());
  Result<std::string> confirm = ApplyFocusChange(areas, On(FocusAction::kConfirm, "fa-1"), kNow);
  EXPECT_EQ(confirm.status().code(), Code::kConflict);
  EXPECT_NE(confirm.status().message().find("fa-1 is dropped"), std::string::npos) << confirm.status().message();

  ASSERT_TRUE(ApplyFocusChange(areas, Propose("y"), kNow).ok());
  Result<std::string> extend = ApplyFocusChange(areas, On(FocusAction::kExtend, "fa-2"), kNow);
  EXPECT_EQ(extend.status().code(), Code::kInvalidArgument);
  EXPECT_NE(extend.status().message().find("an end date is required"), std::string::npos);
  EXPECT_EQ(ApplyFocusChange(areas, On(FocusAction::kTrack, "fa-2"), kNow).status().code(), Code::kInvalidArgument)
      << "a track needs a note";
}

TEST(FocusAreas, ExpirePastEndDate) {
  std::vector<FocusArea> areas;
  ASSERT_TRUE(ApplyFocusChange(areas, Propose("a", "2026-10-07"), kNow).ok());
  ASSERT_TRUE(ApplyFocusChange(areas, Propose("b", "2026-10-20"), kNow).ok());
  EXPECT_TRUE(ExpireFocusAreas(areas, kNow).empty()) << "the end date itself is still in";
  std::vector<std::string> ids = ExpireFocusAreas(areas, T("2026-10-08T00:00:01Z"));
  ASSERT_EQ(ids, std::vector<std::string>{"fa-1"});
  EXPECT_EQ(areas[0].status, FocusStatus::kExpired);
  EXPECT_EQ(areas[1].status, FocusStatus::kProposed);
}

TEST(FocusAreas, ReadsLegacyTitlesAndWritesBothKeys) {
  json doc = json::parse(R"({"pulse": {"focus_areas": ["Old focus"]}})");
  Result<std::vector<FocusArea>> areas = ReadFocusAreas(doc);
  ASSERT_TRUE(areas.ok());
  ASSERT_EQ(areas->size(), 1u);
  EXPECT_EQ((*areas)[0].status, FocusStatus::kActive);
  ASSERT_TRUE(ApplyFocusChange(*areas, Propose("New"), kNow).ok());
  WriteFocusAreas(doc, *areas);
  EXPECT_EQ(doc["pulse"]["focus_areas"], json::array({"Old focus"})) << "only active titles";
  EXPECT_EQ(doc["pulse"]["focus_area_details"].size(), 2u);
  EXPECT_EQ(ReadFocusAreas(json::parse(R"({"pulse": {"focus_area_details": 3}})")).status().code(),
            Code::kInvalidArgument);
}

class FocusService : public ::testing::Test {
 protected:
  void SetUp() override {
    workspace_ = testing::MakeWorkspace(dir_, "wf", kJson);
    Result<OpenedWorkflow> w = OpenWorkflow(env_, workspace_, "wf");
    ASSERT_TRUE(w.ok()) << w.status().message();
    w_ = std::make_unique<OpenedWorkflow>(std::move(*w));
    memory_ = std::make_unique<GoalMemory>(*w_->db, env_, w_->paths.goal_memory);
  }
  FocusAreas Service() { return FocusAreas(*w_->db, env_, "wf", w_->paths.workflow_json, memory_.get()); }

  static constexpr const char* kJson =
      "{\n  \"slug\": \"wf\",\n  \"pulse\": {\"enabled\": true},\n  \"x_platform\": {\"keep\": [1,2,3]}\n}\n";
  testing::TempDir dir_;
  FixedClockEnv env_{DefaultEnv(), kNow};
  std::string workspace_;
  std::unique_ptr<OpenedWorkflow> w_;
  std::unique_ptr<GoalMemory> memory_;
};

TEST_F(FocusService, WritesWorkflowJsonKeepsOtherKeysAndRefusesLeaveItByteIdentical) {
  FocusAreas svc = Service();
  ASSERT_TRUE(svc.Apply(Propose("Weekly growth experiment", "2026-11-01")).ok());
  std::string text = testing::ReadFileOrDie(w_->paths.workflow_json);
  EXPECT_NE(text.find("\"x_platform\": {\"keep\": [1,2,3]}"), std::string::npos) << "untouched keys keep their bytes:\n" << text;
  json doc = json::parse(text);
  EXPECT_EQ(doc["pulse"]["focus_area_details"][0]["status"], "proposed");
  EXPECT_EQ(doc["pulse"]["focus_areas"], json::array());

  for (const FocusChange& bad : {Propose("x", "2026-01-01"), On(FocusAction::kConfirm, "fa-7"),
                                 On(FocusAction::kExtend, "fa-1")}) {
    EXPECT_FALSE(svc.Apply(bad).ok());
    EXPECT_EQ(testing::ReadFileOrDie(w_->paths.workflow_json), text);
  }
  ASSERT_TRUE(svc.Apply(On(FocusAction::kConfirm, "fa-1")).ok());
  EXPECT_EQ(json::parse(testing::ReadFileOrDie(w_->paths.workflow_json))["pulse"]["focus_areas"],
            json::array({"Weekly growth experiment"}));
  // The browser's copy: the snapshot in the database says the same.
  FocusAreas browser(*w_->db, env_, "wf", "", nullptr);
  Result<std::vector<FocusArea>> seen = browser.List();
  ASSERT_TRUE(seen.ok());
  ASSERT_EQ(seen->size(), 1u);
  EXPECT_EQ((*seen)[0].status, FocusStatus::kActive);
  EXPECT_EQ(browser.Apply(On(FocusAction::kDrop, "fa-1")).status().code(), Code::kRefused);
}

TEST_F(FocusService, CloseWritesTheLessonToGoalMemory) {
  FocusAreas svc = Service();
  FocusChange add = Propose("Fix the funnel", "2026-10-30");
  add.action = FocusAction::kAdd;
  ASSERT_TRUE(svc.Apply(add).ok());
  FocusChange close = On(FocusAction::kClose, "fa-1");
  close.lesson = "the funnel broke at the signup form";
  Result<FocusOutcome> out = svc.Apply(close);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->lesson_in_memory) << out->memory_error;
  std::string memory = testing::ReadFileOrDie(w_->paths.goal_memory);
  EXPECT_NE(memory.find("Focus area \"Fix the funnel\" (fa-1) closed: the funnel broke at the signup form"),
            std::string::npos) << memory;
}

TEST_F(FocusService, InvalidWorkflowJsonIsRefusedUntouched) {
  testing::WriteFile(w_->paths.workflow_json, "{\"pulse\": {\"enabled\": tru");
  std::string before = testing::ReadFileOrDie(w_->paths.workflow_json);
  Result<FocusOutcome> out = Service().Apply(Propose("x"));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("the file is left as it is"), std::string::npos) << out.status().message();
  EXPECT_EQ(testing::ReadFileOrDie(w_->paths.workflow_json), before);
}

TEST_F(FocusService, ExpireByTheTick) {
  FocusAreas svc = Service();
  ASSERT_TRUE(svc.Apply(Propose("short", "2026-10-08")).ok());
  env_.Set(T("2026-10-09T06:00:00Z"));
  Result<std::vector<std::string>> ids = svc.Expire();
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, std::vector<std::string>{"fa-1"});
  std::string text = testing::ReadFileOrDie(w_->paths.workflow_json);
  ids = svc.Expire();
  EXPECT_TRUE(ids->empty());
  EXPECT_EQ(testing::ReadFileOrDie(w_->paths.workflow_json), text) << "nothing to expire writes nothing";
}

TEST(FocusAreas, NewIdsSkipMalformedAndOversizedStoredIds) {
  std::vector<FocusArea> areas(4);
  areas[0].id = "fa-x";
  areas[1].id = "fa-99999999999999999999";
  areas[2].id = "fa-3";
  areas[3].id = "fa-9223372036854775807";
  for (FocusArea& a : areas) {
    a.title = a.id;
    a.status = FocusStatus::kDone;
  }
  Result<std::string> id = ApplyFocusChange(areas, Propose("Another", "2026-11-01"), kNow);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(*id, "fa-4");
}

}  // namespace
}  // namespace pulse
