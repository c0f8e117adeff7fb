// HTTP request bodies: the server's one JSON body parse, then the body handed
// to the method its route calls (the first byte picks the route), then the
// reply rendered as the server renders it.
//
// Property (a violation aborts): every reply, the parse's refusal included,
// is a JSON object of bounded size, a refusal one line (fuzz::CheckReply).
#include <httplib.h>

#include "server-shim/http/http_util.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  using nlohmann::json;
  static const char* kBodyMethods[] = {"decision.answer", "decision.create", "memory.add", "memory.save",
                                       "goal.observe",    "agent_log.record", "pulse.tool_call"};
  if (size == 0) return 0;
  const char* method = kBodyMethods[data[0] % (sizeof kBodyMethods / sizeof kBodyMethods[0])];
  httplib::Request req;
  req.method = "POST";
  req.body = fuzz::Text(data + 1, size - 1);
  httplib::Response res;
  json body;
  if (!serve::ParseJsonObjectBody(req, res, &body)) {
    fuzz::CheckReply(res.body, req.body.size(), "the body's parse");
    return 0;
  }
  fuzz::Opened& o = fuzz::TheWorkflow();
  Result<json> out = CallApi(o.ctx, method, body);
  if (out.ok()) serve::ReplyJson(res, 200, *out);
  else serve::ReplyStatus(res, out.status());
  fuzz::CheckReply(res.body, req.body.size(), method);
  return 0;
}
