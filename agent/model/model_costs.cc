#include "agent/model/model_costs.h"

#include <cmath>

#include "core/base/json_limits.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"
#include "core/store/db.h"

namespace pulse {

using nlohmann::json;

namespace {

constexpr const char* kPricesFile = ".pulse/prices.json";
constexpr size_t kMaxPricesBytes = 1 << 20;

Status PriceField(const json& entry, const std::string& name, const char* key, double* out) {
  const std::string where = std::string(kPricesFile) + ": \"" + std::string(Utf8Prefix(name, 80)) + "\"." + key;
  if (!entry.contains(key)) return Status::InvalidArgument(where + " is missing");
  const json& v = entry[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    return Status::InvalidArgument(where + " must be a number of US dollars, zero or more");
  }
  *out = v.get<double>();
  return Status::OK();
}

}  // namespace

Result<std::map<std::string, ModelPrice>> ReadModelPrices(Env& env, const std::string& workspace) {
  std::map<std::string, ModelPrice> prices;
  const std::string path = workspace + "/" + kPricesFile;
  if (!env.FileExists(path)) return prices;
  Result<std::string> text = env.ReadFile(path);
  if (!text.ok()) return text.status().WithContext(kPricesFile);
  if (text->size() > kMaxPricesBytes) return Status::InvalidArgument(std::string(kPricesFile) + ": larger than 1 MiB");
  PULSE_RETURN_IF_ERROR(RequireUtf8(*text, kPricesFile));
  PULSE_ASSIGN_OR_RETURN(json doc, ParseJsonBounded(*text, kPricesFile));
  if (!doc.is_object()) {
    return Status::InvalidArgument(std::string(kPricesFile) +
                                   ": must be an object {\"MODEL\": {\"input_per_mtok\": USD, \"output_per_mtok\": USD}}");
  }
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!it->is_object()) {
      return Status::InvalidArgument(std::string(kPricesFile) + ": \"" + std::string(Utf8Prefix(it.key(), 80)) +
                                     "\" must be an object with input_per_mtok and output_per_mtok");
    }
    ModelPrice p;
    PULSE_RETURN_IF_ERROR(PriceField(*it, it.key(), "input_per_mtok", &p.input_per_mtok));
    PULSE_RETURN_IF_ERROR(PriceField(*it, it.key(), "output_per_mtok", &p.output_per_mtok));
    prices[it.key()] = p;
  }
  return prices;
}

std::optional<ModelPrice> PriceFor(const std::map<std::string, ModelPrice>& prices, const ModelSpec& spec) {
  auto it = prices.find(spec.Id());
  if (it == prices.end()) it = prices.find(spec.name);
  if (it == prices.end()) return std::nullopt;
  return it->second;
}

double CostUsd(const ModelPrice& price, int64_t tokens_in, int64_t tokens_out) {
  return static_cast<double>(tokens_in) / 1e6 * price.input_per_mtok +
         static_cast<double>(tokens_out) / 1e6 * price.output_per_mtok;
}

Status RecordPulseCost(Env& env, const std::string& workflow_dir, int64_t at, double usd) {
  if (!std::isfinite(usd) || usd < 0) return Status::InvalidArgument("a turn's cost must be a finite amount of zero or more");
  const std::string dir = workflow_dir + "/costs";
  PULSE_RETURN_IF_ERROR(env.CreateDirs(dir));
  OpenOptions o;
  o.wal = false;  // the ledger is the platform's: its journal mode stays its own
  PULSE_ASSIGN_OR_RETURN(std::unique_ptr<Db> db, Db::Open(dir + "/costs.sqlite", o));
  PULSE_RETURN_IF_ERROR(db->Exec("CREATE TABLE IF NOT EXISTS cost_events(at TEXT, run_id TEXT NULL, source TEXT, usd REAL)"));
  PULSE_ASSIGN_OR_RETURN(Statement put, db->Prepare("INSERT INTO cost_events(at, run_id, source, usd) VALUES(?, NULL, 'pulse', ?)"));
  put.Bind(1, FormatTime(at)).Bind(2, usd);
  return put.Run().WithContext("costs/costs.sqlite");
}

}  // namespace pulse
