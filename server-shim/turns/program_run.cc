// A preset program (--runner claude|codex, --builder claude|codex) for one
// turn: found on the server's PATH, its files written, run headless under
// the runner sandbox with its installation readable and its home writable,
// its answer and session read back (agent/programs/program_preset.h), and
// the session kept for the next turn of the same conversation.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "agent/model/model_turn.h"
#include "agent/programs/program_sessions.h"
#include "core/base/utf8.h"
#include "server-shim/serve.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

std::string Quoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The program itself is the runner process ("exec"): it is the one whose
// own /proc/<pid> the sandbox grants.
std::string CommandLine(const std::vector<std::string>& argv) {
  std::string cmd = "exec";
  for (const std::string& a : argv) cmd += " " + Quoted(a);
  return cmd;
}

// Writes Pulse's files for the turn into `dir` (the server's: the program
// reads them and cannot write there), each replaced whole.
Status WriteTurnFiles(const std::string& dir, const std::map<std::string, std::string>& files) {
  for (const auto& [name, text] : files) {
    const std::string path = dir + "/" + name;
    const std::string tmp = path + ".tmp";
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return Status::IoError("cannot write " + tmp + ": " + std::strerror(errno));
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int err = errno;
        ::close(fd);
        return Status::IoError("cannot write " + tmp + ": " + std::strerror(err));
      }
      done += static_cast<size_t>(n);
    }
    ::fchmod(fd, 0644);  // the runner user reads it, whatever the umask
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      return Status::IoError("cannot write " + path + ": " + std::strerror(errno));
    }
  }
  return Status::OK();
}

// A folder of Pulse's the runner user may enter and read.
Status MakeReadableDir(Env& env, const std::string& dir) {
  PULSE_RETURN_IF_ERROR(env.CreateDirs(dir));
  if (::chmod(dir.c_str(), 0755) != 0) return Status::IoError("cannot open " + dir + " to runners: " + std::strerror(errno));
  return Status::OK();
}

// Where a program works for one workflow and role: Pulse's files for the
// turn (the program reads them) and the program's home (it writes there: its
// configuration, its sessions), kept from turn to turn so a session resumes.
struct ProgramPlace {
  std::string files_dir;
  std::string home;
};

Result<ProgramPlace> PrepareProgramPlace(const ServeOptions& options, Env& env, const ProgramRun& run) {
  const ProgramPreset& preset = *run.preset;
  ProgramPlace place;
  place.files_dir = run.workflow_dir + "/pulse/programs/" + preset.name + "-" + run.role;
  place.home = place.files_dir + "/home";
  for (const std::string& dir : {run.workflow_dir + "/pulse", run.workflow_dir + "/pulse/programs", place.files_dir}) {
    PULSE_RETURN_IF_ERROR(MakeReadableDir(env, dir));
  }
  // Its configuration folder exists before it starts (Codex requires it),
  // and it is the runner user's, as its home is.
  const std::string config_dir = place.home + (preset.kind == ProgramKind::kClaude ? "/.claude" : "/.codex");
  PULSE_RETURN_IF_ERROR(env.CreateDirs(config_dir));
  Result<RunnerUser> user = ResolveRunnerUser(options.sandbox.runner_user);
  if (user.ok()) GiveToRunnerUser(*user, config_dir);
  return place;
}

// One run of the program, going on with `resume` ("" : a new session).
ProgramRunResult RunOnce(const ServeOptions& options, const ProgramRun& run, const ProgramPlace& place,
                         const std::string& program, const ProgramModel& model, const std::string& resume,
                         const ProcessSandbox& box, const std::atomic<bool>* stopping) {
  ProgramRunResult out;
  const ProgramPreset& preset = *run.preset;
  ProgramTurn turn;
  turn.program = program;
  turn.files_dir = place.files_dir;
  turn.home = place.home;
  turn.mcp_url = run.mcp_url;
  turn.resume = resume;
  turn.model = model;
  ProgramInvocation inv = BuildProgramInvocation(preset, turn, run.system_prompt);
  Status written = WriteTurnFiles(place.files_dir, inv.files);
  if (!written.ok()) {
    out.reply.error = written.message();
    return out;
  }
  std::map<std::string, std::string> vars = run.env;
  for (const auto& [k, v] : inv.env) vars[k] = v;
  for (const auto& [program_var, server_var] : inv.keys) {
    const char* key = std::getenv(server_var.c_str());
    if (key && *key) vars[program_var] = key;
  }
  spdlog::info("{}: {} {} runs {}{}", run.workflow, run.flag, preset.name, program,
               resume.empty() ? " (a new session)" : " (resuming session " + resume + ")");
  // A new session in a conversation with turns before it gets them as text.
  const std::string prompt = resume.empty() ? run.history + run.prompt : run.prompt;
  out.process = RunProcess(CommandLine(inv.argv), prompt, vars, run.timeout, stopping, options.shutdown_grace, &box);
  out.resumed = !resume.empty();
  const ProcessResult& p = out.process;
  if (!p.spawn_error.empty()) {
    out.reply.error = p.spawn_error;
    return out;
  }
  out.reply = ParseProgramOutput(preset, p.out, p.err, p.signal != 0 ? 128 + p.signal : p.exit_code, resume);
  return out;
}

}  // namespace

