// The --builder command: one Builder chat turn per request, an untrusted
// program run like a runner (sandboxed, its own guarded session, never the
// owner token, killed after the wait). The rules (which chat, what is held,
// what the request says) are in core/asks/ask_builder.h.
#include <spdlog/spdlog.h>

#include "core/base/time_util.h"
#include "core/base/utf8.h"
#include "server-shim/serve.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

std::string Trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

class CommandBuilderChannel : public BuilderChannel {
 public:
  CommandBuilderChannel(const ServeOptions& options, Env* env, std::string base_url, const std::atomic<bool>* stopping)
      : options_(options), env_(env), base_url_(std::move(base_url)), stopping_(stopping) {}

  BuilderTurnResult Run(const BuilderTurnRequest& request) const override {
    BuilderTurnResult out;
    Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(*env_, options_.workspace, request.workflow);
    if (!oc.ok()) {
      out.status = "builder_failed";
      out.error = oc.status().message();
      return out;
    }
    Db& db = *(*oc)->ctx.db;
    Result<OpenedSession> session = OpenToolSession(db, request.workflow, request.turn, "", env_->NowSeconds());
    if (!session.ok()) {
      out.status = "builder_failed";
      out.error = "cannot open the Builder turn's guarded session: " + session.status().message();
      return out;
    }
    out.guard_session = session->session.id;
    const std::string tool_url = base_url_ + "s/" + session->session.id + "/tools/custom/";
    std::map<std::string, std::string> env = {
        {"MCP_API_URL", base_url_ + "mcp"},     {"MCP_API_TOKEN", session->token},
        {"PULSE_TOOL_URL", tool_url},          {"PULSE_SESSION", session->session.id},
        {"PULSE_WORKFLOW", request.workflow},  {"PULSE_TURN", TurnKindName(request.turn)},
        {"PULSE_BUILDER_SESSION", request.chat_session},
    };
    json in = BuilderStdin(request);
    in["guard_session"] = session->session.id;
    in["mcp"] = {{"url", base_url_ + "mcp"}, {"tool_url", tool_url}, {"token_env", "MCP_API_TOKEN"}};
    if (const ProgramPreset* preset = FindProgramPreset(options_.builder)) {
      RunPreset(*preset, request, in, env, db, (*oc)->paths().dir, &out);
      (void)CloseToolSession(db, session->session.id, env_->NowSeconds());
      if (out.status != "answered") spdlog::warn("{}: Builder turn {}: {}", request.workflow, out.status, out.error);
      return out;
    }
    ProcessSandbox sandbox = RunnerSandbox(options_, (*oc)->paths().dir);
    spdlog::info("{}: Builder turn ({}, {}) in chat {} runs `{}`", request.workflow, request.kind,
                 TurnKindName(request.turn), request.chat_session, options_.builder);
    ProcessResult p = RunProcess(options_.builder, in.dump() + "\n", env, request.wait_seconds, stopping_,
                                 options_.shutdown_grace, &sandbox);
    (void)CloseToolSession(db, session->session.id, env_->NowSeconds());
    std::string reply = RepairUtf8(Trimmed(p.out));
    std::string err = RepairUtf8(Trimmed(std::string(Utf8Suffix(p.err, 600))));
    if (p.timed_out) {
      out.status = "timeout";
      out.error = "the Builder command gave no answer within " + std::to_string(request.wait_seconds) +
                  " s and was killed";
    } else if (!p.spawn_error.empty()) {
      out.status = "builder_failed";
      out.error = p.spawn_error;
    } else if (p.interrupted || p.signal != 0 || p.exit_code != 0) {
      out.status = "builder_failed";
      out.error = p.interrupted ? "the server shut down during the Builder turn"
                  : p.signal   ? "the Builder command was killed by signal " + std::to_string(p.signal)
                               : "the Builder command exited with status " + std::to_string(p.exit_code);
      if (!err.empty()) out.error += ": " + err;
    } else if (reply.empty()) {
      out.status = "builder_failed";
      out.error = "the Builder command printed nothing";
    } else {
      out.status = "answered";
    }
    out.reply = reply;
    if (out.status != "answered") spdlog::warn("{}: Builder turn {}: {}", request.workflow, out.status, out.error);
    return out;
  }

 private:
  // --builder claude|codex: the program as the Builder chat, its session of
  // that chat resumed from one request to the next.
  void RunPreset(const ProgramPreset& preset, const BuilderTurnRequest& request, const json& in,
                 const std::map<std::string, std::string>& env, Db& db, const std::string& workflow_dir,
                 BuilderTurnResult* out) const {
    ProgramRun run;
    run.preset = &preset;
    run.flag = "--builder";
    run.role = "builder";
    run.workflow = request.workflow;
    run.workflow_dir = workflow_dir;
    run.conversation = "builder:" + request.chat_session;
    run.system_prompt = BuilderProgramCharter(in);
    run.prompt = BuilderProgramPrompt(in);
    run.mcp_url = base_url_ + "mcp";
    for (const auto& [k, v] : env) {
      if (k != "MCP_API_URL") run.env[k] = v;
    }
    run.timeout = request.wait_seconds;
    ProgramRunResult r = RunProgram(options_, *env_, db, run, stopping_);
    std::string state;
    out->error = ProgramRunError(r, preset, request.wait_seconds, &state);
    out->status = out->error.empty() ? "answered" : r.process.timed_out ? "timeout" : "builder_failed";
    out->reply = out->error.empty() ? r.reply.text : "";
    if (out->error.empty() && out->reply.empty()) {
      out->status = "builder_failed";
      out->error = std::string(preset.title) + " answered nothing";
    }
  }

  const ServeOptions& options_;
  Env* env_;
  std::string base_url_;
  const std::atomic<bool>* stopping_;
};

}  // namespace

std::unique_ptr<BuilderChannel> MakeBuilderChannel(const ServeOptions& options, Env* env, const std::string& base_url,
                                                   const std::atomic<bool>* stopping) {
  if (options.builder.empty()) return nullptr;
  return std::make_unique<CommandBuilderChannel>(options, env, base_url, stopping);
}

}  // namespace pulse::serve
