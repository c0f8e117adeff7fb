// A model's answer (agent/model/model_wire.h): the body of a model server's
// response read in both wire formats, the error text made of it, the calls
// it carries echoed back into the next request and stored for the replay
// (ToJson/FromJson), a Retry-After value, and the same bytes as a
// workflow.json pulse.model (ModelForWorkflow). A model is hostile input.
#include "agent/model/model_http.h"
#include "agent/model/model_spec.h"
#include "agent/model/model_wire.h"
#include "core/base/json_limits.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  const std::string text = fuzz::Text(data, size);
  for (ModelProvider p : {ModelProvider::kOpenAi, ModelProvider::kAnthropic}) {
    Result<ModelReply> reply = ParseModelReply(p, text);
    if (!reply.ok()) {
      (void)ModelErrorText(text);
      continue;
    }
    // What the loop does with an answer: echo it back, keep it for the replay.
    ModelMessage said;
    said.role = ModelMessage::Role::kAssistant;
    said.text = reply->text;
    said.calls = reply->calls;
    ModelMessage results;
    results.role = ModelMessage::Role::kTool;
    for (const ModelToolCall& c : reply->calls) results.results.push_back({c.id, c.problem, !c.problem.empty()});
    ModelRequest next;
    next.model = "m";
    next.messages = {said, results};
    (void)BuildModelRequest(p, next).dump();
    Result<ModelMessage> back = ModelMessage::FromJson(said.ToJson());
    if (back.ok()) (void)back->ToJson().dump();
  }
  (void)RetryAfterSeconds(text.substr(0, 80), 1759838400);
  Result<nlohmann::json> doc = ParseJsonBounded(text, "workflow.json");
  if (doc.ok()) {
    ModelFlags flags;
    flags.model = "openai:m";
    (void)ModelForWorkflow(flags, *doc);
  }
  return 0;
}
