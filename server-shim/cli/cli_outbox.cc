// `pulse outbox list [--json]`: Pulse's messages with what became of each
// delivery — queued, delivered, retrying at a time (with the reason it
// failed), failed for good (with the reason), or kept in the Pulse tab.
#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "server-shim/cli/cli.h"

namespace pulse::cli {

using nlohmann::json;

namespace {

std::string S(const json& v) { return v.is_string() ? v.get<std::string>() : ""; }

// "slack:#growth retrying at 2026-10-07T12:02:00Z (Slack: ratelimited ...), 2 attempts"
std::string DeliveryLine(const json& d) {
  std::string line = S(d["target"]) + " " + S(d["state"]);
  if (S(d["state"]) == "delivered") line += " at " + S(d["delivered_at"]);
  if (S(d["state"]) == "retrying") line += " at " + S(d["next_attempt_at"]);
  if (!S(d["error"]).empty()) line += " (" + S(d["error"]) + ")";
  if (d["attempts"].get<int>() > 0) line += ", " + std::to_string(d["attempts"].get<int>()) + " attempt(s)";
  return line;
}

void SetupOutbox(CLI::App& app, State& state) {
  CLI::App* outbox = app.add_subcommand("outbox", "Pulse's outgoing messages and their delivery states");
  outbox->require_subcommand(1);
  CLI::App* list = outbox->add_subcommand("list", "the messages, oldest first, each with its deliveries");
  AddCommonOptions(list, state);
  static int limit = 200;
  list->add_option("--limit", limit, "the newest N messages (default 200)");
  list->callback([&state] {
    Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
    if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
    ApiContext ctx = ServerContext(**w);
    Result<json> out = CallApi(ctx, "outbox.list", json{{"limit", limit}});
    if (!out.ok()) { state.exit_code = Fail(out.status()); return; }
    if (state.globals.json) return PrintJson(*out);
    const json& messages = (*out)["messages"];
    if (messages.empty()) std::cout << "no messages\n";
    for (const json& m : messages) {
      std::cout << m["id"].dump() << "  " << S(m["created_at"]) << "  " << S(m["kind"]) << "  " << S(m["delivery"])
                << "  " << (S(m["title"]).empty() ? S(m["text"]).substr(0, 80) : S(m["title"])) << "\n";
      for (const json& d : m["deliveries"]) std::cout << "      " << DeliveryLine(d) << "\n";
    }
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("outbox", SetupOutbox);
}  // namespace pulse::cli
