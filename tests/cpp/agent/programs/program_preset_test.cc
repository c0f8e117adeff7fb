// The preset programs (agent/programs/program_preset.h): the arguments and
// configuration that leave the program only Pulse's MCP tools, the token
// kept out of every argument and file, telemetry off, resume, and the
// program's output read as hostile input.
#include "agent/programs/program_preset.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace pulse {
namespace {

using nlohmann::json;

const ProgramPreset& Claude() { return *FindProgramPreset("claude"); }
const ProgramPreset& Codex() { return *FindProgramPreset("codex"); }

ProgramTurn Turn(const std::string& resume = "") {
  ProgramTurn t;
  t.program = "/opt/agents/bin/prog";
  t.files_dir = "/ws/Workflow/substack/pulse/programs/x-runner";
  t.home = t.files_dir + "/home";
  t.mcp_url = "http://127.0.0.1:8080/mcp";
  t.resume = resume;
  return t;
}

bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// The value after `flag` in argv ("" when absent).
std::string After(const std::vector<std::string>& argv, const std::string& flag) {
  auto it = std::find(argv.begin(), argv.end(), flag);
  return it == argv.end() || it + 1 == argv.end() ? "" : *(it + 1);
}

std::string Joined(const ProgramInvocation& inv) {
  std::string all;
  for (const std::string& a : inv.argv) all += a + "\n";
  for (const auto& [k, v] : inv.files) all += k + "\n" + v + "\n";
  for (const auto& [k, v] : inv.env) all += k + "=" + v + "\n";
  return all;
}

TEST(ProgramPreset, NamesArePresetsAndAnythingElseIsACommand) {
  ASSERT_NE(FindProgramPreset("claude"), nullptr);
  ASSERT_NE(FindProgramPreset("codex"), nullptr);
  EXPECT_EQ(FindProgramPreset("claude")->kind, ProgramKind::kClaude);
  EXPECT_EQ(FindProgramPreset("codex")->kind, ProgramKind::kCodex);
}

TEST(ProgramPreset, OnlyExactNames) {
  EXPECT_EQ(FindProgramPreset("claude "), nullptr);
  EXPECT_EQ(FindProgramPreset("Claude"), nullptr);
  EXPECT_EQ(FindProgramPreset("claude -p"), nullptr);
  EXPECT_EQ(FindProgramPreset("./claude"), nullptr);
  EXPECT_EQ(FindProgramPreset(""), nullptr);
}

TEST(ProgramPreset, MissingProgramIsOneLineNamingItAndHowToInstall) {
  const std::string m = ProgramMissingMessage(Claude(), "--runner");
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_NE(m.find("--runner claude"), std::string::npos);
  EXPECT_NE(m.find("Claude Code is not installed"), std::string::npos);
  EXPECT_NE(m.find("npm install -g @anthropic-ai/claude-code@2.1.332"), std::string::npos);
  EXPECT_NE(ProgramMissingMessage(Codex(), "--builder").find("npm install -g @openai/codex@0.171.0"), std::string::npos);
}

TEST(ProgramPreset, ClaudeHasOnlyPulsesMcpAndNoToolOfItsOwn) {
  ProgramInvocation inv = BuildProgramInvocation(Claude(), Turn(), "You are Pulse.");
  const auto& a = inv.argv;
  EXPECT_EQ(a[0], "/opt/agents/bin/prog");
  EXPECT_TRUE(Has(a, "--print"));
  EXPECT_EQ(After(a, "--output-format"), "stream-json");
  EXPECT_TRUE(Has(a, "--bare"));
  EXPECT_EQ(After(a, "--tools"), "");  // no built-in tool at all
  EXPECT_TRUE(Has(a, "--strict-mcp-config"));
  EXPECT_EQ(After(a, "--allowedTools"), "mcp__pulse");
  EXPECT_EQ(After(a, "--permission-mode"), "dontAsk");
  EXPECT_EQ(After(a, "--system-prompt-file"), Turn().files_dir + "/system-prompt.md");
  EXPECT_EQ(inv.files.at("system-prompt.md"), "You are Pulse.");
  const json mcp = json::parse(inv.files.at("mcp.json"));
  EXPECT_EQ(mcp["mcpServers"].size(), 1u);
  EXPECT_EQ(mcp["mcpServers"]["pulse"]["url"], "http://127.0.0.1:8080/mcp");
  // The token is named, never written: Claude Code expands ${MCP_API_TOKEN}.
  EXPECT_EQ(mcp["mcpServers"]["pulse"]["headers"]["Authorization"], "Bearer ${MCP_API_TOKEN}");
  EXPECT_EQ(After(a, "--mcp-config"), Turn().files_dir + "/mcp.json");
  EXPECT_FALSE(Has(a, "--resume"));
  EXPECT_EQ(inv.env.at("HOME"), Turn().home);
  EXPECT_EQ(inv.env.at("CLAUDE_CONFIG_DIR"), Turn().home + "/.claude");
}

TEST(ProgramPreset, TelemetryAndUpdatesAreOff) {
  ProgramInvocation claude = BuildProgramInvocation(Claude(), Turn(), "c");
  for (const char* var : {"DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING", "DISABLE_AUTOUPDATER",
                          "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"}) {
    EXPECT_EQ(claude.env.at(var), "1") << var;
  }
  ProgramInvocation codex = BuildProgramInvocation(Codex(), Turn(), "c");
  EXPECT_TRUE(Has(codex.argv, "analytics.enabled=false"));
  EXPECT_TRUE(Has(codex.argv, "check_for_update_on_startup=false"));
}

TEST(ProgramPreset, CodexHasOnlyPulsesMcpAndNoToolOfItsOwn) {
  ProgramInvocation inv = BuildProgramInvocation(Codex(), Turn(), "You are Pulse.");
  const auto& a = inv.argv;
  EXPECT_EQ(a[1], "exec");
  EXPECT_TRUE(Has(a, "--json"));
  // The home's config.toml is not read (the program may write its home),
  // and a setting this version does not know is an error, not ignored.
  EXPECT_TRUE(Has(a, "--ignore-user-config"));
  EXPECT_TRUE(Has(a, "--strict-config"));
  for (const char* off : {"features.shell_tool=false", "features.view_image=false", "web_search=\"disabled\"",
                          "agents.enabled=false", "features.apps=false", "features.plugins=false",
                          "sandbox_mode=\"read-only\"", "approval_policy=\"never\"", "project_doc_max_bytes=0"}) {
    EXPECT_TRUE(Has(a, off)) << off;
  }
  const std::string mcp = "mcp_servers.pulse={url=\"http://127.0.0.1:8080/mcp\", bearer_token_env_var=\"MCP_API_TOKEN\", "
                          "default_tools_approval_mode=\"approve\", required=true}";
  EXPECT_TRUE(Has(a, mcp));
  EXPECT_TRUE(Has(a, "model_instructions_file=\"" + Turn().files_dir + "/system-prompt.md\""));
  EXPECT_EQ(a.back(), "-");  // the prompt on stdin
  EXPECT_EQ(inv.env.at("CODEX_HOME"), Turn().home + "/.codex");
  EXPECT_EQ(inv.keys.at("OPENAI_API_KEY"), "OPENAI_API_KEY");
}

TEST(ProgramPreset, ModelFlagsReachTheProgram) {
  ProgramTurn t = Turn();
  t.model = {"gpt-test", "http://127.0.0.1:9/v1", "MY_KEY"};
  ProgramInvocation codex = BuildProgramInvocation(Codex(), t, "c");
  EXPECT_TRUE(Has(codex.argv, "model=\"gpt-test\""));
  EXPECT_TRUE(Has(codex.argv, "model_providers.pulse={name=\"pulse\", base_url=\"http://127.0.0.1:9/v1\", "
                              "env_key=\"MY_KEY\", wire_api=\"responses\"}"));
  EXPECT_EQ(codex.keys.at("MY_KEY"), "MY_KEY");
  t.model = {"claude-test", "http://127.0.0.1:9", "MY_KEY"};
  ProgramInvocation claude = BuildProgramInvocation(Claude(), t, "c");
  EXPECT_EQ(After(claude.argv, "--model"), "claude-test");
  EXPECT_EQ(claude.env.at("ANTHROPIC_BASE_URL"), "http://127.0.0.1:9");
  EXPECT_EQ(claude.keys.at("ANTHROPIC_API_KEY"), "MY_KEY");  // read from MY_KEY, given as Claude Code's own
  EXPECT_EQ(ProgramKeyVariables(Claude(), t.model), std::vector<std::string>{"MY_KEY"});
  EXPECT_EQ(ProgramKeyVariables(Codex(), ProgramModel()), std::vector<std::string>{"OPENAI_API_KEY"});
}

TEST(ProgramPreset, ModelFlagsMustNameTheProgramsProvider) {
  ModelFlags f;
  f.model = "openai:gpt-4o";
  Result<ProgramModel> m = ProgramModelFromFlags(Claude(), f);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("Claude Code speaks anthropic"), std::string::npos);
  f.model = "anthropic:claude-x";
  f.url = "http://127.0.0.1:5";
  m = ProgramModelFromFlags(Claude(), f);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->name, "claude-x");
  EXPECT_EQ(m->url, "http://127.0.0.1:5");
  // No --model: the program's own model, the vendor's URL.
  EXPECT_TRUE(ProgramModelFromFlags(Codex(), ModelFlags()).value().name.empty());
}

