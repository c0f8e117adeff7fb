// The conversation's methods of the API table: the command line
// (`pulse conversation show`), GET /api/workflows/<wf>/conversation and the
// browser's WASM facade all read Pulse's conversation through these, so each
// shows exactly what the others do.
#include <climits>
#include <cstdint>
#include <optional>

#include "core/api/api.h"
#include "core/conversation/conversation.h"

namespace pulse {

using nlohmann::json;

namespace {

Result<json> Show(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  int generation = 0;
  PULSE_RETURN_IF_ERROR(a.OptInt("generation", 0, 1000000, &generation));
  int limit = kViewTurns;
  PULSE_RETURN_IF_ERROR(a.OptInt("limit", 1, 1000, &limit));
  std::optional<int64_t> before;
  PULSE_RETURN_IF_ERROR(a.OptInt("before", int64_t{1}, INT64_MAX, &before));
  Conversation conversation(*ctx.db, ctx.workflow);
  PULSE_ASSIGN_OR_RETURN(ConversationView view, conversation.View(generation, limit, before.value_or(0)));
  json out = view.ToJson();
  out["has_goal"] = ctx.config.HasGoal();
  return out;
}

Result<json> Stop(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  Conversation conversation(*ctx.db, ctx.workflow);
  PULSE_ASSIGN_OR_RETURN(bool stopped_running, conversation.Stop(ctx.env->NowSeconds()));
  return json{{"stopped", true}, {"stopped_running_turn", stopped_running}};
}

}  // namespace

void AddConversationApi(ApiRegistry& r) {
  r.Add("conversation.show", Show, Access::kRead,
        "Pulse's conversation: generations, and the newest turns of one (the current one unless \"generation\"; "
        "\"limit\" of them, default 200, before turn \"before\")");
  r.Add("conversation.stop", Stop, Access::kOwner,
        "the owner's Stop: the running turn is marked stopped; the next turn clears it");
}

}  // namespace pulse
