// Pulse's own spend: a model turn's tokens priced from the workspace's
// .pulse/prices.json ({"NAME": {"input_per_mtok": USD, "output_per_mtok": USD}})
// and written to the workflow's cost ledger, costs/costs.sqlite, as one
// cost_events row with source 'pulse' and no run_id (a turn is not a
// workflow run), so the goal check's spend facts count it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "agent/model/model_spec.h"
#include "core/base/env.h"
#include "core/base/status.h"

namespace pulse {

struct ModelPrice {
  double input_per_mtok = 0;   // USD per million input tokens
  double output_per_mtok = 0;  // USD per million output tokens
};

// <workspace>/.pulse/prices.json: an empty map when the file is missing;
// InvalidArgument naming the file and the key for anything malformed
// (not an object, a price that is not a finite number of zero or more).
Result<std::map<std::string, ModelPrice>> ReadModelPrices(Env& env, const std::string& workspace);

// The price of `spec`: under "provider:name" first, then "name".
std::optional<ModelPrice> PriceFor(const std::map<std::string, ModelPrice>& prices, const ModelSpec& spec);

double CostUsd(const ModelPrice& price, int64_t tokens_in, int64_t tokens_out);

// Appends cost_events(at, run_id NULL, source 'pulse', usd) to
// <workflow_dir>/costs/costs.sqlite, creating the file and the table when
// missing (an existing ledger keeps its journal mode).
Status RecordPulseCost(Env& env, const std::string& workflow_dir, int64_t at, double usd);

}  // namespace pulse