TEST(ProgramPreset, TheTokenIsInNoArgumentNorFile) {
  for (const ProgramPreset* p : {&Claude(), &Codex()}) {
    const std::string all = Joined(BuildProgramInvocation(*p, Turn("0f5d1c3a-1111-2222-3333-444455556666"), "sys"));
    EXPECT_NE(all.find("MCP_API_TOKEN"), std::string::npos) << p->name;  // named
    EXPECT_EQ(all.find("Bearer ey"), std::string::npos);
  }
}

TEST(ProgramPreset, ResumeGoesOnWithTheSession) {
  const std::string id = "0f5d1c3a-1111-2222-3333-444455556666";
  ProgramInvocation claude = BuildProgramInvocation(Claude(), Turn(id), "c");
  EXPECT_EQ(After(claude.argv, "--resume"), id);
  ProgramInvocation codex = BuildProgramInvocation(Codex(), Turn(id), "c");
  EXPECT_EQ(codex.argv[2], "resume");
  EXPECT_EQ(codex.argv[codex.argv.size() - 2], id);
}

TEST(ProgramPreset, ConfigurationValuesAreQuotedAsToml) {
  ProgramTurn t = Turn();
  t.files_dir = "/ws/a\"b\\c";
  ProgramInvocation codex = BuildProgramInvocation(Codex(), t, "c");
  EXPECT_TRUE(Has(codex.argv, "model_instructions_file=\"/ws/a\\\"b\\\\c/system-prompt.md\""));
}

