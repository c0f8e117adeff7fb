// The asks' method of the API table: the command line, GET /asks and the
// browser's WASM facade read ask_pulse and ask_builder calls through it.
#include "core/api/api.h"
#include "core/asks/asks.h"

namespace pulse {

using nlohmann::json;

namespace {

Result<json> List(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  std::string direction;
  int limit = 100;
  PULSE_RETURN_IF_ERROR(a.OptString("direction", &direction));
  PULSE_RETURN_IF_ERROR(a.OptInt("limit", 1, 1000, &limit));
  std::optional<AskDirection> only;
  if (direction == "ask_pulse") only = AskDirection::kToPulse;
  else if (direction == "ask_builder") only = AskDirection::kToBuilder;
  else if (!direction.empty()) return a.Error("direction", "must be ask_pulse or ask_builder, not \"" + direction + "\"");
  Asks asks(*ctx.db, ctx.workflow);
  PULSE_ASSIGN_OR_RETURN(std::vector<AskRecord> list, asks.List(only, limit));
  json out = json::array();
  for (const AskRecord& r : list) out.push_back(r.ToJson());
  return json{{"asks", out}};
}

}  // namespace

void AddAsksApi(ApiRegistry& r) {
  r.Add("ask.list", List, Access::kRead,
        "ask_pulse and ask_builder calls, newest first {direction?: ask_pulse|ask_builder, limit?}");
}

}  // namespace pulse
