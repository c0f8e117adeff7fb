// The end of a turn that came from Slack: its reply (or why there is none)
// goes to the outbox with the thread as its target, and becomes a line of
// the thread's binding so the next turn replays it.
#include <spdlog/spdlog.h>

#include "agent/outbox/outbox.h"
#include "core/slack/slack_bindings.h"
#include "core/slack/slack_routing.h"
#include "server-shim/serve.h"

namespace pulse::serve {

using nlohmann::json;

void TurnManager::ReplyToSlack(OpenCtx& oc, const TurnRequest& request, const std::string& status,
                               const std::string& reply, const std::string& error, bool stored) {
  const json& slack = request.input["slack"];
  if (!slack.is_object()) return;
  const std::string name = SlackPulseName(WorkflowSlug(oc.ctx.config.raw, oc.ctx.workflow));
  const bool failed = status != "completed" || reply.empty();
  const std::string text = failed ? name + " could not answer this time: " + (error.empty() ? "no reply" : error) +
                                        ". The message is in its conversation; send it again if it still matters."
                                  : reply;
  // A built-in runner (the rules, a model) put its reply in the outbox
  // itself, with the thread as its target; an external runner's is added here.
  if (failed || !stored) {
    OutboxMessage m;
    m.kind = "pulse_reply";
    m.title = name + " in Slack";
    m.text = text;
    m.payload = {{"slack", slack}};
    Result<int64_t> added = AddOutboxMessage(*oc.ctx.db, m, env_->NowSeconds());
    if (!added.ok()) spdlog::warn("{}: Slack reply not stored: {}", oc.ctx.workflow, added.status().message());
  }
  Status line = SlackStore(*oc.ctx.db).RecordOutgoing(slack.value("team", ""), slack.value("channel", ""),
                                                      slack.value("binding_thread", ""), name, text,
                                                      env_->NowSeconds());
  if (!line.ok()) spdlog::warn("{}: Slack thread line: {}", oc.ctx.workflow, line.message());
}

}  // namespace pulse::serve