std::string ClaudeOut(const std::string& result_line, const std::string& mcp_status = "connected") {
  return json{{"type", "system"}, {"subtype", "init"}, {"session_id", "s"}, {"model", "claude-test"},
              {"mcp_servers", json::array({{{"name", "pulse"}, {"status", mcp_status}}})}}.dump() +
         "\n" + result_line + "\n";
}

std::string ClaudeResult(const std::string& text, const std::string& session = "0f5d1c3a-1111-2222-3333-444455556666") {
  return json{{"type", "result"}, {"subtype", "success"}, {"is_error", false}, {"result", text}, {"session_id", session},
              {"usage", {{"input_tokens", 1200}, {"cache_read_input_tokens", 300}, {"output_tokens", 80}}}}.dump();
}

TEST(ProgramPreset, ClaudesAnswerAndSessionAreRead) {
  ProgramReply r = ParseProgramOutput(Claude(), ClaudeOut(ClaudeResult("All on track.")), "", 0, "");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.text, "All on track.");
  EXPECT_EQ(r.session_id, "0f5d1c3a-1111-2222-3333-444455556666");
  EXPECT_EQ(r.tokens_in, 1500);
  EXPECT_EQ(r.tokens_out, 80);
  EXPECT_EQ(r.model, "claude-test");
}

TEST(ProgramPreset, ClaudeWithoutPulsesMcpFailsTheTurn) {
  ProgramReply r = ParseProgramOutput(Claude(), ClaudeOut(ClaudeResult("I did it my way."), "failed"), "", 0, "");
  EXPECT_NE(r.error.find("could not reach Pulse's MCP"), std::string::npos);
  EXPECT_EQ(r.text, "");
}

TEST(ProgramPreset, ClaudesErrorIsTheTurnsError) {
  std::string line = json{{"type", "result"}, {"subtype", "error_max_turns"}, {"is_error", true}, {"result", "x\ny"},
                          {"session_id", "abc"}}.dump();
  ProgramReply r = ParseProgramOutput(Claude(), ClaudeOut(line), "", 1, "");
  EXPECT_NE(r.error.find("Claude Code ended the turn with error_max_turns"), std::string::npos);
  EXPECT_EQ(r.error.find('\n'), std::string::npos);
  EXPECT_EQ(r.text, "");
}

