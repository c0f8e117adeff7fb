#include "server-shim/cli/cli.h"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <vector>

#include "agent/programs/program_preset.h"
#include "agent/tools/agent_api.h"
#include <algorithm>

#include "core/api/api.h"
#include "core/attention/attention.h"
#include "core/base/one_line.h"
#include "core/base/time_util.h"
#include "server-shim/http/loopback_mcp.h"
#include "server-shim/turns/sandbox.h"

namespace pulse::cli {

CLI::Validator FiniteRange(double min, double max) {
  CLI::Range range(min, max);
  return CLI::Validator(
      [range](std::string& in) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(in, v) || !std::isfinite(v)) return "Value " + in + " is not a finite number";
        return range(in);
      },
      range.get_description());
}

namespace {
std::vector<std::pair<const char*, CommandSetup>>& Registry() {
  static std::vector<std::pair<const char*, CommandSetup>> r;
  return r;
}
}  // namespace

CommandRegistrar::CommandRegistrar(const char* name, CommandSetup setup) { Registry().push_back({name, setup}); }

void AddModelOptions(CLI::App* sub, ModelFlags& flags) {
  sub->add_option("--model", flags.model,
                  "a model thinks for Pulse's turns: openai:NAME (Chat Completions with tools: OpenAI, Ollama, "
                  "llama.cpp, vLLM, LM Studio) or anthropic:NAME (the Messages API); default: the built-in rules "
                  "runner (docs/models.md)");
  sub->add_option("--model-url", flags.url,
                  "the API's base URL (openai: up to /v1, e.g. http://127.0.0.1:11434/v1 for Ollama; anthropic: the "
                  "host); default the vendor's");
  sub->add_option("--model-key-env", flags.key_env,
                  "the environment variable holding the key (default OPENAI_API_KEY / ANTHROPIC_API_KEY); unset: "
                  "no auth header");
  sub->add_option("--model-max-steps", flags.max_steps, "tool round trips in one turn (default 16); past it the turn "
                                                        "fails with \"step cap\"")
      ->check(CLI::Range(1, 256));
  sub->add_option("--model-timeout", flags.timeout, "seconds per model request (default 120)")
      ->check(FiniteRange(0.1, 3600.0));
}

Status CheckTurnFlags(const ModelFlags& model, const std::string& runner) {
  const ProgramPreset* preset = FindProgramPreset(runner);
  if (!model.model.empty() && !runner.empty() && !preset) {
    return Status::InvalidArgument("--runner and --model both say what thinks for the turns; give one (with --runner "
                                   "claude or codex, --model names the program's model)");
  }
  PULSE_RETURN_IF_ERROR(CheckModelFlags(model));
  if (preset) PULSE_RETURN_IF_ERROR(ProgramModelFromFlags(*preset, model).status());
  return Status::OK();
}

Status ServeRunnerMcp(Env* env, const serve::ServeOptions& options, const std::string& workflow,
                      serve::TurnManager& turns, std::unique_ptr<serve::LoopbackMcp>* mcp) {
  if (options.runner.empty()) return Status::OK();
  PULSE_ASSIGN_OR_RETURN(*mcp, serve::LoopbackMcp::Start(env, options, workflow));
  turns.SetBaseUrl((*mcp)->base_url());
  return Status::OK();
}

void AddCommonOptions(CLI::App* sub, State& state, bool needs_workflow) {
  sub->add_option("--workspace", state.globals.workspace, "the workspace directory (holds Workflow/)")->required();
  if (needs_workflow) {
    sub->add_option("--workflow", state.globals.workflow, "the workflow's slug (its folder under Workflow/)")
        ->required();
  }
  CLI::Option* now = sub->add_option("--now", state.globals.now, "evaluate as of this RFC 3339 time (default: the clock)");
  sub->add_option("--now-file", state.globals.now_file, "read that time from this file (as pulse serve --now-file)")
      ->excludes(now);
  sub->add_flag("--json", state.globals.json, "print one JSON document");
}