ProgramRunResult RunProgram(const ServeOptions& options, Env& env, Db& db, const ProgramRun& run,
                            const std::atomic<bool>* stopping) {
  ProgramRunResult out;
  const ProgramPreset& preset = *run.preset;
  const char* path_env = std::getenv("PATH");
  const std::string program = FindProgramOnPath(preset.binary, path_env ? path_env : "/usr/bin:/bin");
  if (program.empty()) {
    out.reply.error = ProgramMissingMessage(preset, run.flag);
    return out;
  }
  // --model names the runner's model; a Builder program of the other vendor
  // keeps its own defaults.
  Result<ProgramModel> model = ProgramModelFromFlags(preset, options.model);
  if (!model.ok() && run.role == "builder") model = ProgramModel();
  Result<ProgramPlace> place = model.ok() ? PrepareProgramPlace(options, env, run) : Result<ProgramPlace>(model.status());
  if (!place.ok()) {
    out.reply.error = place.status().message();
    return out;
  }
  std::string resume;
  if (!run.conversation.empty()) {
    Result<std::optional<std::string>> found = FindProgramSession(db, run.conversation, preset.name);
    if (!found.ok()) spdlog::warn("{}: {} session: {}", run.workflow, preset.title, found.status().message());
    else if (*found) resume = **found;
  }
  ProcessSandbox box = RunnerSandbox(options, run.workflow_dir);
  box.read = {ProgramInstallFolder(program), place->files_dir};
  box.home = place->home;
  box.out_head = 64 << 10;  // the first events (Claude Code's MCP status) and the last (the answer)
  out = RunOnce(options, run, *place, program, *model, resume, box, stopping);
  if (out.reply.session_missing) {
    // Its home lost the session (removed, or a new install): a new one.
    spdlog::warn("{}: {}: {}; a new session starts", run.workflow, preset.title, out.reply.error);
    (void)ForgetProgramSession(db, run.conversation, preset.name);
    out = RunOnce(options, run, *place, program, *model, "", box, stopping);
  }
  for (const std::string& note : out.reply.notes) spdlog::warn("{}: {}: {}", run.workflow, preset.title, note);
  if (!run.conversation.empty() && !out.reply.session_id.empty()) {
    Status kept = SaveProgramSession(db, run.conversation, preset.name, out.reply.session_id, env.NowSeconds());
    if (!kept.ok()) spdlog::warn("{}: {} session not kept: {}", run.workflow, preset.title, kept.message());
  }
  return out;
}

}  // namespace pulse::serve

