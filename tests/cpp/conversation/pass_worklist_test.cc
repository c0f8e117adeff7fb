// A pass's worklist in a real database file: the orders with and without a
// goal, Gate's rows (Architecture and Technical not due for a goal
// workflow), a row a rule still makes due closed as skipped with its rule
// cleared, and recovery after a failed module.
#include "core/conversation/pass_worklist.h"

#include <gtest/gtest.h>

#include "core/conversation/pass.h"
#include "core/store/schema.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

class Worklist : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Db::Open(dir_.Join("db.sqlite"));
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(*db);
    ASSERT_TRUE(EnsureSchema(*db_).ok());
  }
  testing::TempDir dir_;
  int64_t now_ = testing::T("2026-10-07T06:00:00Z");
  std::unique_ptr<Db> db_;
};

TEST_F(Worklist, OrdersWithAndWithoutAGoal) {
  EXPECT_EQ(PassOrderFor(true), (std::vector<std::string>{"gate", "goal_work", "finalize"}));
  EXPECT_EQ(PassOrderFor(false),
            (std::vector<std::string>{"gate", "goal_work", "architecture", "technical", "finalize"}));
  EXPECT_EQ(ExecutionOrder(), (std::vector<std::string>{"goal_work", "architecture", "technical"}));
}

TEST_F(Worklist, GoalWorkflowRecordsArchitectureAndTechnicalNotDue) {
  Result<std::vector<WorklistRow>> rows = WriteGateWorklist(*db_, 1, true, now_);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_TRUE((*rows)[0].due);
  EXPECT_EQ((*rows)[0].module, "goal_work");
  EXPECT_FALSE((*rows)[1].due);
  EXPECT_EQ((*rows)[1].state, "not_due");
  EXPECT_NE((*rows)[1].reason.find("owns architecture"), std::string::npos);
  EXPECT_FALSE((*rows)[2].due);
  EXPECT_NE((*rows)[2].reason.find("record_pulse_qa_request"), std::string::npos);
  // Nothing was due by another rule: nothing to close.
  Result<std::vector<WorklistRow>> closed = CloseOwnedModules(*db_, 1, now_);
  ASSERT_TRUE(closed.ok());
  EXPECT_TRUE(closed->empty());
  Result<std::vector<WorklistRow>> read = ReadWorklist(*db_, 0);
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[2].state, "not_due");
}

TEST_F(Worklist, ARuleMakingTechnicalDueIsClosedAsSkippedAndCleared) {
  ASSERT_TRUE(MarkModuleDue(*db_, {"technical", "recovery", "pass 1: runner exited with status 1", ""}, now_).ok());
  ASSERT_TRUE(MarkModuleDue(*db_, {"technical", "prompt_budget", "the prompt grew past its budget", ""}, now_).ok());
  Result<std::vector<WorklistRow>> rows = WriteGateWorklist(*db_, 2, true, now_);
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE((*rows)[2].due);
  EXPECT_EQ((*rows)[2].state, "pending");
  EXPECT_NE((*rows)[2].reason.find("due by "), std::string::npos);
  Result<std::vector<WorklistRow>> closed = CloseOwnedModules(*db_, 2, now_);
  ASSERT_TRUE(closed.ok());
  ASSERT_EQ(closed->size(), 1u);
  EXPECT_EQ((*closed)[0].module, "technical");
  EXPECT_EQ((*closed)[0].state, "skipped");
  EXPECT_NE((*closed)[0].detail.find("skipped by code after Gate"), std::string::npos);
  Result<std::vector<ModuleDue>> left = ListModuleDue(*db_);
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty()) << "the rules that made it due are cleared";
  // The next pass records it not due again.
  Result<std::vector<WorklistRow>> next = WriteGateWorklist(*db_, 3, true, now_);
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE((*next)[2].due);
}

TEST_F(Worklist, WithoutAGoalAFailedModuleIsDueByRecoveryUntilItCompletes) {
  Result<std::vector<WorklistRow>> rows = WriteGateWorklist(*db_, 1, false, now_);
  ASSERT_TRUE(rows.ok());
  for (const WorklistRow& r : *rows) EXPECT_TRUE(r.due) << r.module;
  ASSERT_TRUE(FinishModule(*db_, 1, "technical", false, "runner exited with status 1", now_).ok());
  Result<std::vector<ModuleDue>> due = ListModuleDue(*db_);
  ASSERT_TRUE(due.ok());
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ((*due)[0].rule, "recovery");
  EXPECT_EQ((*due)[0].module, "technical");
  ASSERT_TRUE(FinishModule(*db_, 1, "technical", true, "fixed", now_).ok());
  due = ListModuleDue(*db_);
  ASSERT_TRUE(due.ok());
  EXPECT_TRUE(due->empty());
}

TEST_F(Worklist, AWorkflowWithoutAGoalHasItsPassTooButNotWithPulseOff) {
  WorkflowConfig config;
  config.raw = nlohmann::json::parse(R"({"pulse": {"full_pass": {"cron": "0 6 * * *"}}})");
  Result<PassDue> due = PassDueAt(*db_, config, now_);
  ASSERT_TRUE(due.ok()) << due.status().message();
  EXPECT_TRUE(due->due);
  config.pulse_enabled = false;
  due = PassDueAt(*db_, config, now_);
  ASSERT_TRUE(due.ok());
  EXPECT_FALSE(due->due);
}

TEST_F(Worklist, RefusesUnknownModulesAndRules) {
  EXPECT_EQ(MarkModuleDue(*db_, {"strategy", "recovery", "x", ""}, now_).code(), Code::kInvalidArgument);
  EXPECT_EQ(MarkModuleDue(*db_, {"technical", "whim", "x", ""}, now_).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace pulse