void AddSandboxOptions(CLI::App* sub, serve::SandboxOptions& s) {
  sub->add_option("--sandbox-allow-write", s.allow_write,
                  "a path runners may write besides their workflow's pulse/work/ and their temp dir; repeatable")
      ->allow_extra_args(false);
  sub->add_option("--sandbox-allow-read", s.allow_read,
                  "a path runners may read besides the system's and their workflow folder's (db/ excluded); repeatable")
      ->allow_extra_args(false);
  sub->add_option("--runner-user", s.runner_user,
                  "the user runners run as when pulse runs as root (default nobody; root keeps them root); "
                  "otherwise runners run as pulse's own user");
  sub->add_option("--runner-tracking", s.tracking,
                  "how everything a runner starts is ended with its turn: auto (default: cgroup where pulse can make "
                  "one, else subreaper), cgroup (a cgroup v2 per runner, cgroup.kill) or subreaper (a supervisor "
                  "that kills what the runner leaves)")
      ->check(CLI::IsMember({"auto", "cgroup", "subreaper"}));
}

void AddSessionTokenOptions(CLI::App* sub, SessionTokenFlags& t, const char* what) {
  CLI::Option* token = sub->add_option("--token", t.token, std::string(what) +
                                                         " (on a command line every local user can read it: prefer "
                                                         "--token-file or $MCP_API_TOKEN)");
  sub->add_option("--token-file", t.file, "read the session token from this file (its first line)")->excludes(token);
}

Result<std::string> SessionToken(const SessionTokenFlags& t, bool required, bool from_env) {
  if (!t.token.empty()) return t.token;
  if (!t.file.empty()) {
    Result<std::string> text = DefaultEnv()->ReadFile(t.file);
    if (!text.ok()) return Status::InvalidArgument("--token-file: " + text.status().message());
    std::string line = text->substr(0, text->find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) return Status::InvalidArgument("--token-file " + t.file + ": empty");
    return line;
  }
  if (const char* env = std::getenv("MCP_API_TOKEN"); from_env && env && *env) return std::string(env);
  if (required) return Status::InvalidArgument("--token: missing (give --token-file FILE, or set MCP_API_TOKEN)");
  return std::string();
}

Result<Env*> GetEnv(State& state) {
  if (!state.env) {
    int64_t now = DefaultEnv()->NowSeconds();
    std::string text = state.globals.now;
    std::string flag = "--now";
    if (state.clock.empty()) state.clock = text.empty() ? "the system clock" : "--now";
    if (!state.globals.now_file.empty()) {
      Result<std::string> file = DefaultEnv()->ReadFile(state.globals.now_file);
      if (!file.ok()) return Status::InvalidArgument("--now-file " + state.globals.now_file + ": " + file.status().message());
      text = *file;
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
      flag = "--now-file " + state.globals.now_file;
      if (state.clock == "the system clock") state.clock = flag;
    }
    if (!text.empty()) {
      Result<int64_t> t = ParseTime(text);
      if (!t.ok()) return Status::InvalidArgument(flag + ": " + t.status().message());
      now = *t;
    }
    state.env = std::make_unique<FixedClockEnv>(DefaultEnv(), now);
  }
  return static_cast<Env*>(state.env.get());
}

Result<Env*> GetJudgingEnv(State& state) {
  const std::string demo = state.globals.workspace + "/.pulse/demo-now";
  if (!state.env && state.globals.now.empty() && state.globals.now_file.empty() && DefaultEnv()->FileExists(demo)) {
    state.globals.now_file = demo;
    state.clock = "the demo clock in " + demo;
  }
  return GetEnv(state);
}

std::string ClockLine(const State& state) {
  const std::string at = state.env ? FormatTime(state.env->NowSeconds()) : "";
  if (state.clock.rfind("the demo clock in ", 0) == 0) {
    return "On the demo clock: " + at + " (" + state.clock.substr(18) + "; --now for another time, or delete the file).";
  }
  if (state.clock == "the system clock") return "On the system clock: " + at + ".";
  return "At a set time: " + at + " (" + state.clock + ").";
}

Status CheckWorkspace(Env& env, const std::string& workspace) {
  if (!env.IsDirectory(workspace)) return Status::NotFound(workspace + ": workspace directory does not exist");
  // A workflow's own folder given as the workspace (…/Workflow/substack).
  if (env.FileExists(workspace + "/workflow.json") && !env.IsDirectory(workspace + "/Workflow")) {
    std::string dir = workspace;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    const size_t slash = dir.rfind('/');
    const std::string name = slash == std::string::npos ? dir : dir.substr(slash + 1);
    const std::string parent = slash == std::string::npos ? "." : dir.substr(0, slash);
    const std::string suffix = "/Workflow";
    const bool nested = parent.size() >= suffix.size() && parent.compare(parent.size() - suffix.size(), suffix.size(), suffix) == 0;
    const std::string ws = nested ? (parent.size() == suffix.size() ? "." : parent.substr(0, parent.size() - suffix.size())) : "WORKSPACE";
    return Status::InvalidArgument("--workspace " + workspace + ": this is a workflow's folder (it holds workflow.json), not a workspace; use --workspace " +
                                   ws + " --workflow " + name);
  }
  return Status::OK();
}

