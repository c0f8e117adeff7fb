// `pulse guard` and `pulse session open|close|resolve|decisions`: the autonomy
// guard from the command line. Every rule is in core/autonomy/autonomy.cc; these call
// the same API methods the server and the browser use.
#include <memory>

#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "server-shim/cli/cli.h"

namespace pulse::cli {
namespace {

using nlohmann::json;

struct GuardFlags {
  std::string turn, tool, args, session, token;
  SessionTokenFlags token_flags;
};

// Flags reach JSON documents; a value that is not UTF-8 is bad input, named.
Status CheckUtf8(const char* flag, const std::string& value) {
  try {
    (void)json(value).dump();
  } catch (const json::exception&) {
    return Status::InvalidArgument(std::string(flag) + ": not valid UTF-8");
  }
  return Status::OK();
}

// Runs one API method on the workflow named by the flags.
Result<json> Call(State& state, const char* method, const json& args) {
  PULSE_ASSIGN_OR_RETURN(std::unique_ptr<WorkflowHandle> w, OpenFromFlags(state));
  ApiContext ctx = ServerContext(*w);
  return CallApi(ctx, method, args);
}

void SetupGuard(CLI::App& app, State& state) {
  static GuardFlags guard_flags;  // CLI11 binds to the fields; Setup runs once per process
  GuardFlags* flags = &guard_flags;
  CLI::App* sub = app.add_subcommand("guard", "the autonomy decision for one tool call in one turn kind (exit 0 either way)");
  AddCommonOptions(sub, state);
  sub->add_option("--turn", flags->turn, "goal_check, goal_work, goal_work_receipt, ask_pulse, run_failed, builder_question, builder_fix, qa_fix, workflow_step");
  sub->add_option("--tool", flags->tool, "the tool's name")->required();
  sub->add_option("--args", flags->args, "the tool's arguments as a JSON object");
  sub->add_option("--session", flags->session, "decide for this session (its turn comes from its record)");
  AddSessionTokenOptions(sub, flags->token_flags, "the session's token (checked as the HTTP tool route does)");
  sub->callback([&state, flags] {
    Result<std::string> token = SessionToken(flags->token_flags, /*required=*/false, /*from_env=*/false);
    if (!token.ok()) {
      state.exit_code = Fail(token.status());
      return;
    }
    flags->token = *token;
    for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"--tool", &flags->tool},
                                      {"--turn", &flags->turn}, {"--session", &flags->session},
                                      {"--token", &flags->token}}) {
      Status u = CheckUtf8(flag, *value);
      if (!u.ok()) {
        state.exit_code = Fail(u);
        return;
      }
    }
    json tool_args = json::object();
    if (!flags->args.empty()) {
      tool_args = json::parse(flags->args, nullptr, false);
      if (tool_args.is_discarded()) {
        state.exit_code = Fail(Status::InvalidArgument("--args: not valid JSON: " + flags->args));
        return;
      }
      if (!tool_args.is_object()) {
        state.exit_code = Fail(Status::InvalidArgument("--args: expected a JSON object, got " + flags->args));
        return;
      }
    }
    if (flags->session.empty() && flags->turn.empty()) {
      state.exit_code = Fail(Status::InvalidArgument("--turn: missing (or give --session)"));
      return;
    }
    json call = {{"tool", flags->tool}, {"args", tool_args}};
    if (!flags->turn.empty()) call["turn"] = flags->turn;
    if (!flags->session.empty()) call["session"] = flags->session;
    if (!flags->token.empty()) call["token"] = flags->token;
    Result<json> out = Call(state, "autonomy.guard", call);
    if (!out.ok()) {
      Status s = out.status();
      // Name the flag the problem came from.
      if (s.code() == Code::kInvalidArgument && s.message().rfind("turn:", 0) == 0) s = Status::InvalidArgument("--" + s.message());
      state.exit_code = Fail(s);
      return;
    }
    if (state.globals.json) {
      PrintJson(*out);
    } else {
      std::cout << json{{"allowed", (*out)["allowed"]}, {"reason", (*out)["reason"]}, {"rule", (*out)["rule"]}}.dump()
                << std::endl;
    }
  });
}

