// The receipts of the turns around a run (agent/tools/review_tools.cc) on a real
// workflow folder and database: record_workflow_review and
// record_housekeeping, each taken only from a session of its own turn kind,
// their arguments checked and named, and what they record read back.
#include "agent/tools/pulse_tools.h"

#include "agent/turns/review_turns.h"
#include "core/workflow/after_run.h"
#include "core/review/workflow_review.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

class ReviewTools : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::WriteFile(wf_.w.paths.dir + "/planning/plan.json",
                       R"({"steps": [{"id": "a"}, {"id": "b", "depends_on": ["a"]}]})");
  }
  std::string Open(const std::string& kind) { return wf_.Session(kind)["session"].get<std::string>(); }
  std::string Review() {
    std::string s = Open("workflow_review");
    EXPECT_TRUE(ClaimReviewTurn(wf_.ctx, s, "pr-1", json{{"trigger", "cli"}}).ok());
    return s;
  }
  Result<json> Tool(const std::string& session, const std::string& name, const json& args) {
    return ExecuteReviewTool(wf_.ctx, session, name, Args(name, args));
  }
  int64_t RunningHousekeeping(const std::vector<std::string>& actions) {
    HousekeepingRequest r;
    r.run_id = "r-1";
    r.actions = actions;
    r.source_hash = "hash-1";
    Result<int64_t> id = RequestHousekeeping(*wf_.ctx.db, r, wf_.env.NowSeconds());
    EXPECT_TRUE(id.ok()) << id.status().message();
    EXPECT_TRUE(SetHousekeepingState(*wf_.ctx.db, *id, "running", wf_.env.NowSeconds()).ok());
    return *id;
  }
  Workflow wf_;
};

TEST_F(ReviewTools, AReviewIsTakenOnlyFromAWorkflowReviewSession) {
  std::string check = Open("goal_check");
  Result<json> r = Tool(check, "record_workflow_review", {{"result", "clean"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kRefused);
  EXPECT_EQ(r.status().message(),
            "record_workflow_review: only a workflow_review turn records this; session " + check + " is not one");
  EXPECT_EQ(Tool("no-such-session", "record_workflow_review", {{"result", "clean"}}).status().code(), Code::kRefused);
  std::string review = Review();
  wf_.ctx.workflow_dir.clear();
  Result<json> no_dir = Tool(review, "record_workflow_review", {{"result", "clean"}});
  ASSERT_FALSE(no_dir.ok());
  EXPECT_EQ(no_dir.status().message(), "record_workflow_review: needs the workflow folder");
}

TEST_F(ReviewTools, TheBrokenListAndSummaryAreCheckedBeforeAnythingIsRecorded) {
  std::string s = Review();
  auto message = [&](const json& args) {
    Result<json> r = Tool(s, "record_workflow_review", args);
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(message({{"summary", "x"}}), "record_workflow_review: \"result\" is required");
  EXPECT_EQ(message({{"result", "broken"}, {"broken", "b"}}),
            "record_workflow_review: \"broken\" must be a list of {step, reason}");
  EXPECT_EQ(message({{"result", "broken"}, {"broken", {"b"}}}),
            "record_workflow_review: \"broken\" has an entry that is not {step, reason}");

  Result<json> broken = Tool(s, "record_workflow_review",
                             {{"result", "broken"}, {"broken", {{{"step", "b"}, {"reason", "input missing"}}}},
                              {"summary", "b lost its input"}});
  ASSERT_TRUE(broken.ok()) << broken.status().message();
  EXPECT_EQ((*broken)["recorded"], true);
  EXPECT_EQ((*broken)["review"]["outcome"], "broken");
  Result<ReviewRecord> stored = FindReviewBySession(wf_.env, wf_.w.paths.dir, s);
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  EXPECT_EQ(stored->outcome, "broken");
  ASSERT_EQ(stored->broken.size(), 1u);
  EXPECT_EQ(stored->broken[0].step, "b");
  EXPECT_EQ(stored->summary, "b lost its input");
}

TEST_F(ReviewTools, HousekeepingIsRecordedForTheRunningRequestsActionsOnly) {
  std::string review = Review();
  EXPECT_EQ(Tool(review, "record_housekeeping", {{"action", "backup"}}).status().code(), Code::kRefused);
  std::string s = Open("housekeeping");
  Result<json> none = Tool(s, "record_housekeeping", {{"action", "backup"}, {"done", true}});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "record_housekeeping: no housekeeping request is running");

  RunningHousekeeping({"backup"});
  Result<json> other = Tool(s, "record_housekeeping", {{"action", "publish"}, {"done", true}});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message(),
            "record_housekeeping: \"action\" \"publish\" was not asked for this run (asked: [\"backup\"])");
  Result<json> not_done = Tool(s, "record_housekeeping", {{"action", "backup"}, {"done", false}, {"note", "no disk"}});
  ASSERT_TRUE(not_done.ok()) << not_done.status().message();
  EXPECT_EQ(*LastHousekeepingHash(*wf_.ctx.db, "backup"), "") << "not done records no backup";
  Result<json> done = Tool(s, "record_housekeeping", {{"action", "backup"}, {"done", true}});
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_EQ(*done, (json{{"recorded", true}, {"action", "backup"}, {"done", true}, {"run_id", "r-1"},
                         {"source_hash", "hash-1"}}));
  EXPECT_EQ(*LastHousekeepingHash(*wf_.ctx.db, "backup"), "hash-1");
  Result<json> bad = Tool(s, "record_housekeeping", {{"action", "backup"}, {"done", "yes"}});
  EXPECT_FALSE(bad.ok());
}

TEST_F(ReviewTools, AnotherNameIsNotFound) {
  Result<json> r = Tool(Open("housekeeping"), "record_pulse_goal_check", json::object());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kNotFound);
  EXPECT_EQ(r.status().message(), "\"record_pulse_goal_check\" is not a review or housekeeping tool");
}