namespace pulse::serve {

json ProgramStatusJson(const ServeOptions& options, const ProgramPreset& preset, const std::string& flag) {
  json out = {{"name", preset.name}, {"title", preset.title}};
  const char* path_env = std::getenv("PATH");
  const std::string program = FindProgramOnPath(preset.binary, path_env ? path_env : "/usr/bin:/bin");
  if (program.empty()) {
    out["found"] = false;
    out["error"] = ProgramMissingMessage(preset, flag);
    return out;
  }
  out["found"] = true;
  out["path"] = program;
  out["install_folder"] = ProgramInstallFolder(program);
  Result<ProgramModel> model = ProgramModelFromFlags(preset, options.model);
  ProgramModel m = model.ok() ? *model : ProgramModel();
  if (!m.name.empty()) out["model"] = m.name;
  if (!m.url.empty()) out["url"] = m.url;
  json vars = json::array();
  bool set = false;
  for (const std::string& v : ProgramKeyVariables(preset, m)) {
    vars.push_back(v);
    const char* value = std::getenv(v.c_str());
    set = set || (value && *value);
  }
  out["key_env"] = vars;
  out["key"] = set ? "set" : "unset";
  return out;
}

void HideProgramKeys(const ServeOptions& options) {
  for (const std::string& flag : {options.runner, options.builder}) {
    const ProgramPreset* preset = FindProgramPreset(flag);
    Result<ProgramModel> model = preset ? ProgramModelFromFlags(*preset, options.model) : Result<ProgramModel>(ProgramModel());
    if (preset && model.ok()) SetHiddenEnvironment(ProgramKeyVariables(*preset, *model));
  }
}

void LogProgramPresets(const ServeOptions& options) {
  for (const auto& [flag, value] : {std::pair<const char*, std::string>{"--runner", options.runner},
                                    std::pair<const char*, std::string>{"--builder", options.builder}}) {
    const ProgramPreset* preset = FindProgramPreset(value);
    if (!preset) continue;
    json status = ProgramStatusJson(options, *preset, flag);
    if (status["found"] == true) {
      spdlog::info("{} {}: {} at {}", flag, preset->name, preset->title, status["path"].get<std::string>());
    } else {
      spdlog::warn("{}", status["error"].get<std::string>());
    }
  }
}

std::string ProgramRunError(const ProgramRunResult& r, const ProgramPreset& preset, double timeout,
                            std::string* state) {
  const ProcessResult& p = r.process;
  if (p.timed_out) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", timeout);
    return std::string(preset.title) + " timed out after " + buf + " s and was killed";
  }
  if (p.interrupted) {
    *state = "interrupted";
    return std::string("interrupted: the server shut down while ") + preset.title + " was working; it was killed";
  }
  return r.reply.error;
}

Result<json> TurnManager::ProgramTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                      const json& prepared, const ProgramPreset& preset, double timeout) {
  PULSE_ASSIGN_OR_RETURN(TurnKind kind, ParseTurnKind(ticket.kind));
  ProgramRun run;
  run.preset = &preset;
  run.flag = "--runner";
  run.role = "runner";
  run.workflow = ticket.workflow;
  run.workflow_dir = oc.paths().dir;
  // A turn in Pulse's conversation goes on with the program's session of
  // the generation (schedule-goallead--...-gN); other turns start one each.
  const json conversation = JGet(prepared, "conversation", json());
  run.conversation = JStr(conversation, "restored_conversation_session_id");
  run.system_prompt = JStr(prepared, "charter") + kProgramPreface;
  run.prompt = ProgramPrompt(prepared, request.input);
  run.history = ProgramHistory(prepared);
  run.mcp_url = base_url_ + "mcp";
  run.env = {{kProgramTokenEnv, ticket.token},
             {"PULSE_SESSION", ticket.session},
             {"PULSE_WORKFLOW", ticket.workflow},
             {"PULSE_TURN", ticket.kind},
             {"PULSE_RUN_ID", ticket.pulse_run_id}};
  run.timeout = timeout;
  ProgramRunResult r = RunProgram(options_, *env_, *oc.ctx.db, run, &stopping_);
  AddTurnTokens(r.reply.tokens_in, r.reply.tokens_out);
  std::string state;
  const std::string error = ProgramRunError(r, preset, timeout, &state);
  json out = {{"result", error.empty() ? r.reply.text : ""},
              {"program", preset.name},
              {"tokens_in", r.reply.tokens_in},
              {"tokens_out", r.reply.tokens_out},
              {"resumed", r.resumed}};
  if (!r.reply.session_id.empty()) out["program_session"] = r.reply.session_id;
  if (!error.empty()) out["error"] = error;
  if (!state.empty()) out["state"] = state;
  std::vector<std::string> notes;
  if (error.empty()) {
    ModelSpec spec;
    spec.provider = preset.kind == ProgramKind::kClaude ? ModelProvider::kAnthropic : ModelProvider::kOpenAi;
    Result<ProgramModel> model = ProgramModelFromFlags(preset, options_.model);
    spec.name = model.ok() && !model->name.empty() ? model->name : r.reply.model;
    if (!spec.name.empty()) {
      std::optional<double> usd = RecordTurnCost(oc.ctx, options_.workspace, spec, r.reply.tokens_in,
                                                 r.reply.tokens_out, &notes);
      if (usd) out["usd"] = *usd;
    }
    out["reply_stored"] = StoreTurnReply(oc.ctx, kind, request.input, r.reply.text, ticket.pulse_run_id,
                                         spec.name.empty() ? std::string(preset.name) : spec.Id(), &notes);
  }
  for (const std::string& n : notes) spdlog::warn("{}: turn {}: {}", ticket.workflow, ticket.pulse_run_id, n);
  return out;
}

}  // namespace pulse::serve