// `pulse session resolve`: the session a token belongs to (the token from
// --token, --token-file or $MCP_API_TOKEN).
void SetupSessionResolve(CLI::App* sub, State& state) {
  static SessionTokenFlags flags;
  CLI::App* resolve = sub->add_subcommand("resolve", "the session a token belongs to");
  AddCommonOptions(resolve, state);
  AddSessionTokenOptions(resolve, flags, "the session token");
  resolve->callback([&state] {
    Result<std::string> token = SessionToken(flags, /*required=*/true);
    if (!token.ok()) {
      state.exit_code = Fail(token.status());
      return;
    }
    Result<json> out = Call(state, "session.resolve", {{"token", *token}});
    if (!out.ok()) {
      state.exit_code = Fail(out.status().WithContext("--token"));
      return;
    }
    PrintJson(*out);
  });
}

void SetupSession(CLI::App& app, State& state) {
  CLI::App* sub = app.add_subcommand("session", "guarded tool sessions for external agents");
  sub->require_subcommand(1);

  auto open_flags = std::make_shared<GuardFlags>();
  CLI::App* open = sub->add_subcommand("open", "opens a guarded session; prints {\"session\", \"token\"} as JSON");
  AddCommonOptions(open, state);
  open->add_option("--turn", open_flags->turn, "the turn kind the session's tools are held to");
  open->add_option("--parent", open_flags->session, "a delegated helper of this session (held like its root)");
  open->callback([&state, open_flags] {
    json call = json::object();
    if (!open_flags->turn.empty()) call["turn"] = open_flags->turn;
    if (!open_flags->session.empty()) call["parent"] = open_flags->session;
    if (open_flags->turn.empty() && open_flags->session.empty()) {
      state.exit_code = Fail(Status::InvalidArgument("--turn: missing"));
      return;
    }
    Result<json> out = Call(state, "session.open", call);
    if (!out.ok()) {
      Status s = out.status();
      if (s.code() == Code::kInvalidArgument && s.message().rfind("turn:", 0) == 0) s = Status::InvalidArgument("--" + s.message());
      state.exit_code = Fail(s);
      return;
    }
    if (state.globals.json) PrintJson(*out);
    else std::cout << json{{"session", (*out)["session"]}, {"token", (*out)["token"]}, {"turn", (*out)["turn"]}}.dump() << std::endl;
  });

  auto close_flags = std::make_shared<GuardFlags>();
  CLI::App* close = sub->add_subcommand("close", "closes a session and its helpers");
  AddCommonOptions(close, state);
  close->add_option("--session", close_flags->session, "the session id")->required();
  close->callback([&state, close_flags] {
    Result<json> out = Call(state, "session.close", {{"session", close_flags->session}});
    if (!out.ok()) {
      state.exit_code = Fail(out.status().WithContext("--session"));
      return;
    }
    if (state.globals.json) PrintJson(*out);
    else std::cout << "closed " << (*out)["closed"].size() << " session(s): " << (*out)["closed"].dump() << std::endl;
  });

  SetupSessionResolve(sub, state);

  auto log_flags = std::make_shared<GuardFlags>();
  CLI::App* log = sub->add_subcommand("decisions", "the guard's recorded decisions, oldest first");
  AddCommonOptions(log, state);
  log->add_option("--session", log_flags->session, "only this session's decisions");
  log->callback([&state, log_flags] {
    json call = json::object();
    if (!log_flags->session.empty()) call["session"] = log_flags->session;
    Result<json> out = Call(state, "autonomy.decisions", call);
    if (!out.ok()) {
      state.exit_code = Fail(out.status());
      return;
    }
    if (state.globals.json) {
      PrintJson(*out);
      return;
    }
    for (const json& d : (*out)["decisions"]) {
      std::cout << d["at"].get<std::string>() << "  " << (d["session"].get<std::string>().empty() ? "-" : d["session"].get<std::string>())
                << "  " << d["turn"].get<std::string>() << "  " << d["tool"].get<std::string>() << "  "
                << (d["allowed"].get<bool>() ? "allowed" : "refused") << "  " << d["rule"].get<std::string>() << "\n";
    }
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("guard", SetupGuard);
PULSE_REGISTER_COMMAND("session", SetupSession);
}  // namespace pulse::cli
