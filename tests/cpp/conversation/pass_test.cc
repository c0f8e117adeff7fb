// The full pass's schedule and record (core/conversation/pass.cc) in a real database
// file: when a pass is due (a waiting fast request, or pulse.full_pass.cron
// fired since the last full pass), the fast requests a starting pass takes,
// and a finished pass read back.
#include "core/conversation/pass.h"

#include <gtest/gtest.h>

#include "core/conversation/pulse_requests.h"
#include "core/store/schema.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;

class PassSchedule : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = testing::OpenWithSchema(dir_.Join("db.sqlite"));
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(*db);
    ASSERT_TRUE(EnsureSchema(*db_).ok());
    config_.raw = json{{"pulse", {{"full_pass", {{"cron", "0 6 * * *"}}}}}};
  }
  int64_t Fast(const std::string& why) {
    NewRequest r;
    r.kind = RequestKind::kFast;
    r.what = why;
    Result<RecordedRequest> made = RecordRequest(*db_, env_, r);
    EXPECT_TRUE(made.ok()) << made.status().message();
    return made.ok() ? made->request.id : 0;
  }
  PassDue Due() {
    Result<PassDue> due = PassDueAt(*db_, config_, env_.NowSeconds());
    EXPECT_TRUE(due.ok()) << due.status().message();
    return due.ok() ? *due : PassDue{};
  }
  testing::TempDir dir_;
  FixedClockEnv env_{DefaultEnv(), T("2026-10-07T06:30:00Z")};
  WorkflowConfig config_;
  std::unique_ptr<Db> db_;
};

TEST_F(PassSchedule, TheCronFiresOncePerFullPassAndAFastPassDoesNotCount) {
  PassDue due = Due();
  EXPECT_TRUE(due.due);
  EXPECT_EQ(due.kind, "full");
  EXPECT_EQ(due.reason, "pulse.full_pass \"0 6 * * *\" fired at 2026-10-07T06:00:00Z");
  EXPECT_EQ(due.ToJson(), (json{{"due", true}, {"kind", "full"}, {"reason", due.reason}}));

  ASSERT_TRUE(StartPass(*db_, env_, "fast", "asked").ok());
  EXPECT_TRUE(Due().due) << "a fast pass is not the full pass the cron asked for";
  ASSERT_TRUE(StartPass(*db_, env_, "full", "cron").ok());
  EXPECT_FALSE(Due().due);
  env_.Set(T("2026-10-08T05:59:59Z"));
  EXPECT_FALSE(Due().due);
  env_.Set(T("2026-10-08T06:00:00Z"));
  EXPECT_TRUE(Due().due);
}

TEST_F(PassSchedule, AWaitingFastRequestMakesAPassDueAtOnceAndTheStartingPassTakesIt) {
  config_.raw = json::object();  // no pulse.full_pass: only fast requests make passes
  EXPECT_FALSE(Due().due);
  int64_t id = Fast("the owner resumed the schedules");
  PassDue due = Due();
  EXPECT_TRUE(due.due);
  EXPECT_EQ(due.kind, "fast");
  EXPECT_EQ(due.reason, "fast request " + std::to_string(id) + ": the owner resumed the schedules");

  Result<PassRecord> pass = StartPass(*db_, env_, "fast", "fast request");
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_EQ(pass->fast_requests, std::vector<int64_t>{id});
  EXPECT_EQ(pass->state, "running");
  EXPECT_EQ(pass->started_at, "2026-10-07T06:30:00Z");
  EXPECT_FALSE(Due().due);
  Result<PassRecord> next = StartPass(*db_, env_, "full", "cron");
  ASSERT_TRUE(next.ok());
  EXPECT_TRUE(next->fast_requests.empty());
}

TEST_F(PassSchedule, PulseOffHasNoPassEvenWithAFastRequestWaiting) {
  Fast("the owner asked");
  config_.pulse_enabled = false;
  PassDue due = Due();
  EXPECT_FALSE(due.due);
  EXPECT_EQ(due.kind, "");
}

TEST_F(PassSchedule, AMalformedCronOrKindIsRefusedNamingIt) {
  config_.raw = json{{"pulse", {{"full_pass", {{"cron", 6}}}}}};
  Result<PassDue> not_text = PassDueAt(*db_, config_, env_.NowSeconds());
  ASSERT_FALSE(not_text.ok());
  EXPECT_EQ(not_text.status().message(), "workflow.json: pulse.full_pass.cron must be a string");
  config_.raw = json{{"pulse", {{"full_pass", "daily"}}}};
  EXPECT_FALSE(PassDueAt(*db_, config_, env_.NowSeconds()).ok());
  config_.raw = json{{"pulse", {{"full_pass", {{"cron", "61 6 * * *"}}}}}};
  Result<PassDue> bad = PassDueAt(*db_, config_, env_.NowSeconds());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("workflow.json: pulse.full_pass.cron"), std::string::npos)
      << bad.status().message();

  Result<PassRecord> weekly = StartPass(*db_, env_, "weekly", "cron");
  ASSERT_FALSE(weekly.ok());
  EXPECT_EQ(weekly.status().message(), "kind: \"weekly\" is not full or fast");
  Result<std::vector<PassRecord>> none = ListPasses(*db_, 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(PassSchedule, AFinishedPassIsReadBackNewestFirstWithItsSteps) {
  Result<PassRecord> first = StartPass(*db_, env_, "full", "cron");
  ASSERT_TRUE(first.ok());
  PassRecord p = *first;
  p.state = "completed";
  p.goal_status = "on_track";
  p.summary = "subscribers up \xFF";  // a stray byte is repaired, not stored raw
  p.steps = {{"gate", "completed", "goal workflow", 0}, {"goal_work", "completed", "", 42},
             {"finalize", "completed", "summary written", 0}};
  ASSERT_TRUE(FinishPass(*db_, p, T("2026-10-07T06:45:00Z")).ok());
  env_.Advance(60);
  ASSERT_TRUE(StartPass(*db_, env_, "fast", "asked").ok());

  Result<std::vector<PassRecord>> list = ListPasses(*db_, 10);
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].kind, "fast");
  EXPECT_EQ((*list)[0].state, "running");
  EXPECT_TRUE((*list)[0].steps.empty());
  const PassRecord& done = (*list)[1];
  EXPECT_EQ(done.id, p.id);
  EXPECT_EQ(done.finished_at, "2026-10-07T06:45:00Z");
  EXPECT_EQ(done.summary, "subscribers up \xEF\xBF\xBD");
  EXPECT_EQ(done.goal_status, "on_track");
  ASSERT_EQ(done.steps.size(), 3u);
  EXPECT_EQ(done.steps[1].turn_id, 42);
  json j = done.ToJson();
  EXPECT_EQ(j["steps"][1]["turn_id"], 42);
  EXPECT_FALSE(j["steps"][0].contains("turn_id"));
  EXPECT_EQ(ListPasses(*db_, 1)->size(), 1u);
  EXPECT_EQ(PassOrder(), (std::vector<std::string>{"gate", "goal_work", "finalize"}));
}

}  // namespace
}  // namespace pulse
