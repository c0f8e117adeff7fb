// chats.json, the platform's list of chats: copied into the database (the
// snapshot the asks take at the moment of a call), read back as the asks read
// it (which Builder chat to send to, whether an ask is the owner's relay),
// then the goal check's context facts built on it, rendered as JSON.
#include "core/asks/ask_builder.h"
#include "core/facts/fact_snapshot.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  using nlohmann::json;
  fuzz::Opened& o = fuzz::TheWorkflow();
  fuzz::WriteWorkflowFile("chats.json", fuzz::Text(data, size));
  (void)SnapshotChatsFile(o.env, *o.ctx.db, o.ctx.workflow_dir, o.env.NowSeconds());
  Result<std::vector<ChatRow>> chats = ReadChats(*o.ctx.db);
  if (chats.ok()) {
    (void)SelectBuilderChat(*chats, o.ctx.config, "");
    for (const ChatRow& c : *chats) {
      (void)SelectBuilderChat(*chats, o.ctx.config, c.session_id);
      (void)IsOwnerRelay(*chats, o.ctx.config, "builder", c.session_id, c.account);
    }
  }
  Result<json> facts = CallApi(o.ctx, "goal.facts", json::object());
  if (facts.ok()) (void)facts->dump();
  return 0;
}
