// A turn thought through by a model on the turn's own thread: the key read
// from the server's environment here (and nowhere else), the loop of
// agent/model/model_turn.h run with the turn's session and the --platform
// forwarder, its tokens added to the thread's count for the agent-log row.
#include <spdlog/spdlog.h>

#include <cstdlib>

#include "agent/model/model_turn.h"
#include "server-shim/serve.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

thread_local TurnTokens t_tokens;

}  // namespace

void AddTurnTokens(int64_t in, int64_t out) {
  t_tokens.in += in;
  t_tokens.out += out;
}

TurnTokens TakeTurnTokens() {
  TurnTokens t = t_tokens;
  t_tokens = TurnTokens{};
  return t;
}

json ThinksWithJson(const ServeOptions& options) {
  json out;
  Result<std::optional<ModelSpec>> spec = ModelForWorkflow(options.model, json::object());
  if (const ProgramPreset* preset = FindProgramPreset(options.runner)) {
    out = {{"thinks_with", "program"}, {"program", ProgramStatusJson(options, *preset, "--runner")}};
  } else if (!options.runner.empty()) {
    out = {{"thinks_with", "runner"}};
  } else if (!spec.ok() || !*spec) {
    out = {{"thinks_with", "rules"},
           {"note", "the built-in rules runner (no model); --model or a workflow's pulse.model names one"}};
  } else {
    const bool key_set = !(*spec)->key_env.empty() && std::getenv((*spec)->key_env.c_str()) != nullptr;
    out = {{"thinks_with", "model"}, {"model", (*spec)->ToJson(key_set)}};
  }
  // Whether ask_builder and Accept's apply message reach anyone (any
  // --builder); the preset's own status besides.
  out["has_builder"] = !options.builder.empty();
  if (const ProgramPreset* preset = FindProgramPreset(options.builder)) {
    out["builder"] = ProgramStatusJson(options, *preset, "--builder");
  }
  return out;
}

Result<json> TurnManager::ModelTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                    const json& prepared, const ModelSpec& model, double timeout) {
  PULSE_ASSIGN_OR_RETURN(TurnKind kind, ParseTurnKind(ticket.kind));
  ModelTurnInput in;
  in.spec = model;
  if (!model.key_env.empty()) {
    const char* key = std::getenv(model.key_env.c_str());
    if (key) in.key = key;
  }
  in.workspace = options_.workspace;
  in.kind = kind;
  in.session = ticket.session;
  in.pulse_run_id = ticket.pulse_run_id;
  in.prepared = prepared;
  in.input = request.input;
  std::unique_ptr<PlatformForwarder> platform = MakePlatformForwarder(options_, ticket.workflow);
  in.platform = platform.get();
  in.stopping = &stopping_;
  in.turn_seconds = timeout;
  spdlog::info("{}: turn {} thinks with {} ({})", ticket.workflow, ticket.pulse_run_id, model.Id(), model.url);
  PULSE_ASSIGN_OR_RETURN(ModelTurnResult r, RunModelTurn(oc.ctx, in));
  AddTurnTokens(r.tokens_in, r.tokens_out);
  for (const std::string& note : r.notes) spdlog::warn("{}: turn {}: {}", ticket.workflow, ticket.pulse_run_id, note);
  json out = r.ToJson(model);
  if (!r.error.empty() && stopping_) out["state"] = "interrupted";
  return out;
}

}  // namespace pulse::serve
