// Pulse's own spend (agent/model/model_costs.h): prices from
// .pulse/prices.json, and a turn's cost as a cost_events row with source
// 'pulse' in the workflow's ledger, which the goal check's spend reads.
#include "agent/model/model_costs.h"

#include <gtest/gtest.h>

#include "core/api/api.h"
#include "core/store/db.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

ModelSpec Spec(const std::string& name) {
  ModelSpec s;
  s.name = name;
  return s;
}

TEST(ModelCosts, PricesAreReadByFullIdThenName) {
  testing::TempDir dir;
  FixedClockEnv env(DefaultEnv(), 0);
  auto none = ReadModelPrices(env, dir.path());
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty()) << "no file: no prices";
  testing::WriteFile(dir.Join(".pulse/prices.json"), R"({"gpt-4o": {"input_per_mtok": 2.5, "output_per_mtok": 10},
    "openai:gpt-4o-mini": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}})");
  auto prices = ReadModelPrices(env, dir.path());
  ASSERT_TRUE(prices.ok()) << prices.status().message();
  std::optional<ModelPrice> p = PriceFor(*prices, Spec("gpt-4o"));
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(CostUsd(*p, 1000000, 100000), 3.5);
  EXPECT_TRUE(PriceFor(*prices, Spec("gpt-4o-mini")));
  EXPECT_FALSE(PriceFor(*prices, Spec("llama3")));
}

TEST(ModelCosts, AMalformedPricesFileIsOneLineNamingIt) {
  testing::TempDir dir;
  FixedClockEnv env(DefaultEnv(), 0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1]", ".pulse/prices.json: must be an object"},
      {"{\"m\": 3}", ".pulse/prices.json: \"m\" must be an object"},
      {"{\"m\": {\"input_per_mtok\": 1}}", ".pulse/prices.json: \"m\".output_per_mtok is missing"},
      {"{\"m\": {\"input_per_mtok\": -1, \"output_per_mtok\": 1}}", ".pulse/prices.json: \"m\".input_per_mtok must be a number"},
      {"{\"m\": {\"input_per_mtok\": \"2\", \"output_per_mtok\": 1}}", ".pulse/prices.json: \"m\".input_per_mtok must be a number"},
      {"{", ".pulse/prices.json: malformed JSON"},
  };
  for (const auto& [text, says] : cases) {
    testing::WriteFile(dir.Join(".pulse/prices.json"), text);
    auto p = ReadModelPrices(env, dir.path());
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.status().message().find(says), 0u) << p.status().message();
  }
}

TEST(ModelCosts, ATurnsCostLandsInTheLedgerAndTheSpendFacts) {
  Workflow wf;
  // The platform's own ledger, with a run's cost in it.
  {
    ASSERT_TRUE(wf.env.CreateDirs(wf.ctx.workflow_dir + "/costs").ok());
    auto ledger = Db::Open(wf.ctx.workflow_dir + "/costs/costs.sqlite");
    ASSERT_TRUE(ledger.ok()) << ledger.status().message();
    ASSERT_TRUE((*ledger)->Exec("CREATE TABLE cost_events(at TEXT, run_id TEXT NULL, source TEXT, usd REAL);"
                                "INSERT INTO cost_events VALUES('2026-10-06T09:00:00Z', 'r-1', 'run', 2.0)").ok());
  }
  ASSERT_TRUE(RecordPulseCost(wf.env, wf.ctx.workflow_dir, wf.env.NowSeconds(), 0.25).ok());
  auto ledger = Db::Open(wf.ctx.workflow_dir + "/costs/costs.sqlite");
  ASSERT_TRUE(ledger.ok());
  auto q = (*ledger)->Prepare("SELECT at, run_id IS NULL, source, usd FROM cost_events WHERE source = 'pulse'");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->Step());
  EXPECT_EQ(q->Text(0), "2026-10-07T12:00:00Z");
  EXPECT_EQ(q->Int64(1), 1);
  EXPECT_EQ(q->Text(2), "pulse");
  EXPECT_DOUBLE_EQ(q->Double(3), 0.25);
  // The goal check's spend facts count it this week (run 2.0 + Pulse 0.25).
  json facts = wf.Call("goal.facts", json::object());
  EXPECT_DOUBLE_EQ(facts["spend"]["last_7_days_usd"].get<double>(), 2.25) << facts["spend"].dump();
}

TEST(ModelCosts, ALedgerIsMadeWhenTheWorkflowHasNone) {
  Workflow wf;
  ASSERT_TRUE(RecordPulseCost(wf.env, wf.ctx.workflow_dir, wf.env.NowSeconds(), 0.5).ok());
  auto ledger = Db::Open(wf.ctx.workflow_dir + "/costs/costs.sqlite");
  ASSERT_TRUE(ledger.ok());
  EXPECT_EQ(*(*ledger)->QueryInt64("SELECT count(*) FROM cost_events WHERE source = 'pulse'"), 1);
  EXPECT_FALSE(RecordPulseCost(wf.env, wf.ctx.workflow_dir, 0, -1).ok());
}

}  // namespace
}  // namespace pulse
