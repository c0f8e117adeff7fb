// `pulse ask`: ask_pulse from a chat or step on the command line. The round
// is opened and its turn run here, through the server's own turn machinery
// (with the built-in rules runner unless --runner names one), and the
// command waits for the answer: the same record POST /ask keeps.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <climits>
#include <cstdlib>

#include "agent/turns/pulse_asks.h"
#include "server-shim/cli/cli.h"
#include "server-shim/http/loopback_mcp.h"
#include "server-shim/serve.h"

namespace pulse::cli {
namespace {

using nlohmann::json;

struct AskFlags {
  std::string caller, session, account, message, thread, call_id, runner;
  int wait = kAskPulseWaitDefault;
  double timeout = 600;
  ModelFlags model;
  serve::SandboxOptions sandbox;  // as `pulse serve`
};

void PrintAsk(const json& a) {
  std::cout << "ask " << a["call_id"].get<std::string>() << " (" << a["status"].get<std::string>() << "), thread "
            << a["thread_id"].get<std::string>() << " round " << a["round"].get<int>() << " of at most "
            << a["max_rounds"].get<int>() << (a["thread_open"].get<bool>() ? ", open" : ", closed") << "\n";
  if (!a["answer"].get<std::string>().empty()) std::cout << "Pulse: " << a["answer"].get<std::string>() << "\n";
  if (a.contains("error")) std::cout << "(" << a["error"].get<std::string>() << ")\n";
  std::cout << "next: " << a["next"].get<std::string>() << "\n";
}

void Setup(CLI::App& app, State& state) {
  static AskFlags f;
  CLI::App* sub = app.add_subcommand("ask", "ask_pulse from a chat or step: one round of a thread, answered by Pulse");
  AddCommonOptions(sub, state);
  sub->add_option("--caller", f.caller, "who asks: builder, run, step or bot")
      ->required()->check(CLI::IsMember({"builder", "run", "step", "bot"}));
  sub->add_option("--session", f.session, "the asking chat's or step's session id")->required();
  sub->add_option("--account", f.account, "the person behind a Builder chat (as in chats.json)");
  sub->add_option("--message", f.message, "what to ask Pulse (or the answer to its question, in a thread)");
  sub->add_option("--thread", f.thread, "continue this thread (its thread_id)");
  sub->add_option("--call-id", f.call_id, "read back an earlier call's answer");
  sub->add_option("--wait-seconds", f.wait, "how long a server would wait (0-120, default 60); here the command "
                                            "waits for the turn itself")
      ->check(CLI::Range(0, kAskWaitMax));
  sub->add_option("--runner", f.runner, "run the turn with this command (as `pulse serve --runner`); default: the "
                                        "built-in rules runner");
  sub->add_option("--runner-timeout", f.timeout, "seconds before the runner is killed (default 600)")
      ->check(FiniteRange(0.1, 86400.0));
  AddModelOptions(sub, f.model);
  AddSandboxOptions(sub, f.sandbox);
  sub->callback([&state] {
    if (Status s = CheckTurnFlags(f.model, f.runner); !s.ok()) { state.exit_code = Fail(s); return; }
    if (Status s = serve::CheckSandboxOptions(f.sandbox); !s.ok()) { state.exit_code = Fail(s); return; }
    Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
    if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
    json args = {{"caller", f.caller}, {"session", f.session}, {"wait_seconds", f.wait}};
    if (!f.account.empty()) args["account"] = f.account;
    if (!f.message.empty()) args["message"] = f.message;
    if (!f.thread.empty()) args["thread_id"] = f.thread;
    if (!f.call_id.empty()) args["call_id"] = f.call_id;
    Result<AskCall> call = ReadAskCall(Args("ask", args));
    if (!call.ok()) { state.exit_code = Fail(call.status()); return; }
    // The turn machinery logs; stdout is for the answer.
    spdlog::set_default_logger(spdlog::stderr_color_mt("pulse-ask"));
    serve::ServeOptions opt;
    char real[PATH_MAX];
    opt.workspace = ::realpath(state.globals.workspace.c_str(), real) ? real : state.globals.workspace;
    opt.runner = f.runner;
    opt.model = f.model;
    opt.runner_timeout = f.timeout;
    opt.sandbox = f.sandbox;
    opt.max_turns = 1;
    serve::TurnManager turns(state.env.get(), opt);
    // A runner reaches Pulse's tools over MCP: served here on loopback for the turn.
    std::unique_ptr<serve::LoopbackMcp> mcp;
    if (Status s = ServeRunnerMcp(state.env.get(), opt, state.globals.workflow, turns, &mcp); !s.ok()) { state.exit_code = Fail(s); return; }
    ApiContext ctx = ServerContext(**w);
    Result<json> out = serve::AskAndWait(turns, ctx, *call, true);
    if (!out.ok()) { state.exit_code = Fail(out.status()); return; }
    if (state.globals.json) PrintJson(*out); else PrintAsk(*out);
    const std::string status = (*out)["status"].get<std::string>();
    if (status != "answered" && status != "queued" && status != "running") state.exit_code = 1;
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("ask", Setup);
}  // namespace pulse::cli