TEST(ProgramPreset, HostileOutputIsBoundedAndChecked) {
  // A session id that is not one is not kept (nor ever passed back).
  for (const std::string bad : std::vector<std::string>{"../../etc", "a b", std::string(200, 'a'), "-rf", "", "id\n--tools default"}) {
    ProgramReply r = ParseProgramOutput(Claude(), ClaudeOut(ClaudeResult("ok", bad)), "", 0, "");
    EXPECT_EQ(r.session_id, "") << bad;
    EXPECT_EQ(r.error, "") << bad;
  }
  // Counts that are not counts are zero.
  std::string line = json{{"type", "result"}, {"subtype", "success"}, {"result", "ok"}, {"session_id", "abc"},
                          {"usage", {{"input_tokens", -5}, {"output_tokens", 1e300}}}}.dump();
  ProgramReply r = ParseProgramOutput(Claude(), line, "", 0, "");
  EXPECT_EQ(r.tokens_in, 0);
  EXPECT_EQ(r.tokens_out, 0);
  // A long reply keeps its head and its end (where an ask's decision lines are).
  std::string long_text = std::string(20000, 'a') + "\ndecision: yes";
  r = ParseProgramOutput(Claude(), ClaudeOut(ClaudeResult(long_text)), "", 0, "");
  EXPECT_LE(r.text.size(), 4000u);
  EXPECT_NE(r.text.find("decision: yes"), std::string::npos);
  // Bytes that are not UTF-8 are repaired; lines that are not JSON, or nest
  // too deep, are skipped and counted.
  std::string deep = "{\"a\":" + std::string(200, '[') + std::string(200, ']') + "}";
  const std::string broken = "{\"type\":\"result\",\"subtype\":\"success\",\"result\":\"caf\xC3\",\"session_id\":\"abc\"}";
  r = ParseProgramOutput(Claude(), "warning: x\n" + deep + "\n" + ClaudeOut(broken), "", 0, "");
  EXPECT_EQ(r.text, "caf\xEF\xBF\xBD");
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("2 line(s)"), std::string::npos);
  // Nothing at all.
  r = ParseProgramOutput(Claude(), "", "boom\nbad thing", 3, "");
  EXPECT_EQ(r.error, "Claude Code gave no result (exit status 3): boom bad thing");
}

TEST(ProgramPreset, AMissingSessionIsToldApart) {
  const std::string id = "11111111-2222-3333-4444-555555555555";
  ProgramReply r = ParseProgramOutput(Claude(), "", "No conversation found with session ID: " + id + "\n", 1, id);
  EXPECT_TRUE(r.session_missing);
  r = ParseProgramOutput(Claude(), "", "Error: model unavailable\n", 1, id);
  EXPECT_FALSE(r.session_missing);
  // A run that started (its events name the session) and then failed is not
  // a missing session, whatever it printed.
  std::string started = json{{"type", "system"}, {"subtype", "init"}, {"session_id", id}}.dump() + "\n";
  r = ParseProgramOutput(Claude(), started, "API Error: 500 for session " + id + "\n", 1, id);
  EXPECT_FALSE(r.session_missing);
  EXPECT_NE(r.error.find("Claude Code gave no result (exit status 1)"), std::string::npos) << r.error;
  r = ParseProgramOutput(Codex(), "", "Error: thread/resume: no rollout found for thread id " + id + "\n", 1, id);
  EXPECT_TRUE(r.session_missing);
}

std::string CodexLine(const json& j) { return j.dump() + "\n"; }

TEST(ProgramPreset, CodexsAnswerAndThreadAreRead) {
  std::string out = CodexLine({{"type", "thread.started"}, {"thread_id", "01a249ef-e92c-7993-af41-e8d63ad8ff1c"}}) +
                    CodexLine({{"type", "turn.started"}}) +
                    CodexLine({{"type", "item.completed"}, {"item", {{"type", "agent_message"}, {"text", "Looking."}}}}) +
                    CodexLine({{"type", "item.completed"}, {"item", {{"type", "mcp_tool_call"}, {"tool", "x"}}}}) +
                    CodexLine({{"type", "item.completed"}, {"item", {{"type", "agent_message"}, {"text", "Done."}}}}) +
                    CodexLine({{"type", "turn.completed"}, {"usage", {{"input_tokens", 2000}, {"output_tokens", 200}}}});
  ProgramReply r = ParseProgramOutput(Codex(), out, "WARNING: proceeding\n", 0, "");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.text, "Done.");  // the last message is the answer
  EXPECT_EQ(r.session_id, "01a249ef-e92c-7993-af41-e8d63ad8ff1c");
  EXPECT_EQ(r.tokens_in, 2000);
  EXPECT_EQ(r.tokens_out, 200);
  // A resumed thread keeps its id.
  r = ParseProgramOutput(Codex(), out.substr(out.find('\n') + 1), "", 0, "01a249ef-aaaa");
  EXPECT_EQ(r.session_id, "01a249ef-aaaa");
}