Result<std::unique_ptr<WorkflowHandle>> OpenFromFlags(State& state) {
  PULSE_ASSIGN_OR_RETURN(Env * env, GetEnv(state));
  PULSE_RETURN_IF_ERROR(CheckWorkspace(*env, state.globals.workspace));
  std::string folder = state.globals.workspace + "/Workflow/" + state.globals.workflow;
  if (ValidateWorkflowName(state.globals.workflow).ok() && !env->IsDirectory(folder)) {
    Result<std::vector<std::string>> names = ListWorkflows(*env, state.globals.workspace);
    std::string known;
    if (names.ok()) {
      for (const std::string& n : *names) known += (known.empty() ? "" : ", ") + n;
    }
    return Status::NotFound("--workflow " + state.globals.workflow + ": no such workflow in " + state.globals.workspace +
                            (known.empty() ? " (it has no workflows under Workflow/)" : " (the workflows: " + known + ")"));
  }
  return WorkflowHandle::Open(*env, state.globals.workspace, state.globals.workflow);
}

int StatusRank(const std::string& status) {
  static const char* kOrder[] = {"off_track", "not_measured", "at_risk", "on_track", "no_goal"};
  for (int i = 0; i < 5; ++i) {
    if (status == kOrder[i]) return i + 1;
  }
  return 0;  // a workflow that could not be checked comes first
}

Result<std::vector<std::string>> ParseFailOn(const std::string& list) {
  std::vector<std::string> known = {"off_track", "not_measured", "at_risk", "on_track", "no_goal"};
  for (int i = 0; i < kAttentionKindCount; ++i) known.push_back(AttentionKindName(static_cast<AttentionKind>(i)));
  std::string all;
  for (const std::string& k : known) all += (all.empty() ? "" : ", ") + k;
  if (list.empty()) {
    return Status::InvalidArgument("--fail-on: empty; give goal statuses or attention kinds, comma-separated (" + all + ")");
  }
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) return Status::InvalidArgument("--fail-on: \"" + list + "\" has an empty item");
    if (std::find(known.begin(), known.end(), item) == known.end()) {
      std::string near = Nearest(item, known);
      return Status::InvalidArgument("--fail-on: \"" + item + "\" is not a goal status or an attention kind" +
                                     (near.empty() ? "" : "; did you mean \"" + near + "\"?") + " (" + all + ")");
    }
    out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string FailOnReason(const nlohmann::json& doc, const std::vector<std::string>& fail_on) {
  auto listed = [&](const std::string& name) { return std::find(fail_on.begin(), fail_on.end(), name) != fail_on.end(); };
  const std::string status = doc.value("status", std::string());
  if (listed(status)) return "is " + status;
  std::string kinds;
  for (const nlohmann::json& item : doc.value("attention", nlohmann::json::array())) {
    const std::string kind = item.value("kind", std::string());
    if (!item.value("snoozed", false) && listed(kind) && kinds.find(kind) == std::string::npos) {
      kinds += (kinds.empty() ? "" : ", ") + kind;
    }
  }
  return kinds.empty() ? "" : "needs attention: " + kinds;
}

int Fail(const Status& status) {
  std::cerr << "pulse: " << BoundedReason(status.message()) << std::endl;
  switch (status.code()) {
    case Code::kRefused:
    case Code::kConflict:
    case Code::kBusy:
      return 1;
    default:
      return 2;
  }
}

std::optional<nlohmann::json> CallOnWorkflow(State& state, const char* method, const nlohmann::json& args) {
  Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
  if (!w.ok()) {
    state.exit_code = Fail(w.status());
    return std::nullopt;
  }
  ApiContext ctx = ServerContext(**w);
  Result<nlohmann::json> out = CallApi(ctx, method, args);
  if (!out.ok()) {
    state.exit_code = Fail(out.status());
    return std::nullopt;
  }
  return *out;
}

std::string JsonText(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : (v.is_null() ? "" : v.dump());
}

void PrintJson(const nlohmann::json& doc) { std::cout << doc.dump(2) << std::endl; }

void SetupAll(CLI::App& app, State& state) {
  for (auto& [name, setup] : Registry()) setup(app, state);
}

}  // namespace pulse::cli