// However many breaks a review finds, it records them (issue #32): the first
// kMaxListedBreaks, each cut to its bound, and one whole-plan entry counting
// them all, which stops every run. A receipt the tool cannot take is noted,
// and a review that ends without one is "unrecorded": runs stop with why.
TEST_F(ReviewTools, AnyNumberOfBreaksIsRecordedAsASummary) {
  std::string s = Review();
  json list = json::array();
  for (int i = 0; i < 1000; ++i) list.push_back({{"step", "dup"}, {"reason", std::string(3000, 'r')}});
  list.push_back({{"step", std::string(500, 's')}, {"reason", "long id"}});
  Result<json> r = Tool(s, "record_workflow_review",
                        {{"result", "broken"}, {"broken", list}, {"summary", std::string(5000, 'x')}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  Result<ReviewRecord> stored = FindReviewBySession(wf_.env, wf_.w.paths.dir, s);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->outcome, "broken");
  ASSERT_EQ(stored->broken.size(), kMaxListedBreaks + 1);
  EXPECT_LE(stored->broken[0].reason.size(), kMaxBreakReasonBytes);
  EXPECT_EQ(stored->broken.back().step, "plan.json");
  EXPECT_NE(stored->broken.back().reason.find("1001 breaks in 2 steps; the first 50 are listed"), std::string::npos)
      << stored->broken.back().reason;
  EXPECT_LE(stored->summary.size(), 4000u);
}

TEST_F(ReviewTools, AReviewWhoseReceiptWasRefusedStopsTheRunWithTheReason) {
  std::string s = Review();
  Result<json> bad = Tool(s, "record_workflow_review", {{"result", "broken"}, {"broken", {{{"step", "x"}}}}});
  ASSERT_FALSE(bad.ok());
  ASSERT_TRUE(FinishUnreceipted(wf_.env, wf_.w.paths.dir, s, "the review ended without record_workflow_review",
                                wf_.env.NowSeconds()).ok());
  Result<ReviewRecord> stored = FindReviewBySession(wf_.env, wf_.w.paths.dir, s);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->outcome, "unrecorded");
  EXPECT_NE(stored->summary.find("every entry needs a step and a reason"), std::string::npos) << stored->summary;
}
}  // namespace
}  // namespace pulse
