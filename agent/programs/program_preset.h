// The coding-agent programs Pulse can drive as its runner or as the Builder
// chat: `--runner claude|codex`, `--builder claude|codex` are names of these
// presets, not shell commands. For each turn Pulse runs the real program
// headless (Claude Code's `claude -p`, Codex's `codex exec`) with:
//   - the turn's charter as its system prompt and the turn's message and
//     context as its prompt (on stdin, never in the argument list);
//   - Pulse's /mcp as its only MCP server, the turn's session token in the
//     environment only (MCP_API_TOKEN; the configuration names the variable);
//   - its own tools off (shell, file edits, web, images, sub-agents), so every
//     action is a guarded Pulse tool call;
//   - telemetry and update checks off through the programs' own settings;
//   - its session resumed when Pulse's conversation already has one.
// Its JSON output is hostile input: parsed line by line with the bounded
// parser, the session id kept only when it looks like one, numbers checked.
//
// This module is the rules (arguments, configuration, output); the server
// runs the process (server-shim/turns/program_run.cc).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/model/model_spec.h"
#include "core/base/status.h"

namespace pulse {

enum class ProgramKind { kClaude, kCodex };

struct ProgramPreset {
  ProgramKind kind;
  const char* name;      // the flag's value: "claude", "codex"
  const char* title;     // "Claude Code", "Codex"
  const char* binary;    // looked up on the server's PATH
  const char* package;   // the npm package that installs it
  const char* version;   // the version Pulse's tests run
  const char* provider;  // the --model provider it speaks: "anthropic", "openai"
};

// The preset `value` names, or nullptr (then `value` is a shell command).
const ProgramPreset* FindProgramPreset(const std::string& value);

// One line for a program that is not installed: what is missing, where it
// was looked for, and how to install it. `flag` is "--runner" or "--builder".
std::string ProgramMissingMessage(const ProgramPreset& preset, const std::string& flag);

// The model the program thinks with, from --model/--model-url/--model-key-env
// when given with a preset (else the program's own default model, the
// vendor's URL and its usual key variable).
struct ProgramModel {
  std::string name;     // "" : the program's default
  std::string url;      // "" : the vendor's (anthropic: the host; openai: up to /v1)
  std::string key_env;  // "" : ANTHROPIC_API_KEY / OPENAI_API_KEY
};

// The model flags given with a preset (--runner claude --model
// anthropic:NAME ...): the program is driven with that model, URL and key.
// InvalidArgument naming --model when it names the provider the program does
// not speak (Claude Code: anthropic; Codex: openai, the Responses API).
Result<ProgramModel> ProgramModelFromFlags(const ProgramPreset& preset, const ModelFlags& flags);

// One run of the program.
struct ProgramTurn {
  std::string program;        // the program's path (found on PATH)
  std::string files_dir;      // Pulse's folder for the turn's files (the runner reads it, never writes it)
  std::string home;           // the program's home: HOME, its config and sessions beneath (the runner writes it)
  std::string mcp_url;        // Pulse's /mcp
  std::string resume;         // the program's session to go on with; "" starts a new one
  ProgramModel model;
};

// What the server does to run it.
struct ProgramInvocation {
  std::vector<std::string> argv;              // argv[0] is the program
  std::map<std::string, std::string> files;   // name in files_dir -> contents, written before it starts
  std::map<std::string, std::string> env;     // set for it (besides MCP_API_TOKEN and the key)
  // The key: the program's variable -> the server's variable its value is
  // taken from, when that is set (no other child of the server gets it).
  std::map<std::string, std::string> keys;
};

// The server's variables a preset's key may be read from: no other child
// process of the server inherits them.
std::vector<std::string> ProgramKeyVariables(const ProgramPreset& preset, const ProgramModel& model);

// The variable holding the session token the MCP configuration names.
inline constexpr const char* kProgramTokenEnv = "MCP_API_TOKEN";
// The name of Pulse's MCP server in the program's configuration: its tools
// reach the model as mcp__pulse__<tool>.
inline constexpr const char* kProgramMcpServer = "pulse";

// The system prompt file written beside the configuration.
inline constexpr const char* kProgramSystemPromptFile = "system-prompt.md";

// `system_prompt` goes into files_dir/system-prompt.md (a file, so its size
// is no concern of the argument list).
ProgramInvocation BuildProgramInvocation(const ProgramPreset& preset, const ProgramTurn& turn,
                                         const std::string& system_prompt);

// What came back.
struct ProgramReply {
  std::string text;        // the final answer (repaired UTF-8, bounded)
  std::string session_id;  // the program's session, "" when none (or not one)
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  std::string model;       // the model it says it used, when it says so
  std::string error;       // why the turn failed; "" when it did not
  bool session_missing = false;  // asked to resume a session it does not have
  std::vector<std::string> notes;  // what was wrong but did not fail the turn
};

// Reads the program's output: Claude Code's stream-json lines (system init
// with the MCP servers' status, the result line), Codex's --json events
// (thread.started, item.completed agent_message, turn.completed usage,
// turn.failed). `exit_code` is the process's; `resumed` the session it was
// asked to resume ("" when none). A program that did not reach Pulse's MCP
// fails the turn with that reason: without its tools its answer is not Pulse's.
ProgramReply ParseProgramOutput(const ProgramPreset& preset, const std::string& out, const std::string& err,
                                int exit_code, const std::string& resumed);

// A session id as the programs make them (UUIDs): [A-Za-z0-9][A-Za-z0-9_-]*,
// at most 128 bytes. Anything else is not kept nor passed back.
bool IsProgramSessionId(const std::string& id);

// The preface the charter gets for a program: how its tools work.
extern const char* const kProgramPreface;

// The folder a program installed at `real_path` (its real path) needs to
// read: for an npm install (.../node_modules/@scope/pkg/...), the scope's
// folder, which holds the platform package beside it; otherwise the
// program's own folder (the one above bin/, unless that is a system prefix).
std::string ProgramInstallFolder(const std::string& real_path);

// A Pulse turn's prompt for a program, from what a runner reads on stdin
// (`prepared`) and the turn's input: the turn's message (TurnUserText, as a
// model turn's). `ProgramHistory` is what goes before it when the program
// starts a new session in a conversation that already has turns (its own
// session was lost, or a Workflow Review, which has none): the generation's
// transcript as text, newest kept within its budget.
std::string ProgramPrompt(const nlohmann::json& prepared, const nlohmann::json& input);
std::string ProgramHistory(const nlohmann::json& prepared);

// The Builder chat as a program (--builder claude|codex): its system prompt
// and its prompt for one request, from the document an external --builder
// command reads on stdin ({session_id, kind, message, held, held_reason,
// turn, workflow, title?, evidence?, why?, decision_id?}).
std::string BuilderProgramCharter(const nlohmann::json& request);
std::string BuilderProgramPrompt(const nlohmann::json& request);

}  // namespace pulse
