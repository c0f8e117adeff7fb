// `pulse conversation show|stop`, `pulse talk`, `pulse pass`: Pulse's
// conversation from the command line. show reads through the same API method
// as GET /conversation and the browser; talk and pass run their turn here,
// through the server's own turn machinery (serve.h), with the built-in rules
// runner unless --runner names one, and wait for it.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <climits>
#include <cstdlib>
#include <vector>

#include "agent/tools/agent_api.h"
#include "agent/turns/pulse_turns.h"
#include "core/api/api.h"
#include "core/conversation/conversation.h"
#include "core/conversation/pass.h"
#include "core/base/time_util.h"
#include "server-shim/cli/cli.h"
#include "server-shim/http/loopback_mcp.h"
#include "server-shim/serve.h"

namespace pulse::cli {
namespace {

using nlohmann::json;

void PrintConversation(const json& v) {
  if (!v.value("exists", false)) {
    std::cout << v.value("workflow", std::string()) << ": no Pulse conversation yet"
              << (v.value("has_goal", false) ? " (it starts with the first goal check)" : " (the workflow has no goal)")
              << "\n";
    return;
  }
  std::cout << "Pulse conversation of " << v["workflow"].get<std::string>() << ": " << v["session_id"].get<std::string>()
            << " (generation " << v["generation"].get<int>() << " of " << v["generations"].size() << ")\n";
  for (const json& g : v["generations"]) {
    std::cout << "  generation " << g["generation"].get<int>() << " from " << g["started_at"].get<std::string>() << ", "
              << g["turns"].get<int>() << " turns (" << g["reason"].get<std::string>() << ")\n";
  }
  for (const json& t : v["turns"]) {
    std::string text = t["text"].get<std::string>();
    std::cout << "\n[" << t["at"].get<std::string>() << "] " << t["turn"].get<std::string>() << " — "
              << t["caller"].get<std::string>() << (t.contains("account") ? " (" + t["account"].get<std::string>() + ")" : "")
              << " — " << t["state"].get<std::string>() << "\n"
              << text.substr(0, text.find('\n')) << "\n";
    if (!t["reply"].get<std::string>().empty()) std::cout << "Pulse: " << t["reply"].get<std::string>() << "\n";
    if (t.contains("error")) std::cout << "(" << t["error"].get<std::string>() << ")\n";
  }
}

void SetupShow(CLI::App* parent, State& state) {
  static int generation = 0;
  CLI::App* show = parent->add_subcommand("show", "the conversation: generations, and the turns of the current one");
  AddCommonOptions(show, state);
  show->add_option("--generation", generation, "show this generation's turns instead of the current one's")
      ->check(CLI::Range(1, 1000000));
  show->callback([&state] {
    Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
    if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
    ApiContext ctx = ServerContext(**w);
    json args = json::object();
    if (generation > 0) args["generation"] = generation;
    Result<json> out = CallApi(ctx, "conversation.show", args);
    if (!out.ok()) { state.exit_code = Fail(out.status().WithContext("--generation")); return; }
    if (state.globals.json) PrintJson(*out); else PrintConversation(*out);
  });
}

// Runs one request through a TurnManager of this process and waits for it;
// prints what the conversation recorded.
struct TurnFlags {
  std::string runner;
  ModelFlags model;
  double timeout = 600;
  serve::SandboxOptions sandbox;  // as `pulse serve`
};

void RunHere(State& state, const TurnFlags& flags, serve::TurnRequest request) {
  if (Status s = CheckTurnFlags(flags.model, flags.runner); !s.ok()) { state.exit_code = Fail(s); return; }
  if (Status s = serve::CheckSandboxOptions(flags.sandbox); !s.ok()) { state.exit_code = Fail(s); return; }
  Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
  if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
  // The turn machinery logs; stdout is for the command's own answer.
  spdlog::set_default_logger(spdlog::stderr_color_mt("pulse-turn"));
  serve::ServeOptions opt;
  char real[PATH_MAX];
  opt.workspace = ::realpath(state.globals.workspace.c_str(), real) ? real : state.globals.workspace;
  opt.runner = flags.runner;
  opt.model = flags.model;
  opt.runner_timeout = flags.timeout;
  opt.sandbox = flags.sandbox;
  opt.max_turns = 1;
  serve::TurnManager turns(state.env.get(), opt);
  request.workflow = state.globals.workflow;
  // A runner reaches Pulse's tools over MCP: served here on loopback for the turn.
  std::unique_ptr<serve::LoopbackMcp> mcp;
  if (Status s = ServeRunnerMcp(state.env.get(), opt, request.workflow, turns, &mcp); !s.ok()) { state.exit_code = Fail(s); return; }
  Result<serve::TurnTicket> t = turns.Submit(request);
  if (!t.ok()) { state.exit_code = Fail(t.status()); return; }
  turns.Drain();
  ApiContext ctx = ServerContext(**w);
  Result<json> view = CallApi(ctx, "conversation.show", json::object());
  if (!view.ok()) { state.exit_code = Fail(view.status()); return; }
  json turns_of_run = json::array();
  for (const json& turn : (*view)["turns"]) {
    if (turn.value("pulse_run_id", std::string()) == t->pulse_run_id) turns_of_run.push_back(turn);
  }
  json out = {{"session_id", (*view)["session_id"]}, {"pulse_run_id", t->pulse_run_id}, {"turns", turns_of_run}};
  bool failed = turns_of_run.empty();
  for (const json& turn : turns_of_run) failed = failed || turn["state"] != "completed";
  if (request.kind == "pass") {
    Result<std::vector<PassRecord>> passes = ListPasses((*w)->db(), 1);
    if (passes.ok() && !passes->empty()) {
      out["pass"] = passes->front().ToJson();
      // A pass without a goal has no conversation turns: its record says how it went.
      if (turns_of_run.empty()) failed = passes->front().state != "completed";
      Result<json> worklist = CallApi(ctx, "pass.worklist", json{{"pass_id", passes->front().id}});
      if (worklist.ok()) out["worklist"] = (*worklist)["worklist"];
    }
  }
  if (state.globals.json) {
    PrintJson(out);
  } else {
    if (out.contains("pass")) {
      for (const json& s : out["pass"]["steps"]) {
        std::cout << s["step"].get<std::string>() << ": " << s["state"].get<std::string>() << " — "
                  << s["detail"].get<std::string>() << "\n";
      }
    }
    for (const json& turn : turns_of_run) {
      std::cout << turn["turn"].get<std::string>() << " (" << turn["state"].get<std::string>() << ")\n"
                << turn["reply"].get<std::string>() << (turn.contains("error") ? "\n" + turn["error"].get<std::string>() : "")
                << "\n";
    }
  }
  if (failed) state.exit_code = 1;
}

void AddRunnerOptions(CLI::App* sub, TurnFlags& flags) {
  sub->add_option("--runner", flags.runner, "run the turn with this command (as `pulse serve --runner`); default: the built-in rules runner");
  sub->add_option("--runner-timeout", flags.timeout, "seconds before the runner is killed (default 600)")
      ->check(FiniteRange(0.1, 86400.0));
  AddSandboxOptions(sub, flags.sandbox);
  AddModelOptions(sub, flags.model);
}

void Setup(CLI::App& app, State& state) {
  CLI::App* sub = app.add_subcommand("conversation", "Pulse's conversation for the workflow");
  sub->require_subcommand(1);
  SetupShow(sub, state);
  CLI::App* stop = sub->add_subcommand("stop", "stops the running turn; the next turn clears the Stop");
  AddCommonOptions(stop, state);
  stop->callback([&state] {
    Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
    if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
    ApiContext ctx = ServerContext(**w);
    Result<json> out = CallApi(ctx, "conversation.stop", json::object());
    if (!out.ok()) { state.exit_code = Fail(out.status()); return; }
    PrintJson(*out);
  });

  static TurnFlags talk_flags;
  static std::string message, account;
  CLI::App* talk = app.add_subcommand("talk", "the owner's message into Pulse's conversation (an owner relay turn)");
  AddCommonOptions(talk, state);
  talk->add_option("--message", message, "what you tell or ask Pulse")->required();
  talk->add_option("--account", account, "your account (as in chats.json)");
  AddRunnerOptions(talk, talk_flags);
  talk->callback([&state] {
    if (message.find_first_not_of(" \t\r\n") == std::string::npos) {
      state.exit_code = Fail(Status::InvalidArgument("--message: empty"));
      return;
    }
    if (message.size() > 20000) {
      state.exit_code = Fail(Status::InvalidArgument("--message: longer than 20000 characters"));
      return;
    }
    serve::TurnRequest r;
    r.kind = "ask_pulse";
    r.trigger = "owner";
    r.input = {{"message", message}, {"caller", "owner"}};
    if (!account.empty()) r.input["account"] = account;
    RunHere(state, talk_flags, r);
  });

  static TurnFlags pass_flags;
  static std::string kind = "full";
  CLI::App* pass = app.add_subcommand("pass", "one Pulse pass now: Gate, Goal Work in the conversation, Finalize (without a goal: Gate, Goal Work, Architecture, Technical, Finalize)");
  AddCommonOptions(pass, state);
  pass->add_option("--kind", kind, "full or fast")->check(CLI::IsMember({"full", "fast"}));
  AddRunnerOptions(pass, pass_flags);
  pass->callback([&state] {
    serve::TurnRequest r;
    r.kind = "pass";
    r.trigger = "cli";
    r.input = {{"pass_kind", kind}};
    RunHere(state, pass_flags, r);
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("conversation", Setup);
}  // namespace pulse::cli