TEST(ProgramPreset, CodexsFailureIsTheTurnsError) {
  std::string out = CodexLine({{"type", "thread.started"}, {"thread_id", "t1"}}) +
                    CodexLine({{"type", "turn.failed"}, {"error", {{"message", "unexpected status 500"}}}});
  ProgramReply r = ParseProgramOutput(Codex(), out, "", 1, "");
  EXPECT_EQ(r.error, "Codex's turn failed: unexpected status 500");
  EXPECT_EQ(r.text, "");
  r = ParseProgramOutput(Codex(), "", "Error: required MCP servers failed to initialize: pulse\n", 1, "");
  EXPECT_EQ(r.error, "Codex gave no answer (exit status 1): Error: required MCP servers failed to initialize: pulse");
}

TEST(ProgramPreset, InstallFolders) {
  EXPECT_EQ(ProgramInstallFolder("/c/node_modules/@anthropic-ai/claude-code/bin/claude.exe"), "/c/node_modules/@anthropic-ai");
  EXPECT_EQ(ProgramInstallFolder("/usr/lib/node_modules/@openai/codex/bin/codex.js"), "/usr/lib/node_modules/@openai");
  EXPECT_EQ(ProgramInstallFolder("/x/node_modules/tool/cli.js"), "/x/node_modules/tool");
  EXPECT_EQ(ProgramInstallFolder("/home/a/.local/share/claude/versions/2.1.332"), "/home/a/.local/share/claude/versions");
  EXPECT_EQ(ProgramInstallFolder("/opt/codex/bin/codex"), "/opt/codex");
  EXPECT_EQ(ProgramInstallFolder("/usr/local/bin/codex"), "/usr/local/bin");
}

TEST(ProgramPreset, SessionIds) {
  EXPECT_TRUE(IsProgramSessionId("0f5d1c3a-1111-2222-3333-444455556666"));
  EXPECT_TRUE(IsProgramSessionId("abc_1"));
  EXPECT_FALSE(IsProgramSessionId("-abc"));
  EXPECT_FALSE(IsProgramSessionId("a/b"));
  EXPECT_FALSE(IsProgramSessionId(std::string(129, 'a')));
}

TEST(ProgramPreset, BuilderPromptsSayWhatIsHeld) {
  json q = {{"workflow", "substack"}, {"turn", "builder_question"}, {"kind", "question"},
            {"message", "Why did the step change?"}, {"held_reason", "builder_question: Run, Outward and Change held"},
            {"why", "the metric"}};
  EXPECT_NE(BuilderProgramCharter(q).find("Builder chat of workflow \"substack\""), std::string::npos);
  EXPECT_NE(BuilderProgramCharter(q).find("Run, Outward and Change held"), std::string::npos);
  const std::string p = BuilderProgramPrompt(q);
  EXPECT_NE(p.find("Why did the step change?"), std::string::npos);
  EXPECT_NE(p.find("why: the metric"), std::string::npos);
}

TEST(ProgramPreset, ANewSessionGetsTheConversationSoFarAsText) {
  json prepared = {{"conversation",
                    {{"transcript",
                      json::array({{{"id", 1}, {"turn", "charter"}, {"caller", "platform"}, {"text", "charter"}, {"reply", ""}, {"state", "completed"}},
                                   {{"id", 2}, {"turn", "goal_check"}, {"caller", "tick"}, {"text", "PULSE TURN goal_check"},
                                    {"reply", "Not measured."}, {"state", "completed"}}})}}}};
  const std::string h = ProgramHistory(prepared);
  EXPECT_NE(h.find("[turn] PULSE TURN goal_check"), std::string::npos);
  EXPECT_NE(h.find("[your reply] Not measured."), std::string::npos);
  EXPECT_EQ(h.find("charter"), std::string::npos);
  EXPECT_EQ(ProgramHistory(json::object()), "");
}

}  // namespace
}  // namespace pulse
