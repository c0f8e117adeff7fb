// Ways an agent tried to get a held call past the guard, each a call the
// guard must decide as the call it imitates: name spellings, wrappers,
// keys and encodings that hide a path, shell text, recipients.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "core/api/api.h"
#include "core/autonomy/autonomy.h"
#include "core/store/schema.h"
#include "core/base/sha256.h"
#include "core/autonomy/tool_catalog.h"
#include "core/autonomy/tool_sessions.h"
#include "core/workflow/workflow_config.h"
#include "tests/cpp/test_util.h"
#include "tests/fuzz/guard_spellings.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::TempDir;

TEST(AutonomyBypass, NameVariantsAndAliasesGetTheSameAnswer) {
  for (bool change_auto : {false, true}) {
    AutonomyLevels levels;
    levels.change = change_auto ? Level::kAuto : Level::kAsk;
    GuardDecision base = DecideToolCall(TurnKind::kGoalWork, levels, false, "update_step", json::object());
    EXPECT_EQ(base.allowed, change_auto);
    for (const char* v : {"UPDATE_STEP", " update_step ", "update-step", "Update Step", "updateStep", "UpdateStep",
                          "\tupdate_step\n", "update__step", "mcp__platform__update_step", "functions.update_step",
                          "mcp__pulse__Update-Step", "\xc2\xa0update_step", "update_step\xe2\x80\x8b",
                          "update_step.", "functions.update_step:"}) {
      GuardDecision d = DecideToolCall(TurnKind::kGoalWork, levels, false, v, json::object());
      EXPECT_EQ(d.allowed, base.allowed) << v;
      EXPECT_EQ(d.rule, base.rule) << v;
      EXPECT_EQ(d.reason, base.reason) << v;
      EXPECT_EQ(d.tool, "update_step") << v;
    }
  }
  AutonomyLevels levels;
  for (TurnKind turn : AllTurnKinds()) {
    GuardDecision canonical = DecideToolCall(turn, levels, false, "ask_pulse", json::object());
    for (const char* alias : {"ask_goal_lead", "Ask-Goal-Lead", "askGoalLead", " ASK_GOAL_LEAD"}) {
      GuardDecision d = DecideToolCall(turn, levels, false, alias, json::object());
      EXPECT_EQ(d.allowed, canonical.allowed) << alias;
      EXPECT_EQ(d.reason, canonical.reason) << alias;
      EXPECT_EQ(d.tool, "ask_pulse");
    }
  }
  EXPECT_EQ(DecideToolCall(TurnKind::kGoalWork, levels, false, "Run-Workflow", json::object()).tool, "run_full_workflow");
  // A catalog name under another MCP server is that server's tool: it must
  // pass the unclassified rule too, so a foreign "get_run" or "update_step"
  // does not borrow the platform tool's class.
  levels.change = Level::kAuto;
  EXPECT_FALSE(DecideToolCall(TurnKind::kGoalWork, levels, false, "mcp__github__update_step", json::object()).allowed);
  EXPECT_FALSE(DecideToolCall(TurnKind::kGoalWork, levels, false, "mcp__evil__get_run", json::object()).allowed);
  EXPECT_FALSE(DecideToolCall(TurnKind::kGoalWork, levels, false, "mcp__evil__delete_step", json::object()).allowed);
  levels.unclassified = "allow";
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, levels, false, "mcp__evil__get_run", json::object()).allowed);
  EXPECT_FALSE(DecideToolCall(TurnKind::kGoalWork, levels, false, "mcp__evil__delete_step", json::object()).allowed);
}

TEST(AutonomyBypass, GenericDispatchersAreHeldAsTheToolTheyName) {
  AutonomyLevels levels;
  levels.unclassified = "allow";
  GuardDecision d = DecideToolCall(TurnKind::kGoalWork, levels, false, "call_tool",
                                   {{"name", "Update-Step"}, {"arguments", {{"step_id", "s1"}}}});
  EXPECT_FALSE(d.allowed);
  EXPECT_STREQ(GuardRuleName(d.rule), "change_level");
  EXPECT_NE(d.reason.find("call_tool dispatches update_step is a Change tool"), std::string::npos) << d.reason;
  d = DecideToolCall(TurnKind::kGoalWork, levels, false, "invoke",
                     {{"tool", "notify_user"}, {"args", {{"nested", {{"email_cc", "a@b.c"}}}}}});
  EXPECT_FALSE(d.allowed);
  EXPECT_STREQ(GuardLevelName(d.level), "outward");
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, levels, false, "invoke", {{"tool", "get_run"}}).allowed);
  levels.change = Level::kAuto;
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, levels, false, "call_tool", {{"name", "update_step"}}).allowed);
}

TEST(AutonomyBypass, EmailRecipientsAnywhereInTheArguments) {
  std::vector<json> with_email = {
      {{"message", "m"}, {"email_cc", "a@b.c"}},
      {{"message", "m"}, {"options", {{"delivery", {{"email_cc", {"a@b.c"}}}}}}},
      {{"message", "m"}, {"targets", json::array({{{"kind", "email"}, {"email_to", "x@y.z"}}})}},
      {{"message", "m"}, {"options", "{\"email_cc\": [\"a@b.c\"]}"}},  // pre-encoded JSON
      {{"message", "m"}, {"emailCc", "a@b.c"}},
      {{"message", "m"}, {"Email-BCC", "a@b.c"}},
      {{"message", "m"}, {"meta", {{"deep", {{"deeper", {{"EMAIL_TO", "a@b.c"}}}}}}}},
      {{"message", "m"}, {"to_email_addresses", {"a@b.c"}}},
  };
  std::vector<json> without = {
      {{"message", "m"}},
      {{"message", "m"}, {"email_cc", ""}},
      {{"message", "m"}, {"email_to", json::array()}},
      {{"message", "send an email to a@b.c"}},
  };
  for (bool outward_auto : {false, true}) {
    AutonomyLevels levels;
    levels.outward = outward_auto ? Level::kAuto : Level::kAsk;
    for (const json& a : with_email) {
      GuardDecision d = DecideToolCall(TurnKind::kGoalCheck, levels, false, "notify_user", a);
      EXPECT_EQ(d.allowed, outward_auto) << a.dump();
      EXPECT_STREQ(GuardLevelName(d.level), "outward") << a.dump();
    }
    for (const json& a : without) {
      GuardDecision d = DecideToolCall(TurnKind::kGoalCheck, levels, false, "notify_user", a);
      EXPECT_TRUE(d.allowed) << a.dump() << " " << d.reason;
      EXPECT_STREQ(GuardRuleName(d.rule), "notify_owner");
    }
  }
}

TEST(AutonomyBypass, GoogleWritesSpelledWithFlagsFirst) {
  AutonomyLevels levels;  // outward ask
  std::vector<json> writes = {
      {{"args", {"gmail", "send", "--to", "a@b.c"}}},
      {{"args", {"--account", "me@x.com", "gmail", "send", "--to", "a@b.c"}}},
      {{"args", {"-a", "me@x.com", "--json", "gmail", "send"}}},
      {{"args", {"--json", "--account=me@x.com", "calendar", "create", "--title", "x"}}},
      {{"command", "gog --account me@x.com drive upload report.pdf"}},
      {{"command", "--plain gmail drafts create --subject x"}},
      {{"command", "gmail thread modify abc --add-label STARRED"}},
      {{"args", {"gmail", "messages", "--add-label", "X", "abc"}}},
      {{"args", "[\"gmail\", \"send\"]"}},
      {{"args", {"GMAIL", "SEND"}}},
      {{"args", {"gmail", "vacation", "enable"}}},  // no read verb: treated as a write
      {{"args", {"--help"}}},                       // no service: treated as a write
      json::object(),                                 // nothing to read: treated as a write
      {{"args", {"drive", "share", "f1", "--email", "x@y.z"}}},
      {{"args", {"sheets", "batch-update", "s1"}}},
  };
  for (const json& a : writes) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, levels, false, "gog", a);
    EXPECT_FALSE(d.allowed) << a.dump() << " -> " << d.reason;
    EXPECT_STREQ(GuardLevelName(d.level), "outward") << a.dump();
  }
  std::vector<json> reads = {
      {{"args", {"gmail", "search", "is:unread"}}},
      {{"args", {"--account", "me@x.com", "gmail", "search", "is:unread"}}},
      {{"command", "gog --json calendar events list --from today"}},
      {{"command", "drive ls --max 20"}},
      {{"args", {"sheets", "get", "sheet-id", "A1:B9"}}},
  };
  for (const json& a : reads) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, levels, false, "gog", a);
    EXPECT_TRUE(d.allowed) << a.dump() << " -> " << d.reason;
    EXPECT_STREQ(GuardRuleName(d.rule), "gog_read_only");
  }
  // gog reached through a shell is held the same way, even with unclassified=allow.
  levels.unclassified = "allow";
  EXPECT_FALSE(DecideToolCall(TurnKind::kGoalWork, levels, false, "bash",
                              {{"command", "cd /tmp && gog --account me gmail send --to a@b.c"}}).allowed);
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, levels, false, "bash", {{"command", "gog gmail search x | head"}}).allowed);
}

TEST(AutonomyBypass, SoulMdWritesAreRefusedWhateverThePathSpelling) {
  AutonomyLevels levels;
  levels.change = Level::kAuto;
  levels.unclassified = "allow";
  std::vector<std::pair<std::string, json>> soul = {
      {"write_file", {{"path", "soul.md"}}},
      {"write_file", {{"path", "./soul.md"}}},
      {"write_file", {{"path", "x/../soul.md"}}},
      {"write_file", {{"path", "pulse/work/../../SOUL.MD"}}},
      {"edit_file", {{"file_path", "/ws/Workflow/substack/Soul.md"}}},
      {"edit_file", {{"file_path", "%73oul.md"}}},
      {"Write-File", {{"target_file", "C:\\ws\\Workflow\\substack\\soul.md "}}},
      {"multi_edit", {{"edits", json::array({{{"file_path", "notes.md"}}, {{"file_path", "./soul.md"}}})}}},
      {"apply_patch", {{"patch", "*** Begin Patch\n*** Update File: soul.md\n@@\n-a\n+b\n*** End Patch"}}},
      {"apply_patch", {{"input", "--- a/soul.md\n+++ b/soul.md\n@@ -1 +1 @@\n-a\n+b\n"}}},
      {"move_file", {{"source", "draft.md"}, {"destination", "./soul.md"}}},
      {"bash", {{"command", "echo 'new goal' > ./Soul.md"}}},
      {"bash", {{"command", "sed -i s/1000/2000/ x/../soul.md"}}},
  };
  for (TurnKind turn : AllTurnKinds()) {
    for (const auto& [tool, args] : soul) {
      GuardDecision d = DecideToolCall(turn, levels, false, tool, args);
      if (turn == TurnKind::kWorkflowStep) {
        EXPECT_TRUE(d.allowed) << tool << " " << args.dump();
      } else {
        EXPECT_FALSE(d.allowed) << TurnKindName(turn) << " " << tool << " " << args.dump() << " -> " << d.reason;
        EXPECT_STREQ(GuardRuleName(d.rule), "soul_md") << tool << " " << args.dump();
      }
    }
  }
  // Not soul.md: drafts go through; reading soul.md from the shell is fine.
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, levels, false, "write_file", {{"path", "pulse/work/soul.md.draft"}}).allowed);
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, levels, false, "bash", {{"command", "cat soul.md"}}).allowed);
}

TEST(AutonomyBypass, ScriptedCallsToTheToolRouteAreRefused) {
  AutonomyLevels levels;
  levels.run = levels.outward = levels.change = Level::kAuto;
  levels.unclassified = "allow";
  std::vector<std::pair<std::string, json>> scripts = {
      {"bash", {{"command", "curl -s -X POST \"$MCP_API_URL/s/schedule-goallead--x-g1/tools/custom/update_step\" "
                            "-H \"Authorization: Bearer $MCP_API_TOKEN\" -d '{}'"}}},
      {"run_python", {{"code", "import os, urllib.request\nreq = urllib.request.Request(os.environ['MCP_API_URL'] + "
                               "'/tools/custom/update_step')\n"}}},
      {"execute_code", {{"language", "python"}, {"code", "print(os.getenv('mcp_api_token'))"}}},
      {"run_python", {{"code", "t = os.environ['MCP_API_' + 'TOKEN']"}}},
      {"some_unknown_runner", {{"script", "fetch('http://127.0.0.1:8080/s/abc/tools/custom/update_step')"}}},
      {"bash", {{"command", "curl localhost:8080/mcp -H 'authorization: Bearer abc' -d '{\"method\":\"tools/call\"}'"}}},
  };
  for (const auto& [tool, args] : scripts) {
    for (TurnKind turn : AllTurnKinds()) {
      GuardDecision d = DecideToolCall(turn, levels, false, tool, args);
      if (turn == TurnKind::kWorkflowStep) continue;
      EXPECT_FALSE(d.allowed) << tool << " " << args.dump();
      EXPECT_STREQ(GuardRuleName(d.rule), "shell_tool_route") << tool;
      EXPECT_NE(d.reason.find("create a decision request instead"), std::string::npos);
    }
  }
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, levels, false, "bash", {{"command", "ls pulse/work"}}).allowed);
}


// Every level at its most permissive: what is refused here is refused by a
// rule no setting lifts.
AutonomyLevels AllOpen() {
  AutonomyLevels levels;
  levels.run = levels.outward = levels.change = Level::kAuto;
  levels.unclassified = "allow";
  return levels;
}

TEST(AutonomyBypass, ProtectedPathsAreRefusedToEveryToolWhateverTheSpelling) {
  std::vector<std::pair<std::string, json>> calls = {
      {"read_file", {{"path", "../../.pulse/owner-token"}}},
      {"write_file", {{"path", "../../.pulse/owner-token"}, {"content", "x"}}},
      {"read_file", {{"path", "%2Epulse/owner-token"}}},
      {"read_file", {{"path", "..\\..\\.PULSE\\owner-token"}}},
      {"read_file", {{"file_path", "db/db.sqlite"}}},
      {"list_directory", {{"path", "./db/"}}},
      {"read_file", {{"path", "db/db.sqlite-wal"}}},
      {"read_file", {{"path", "memory/goal.md"}}},
      {"write_file", {{"path", "pulse/work/../../memory/goal.md"}}},
      {"move_file", {{"src", "db"}, {"dst", "pulse/work/old"}}},
      {"delete_file", {{"target", "memory"}}},
      {"grep", {{"pattern", "x"}, {"paths", {"notes.md", "../../.pulse/owner-token"}}}},
      {"bash", {{"command", "cat ../../.pulse/owner-token"}}},
      {"bash", {{"command", "sqlite3 db/db.sqlite 'select 1'"}}},
      {"run_python", {{"code", "print(open('../../.pulse/owner-token').read())"}}},
      {"some_unknown_reader", {{"location", ".pulse/owner-token"}}},
      {"call_tool", {{"tool_call", {{"name", "read_file"}, {"arguments", {{"path", ".pulse/owner-token"}}}}}}},
  };
  for (TurnKind turn : AllTurnKinds()) {
    if (!IsGuardedTurn(turn)) continue;
    for (const auto& [tool, args] : calls) {
      GuardDecision d = DecideToolCall(turn, AllOpen(), false, tool, args);
      EXPECT_FALSE(d.allowed) << tool << " " << args.dump() << " -> " << d.reason;
      EXPECT_EQ(d.rule, GuardRule::kProtectedPath) << tool << " " << args.dump() << " -> " << d.reason;
      EXPECT_NE(d.reason.find("create a decision request instead"), std::string::npos);
    }
  }
  // What stays allowed: soul.md and the plan are readable, memory is reached
  // through the memory tools, and words that merely look alike are not paths.
  std::vector<std::pair<std::string, json>> fine = {
      {"read_file", {{"path", "soul.md"}}},
      {"read_file", {{"path", "workflow.json"}}},
      {"read_goal_memory", json::object()},
      {"record_pulse_goal_memory", {{"section", "lessons"}, {"text", "memory/goal.md grew"}}},
      {"write_file", {{"path", "pulse/work/db-notes.md"}}},
      {"bash", {{"command", "ls pulse/work && cat soul.md"}}},
      {"notify_user", {{"message", "db is fine"}}},
  };
  for (const auto& [tool, args] : fine) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, tool, args);
    EXPECT_TRUE(d.allowed) << tool << " " << args.dump() << " -> " << d.reason;
  }
}

TEST(AutonomyBypass, SoulMdThroughEveryKeyAndEveryPatchHeader) {
  std::vector<std::pair<std::string, json>> calls = {
      {"move_file", {{"src", "draft.md"}, {"dst", "soul.md"}}},
      {"move_file", {{"from", "draft.md"}, {"new_name", "soul.md"}}},
      {"move_file", {{"file", "draft.md"}, {"rename_to", "Soul.MD"}}},
      {"edit_file", {{"file_path", std::string("soul.md\0", 8)}}},
      {"edit_file", {{"file_path", "soul.md%00.txt"}}},
      {"edit_file", {{"file_path", "soul.md%2500.txt"}}},
      {"edit_file", {{"file_path", "soul.md::$DATA"}}},
      {"edit_file", {{"file_path", "soul.md. "}}},
      {"write_file", {{"options", {{"out", "pulse/work/../soul.md"}}}}},
      {"apply_patch", {{"patch", "diff --git a/draft.md b/draft.md\nsimilarity index 100%\nrename from draft.md\nrename to soul.md\n"}}},
      {"apply_patch", {{"patch", "diff --git a/draft.md b/x.md\ncopy from draft.md\ncopy to soul.md\n"}}},
      {"apply_patch", {{"patch", "Index: soul.md\n===\n--- x\n+++ y\n@@ -1 +1 @@\n-a\n+b\n"}}},
      {"apply_patch", {{"patch", "--- a/x\r+++ b/SOUL.md\r@@ -1 +1 @@\r-a\r+b\r"}}},
      {"apply_patch", {{"patch", "*** Begin Patch\n*** Update File: draft.md\n*** Move to: soul.md\n*** End Patch"}}},
      {"unknown_editor", {{"dst", "soul.md"}}},
  };
  for (const auto& [tool, args] : calls) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, tool, args);
    EXPECT_FALSE(d.allowed) << tool << " " << args.dump() << " -> " << d.reason;
    EXPECT_EQ(d.rule, GuardRule::kSoulMd) << tool << " " << args.dump() << " -> " << d.reason;
  }
  // Plan files reached by the same keys are a Change.
  AutonomyLevels ask = AllOpen();
  ask.change = Level::kAsk;
  GuardDecision plan = DecideToolCall(TurnKind::kGoalWork, ask, false, "move_file", {{"src", "x"}, {"rename_to", "planning/plan.json"}});
  EXPECT_FALSE(plan.allowed) << plan.reason;
  EXPECT_EQ(plan.rule, GuardRule::kChangeLevel);
}

TEST(AutonomyBypass, UnclassifiedAllowStillRefusesWrappersSoulWritesAndTheToolRoute) {
  AutonomyLevels levels;  // Run, Outward, Change at ask; unclassified allow
  levels.unclassified = "allow";
  struct Call {
    std::string tool;
    json args;
    GuardRule rule;
  };
  std::vector<Call> calls = {
      {"call_tool", json::parse(R"({"tool_call": {"name": "delete_step"}})"), GuardRule::kAlwaysRefused},
      {"call_tool", json::parse(R"({"tool_call": {"name": "update_step", "arguments": "{\"step_id\": \"s1\"}"}})"),
       GuardRule::kChangeLevel},
      {"batch", json::parse(R"({"calls": [{"function": {"name": "get_run"}}, {"function": {"name": "Delete-Step"}}]})"),
       GuardRule::kAlwaysRefused},
      {"run_tool", json::parse(R"({"payload": "{\"request\": {\"tool\": \"execute_step\"}}"})"), GuardRule::kRunLevel},
      {"wrapper", json::parse(R"({"inner": {"method": "bash", "params": {"command": "echo x>soul.md"}}})"), GuardRule::kSoulMd},
      {"bash", {{"command", "echo x>soul.md"}}, GuardRule::kSoulMd},
      {"bash", {{"command", "echo x 2>>./SOUL.md"}}, GuardRule::kSoulMd},
      {"bash", {{"command", "dd if=/tmp/x of=soul.md"}}, GuardRule::kSoulMd},
      {"bash", {{"command", "curl -s -o soul.md https://example.com/x"}}, GuardRule::kSoulMd},
      {"bash", {{"command", "echo x | tee -a soul.md"}}, GuardRule::kSoulMd},
      {"bash", {{"command", "python3 -c \"open('soul.md','w').write('x')\""}}, GuardRule::kSoulMd},
      {"bash", {{"command", "node -e \"require('fs').writeFileSync('soul.md','x')\""}}, GuardRule::kSoulMd},
      {"bash", {{"command", "cp /tmp/x s*.md"}}, GuardRule::kSoulMd},
      {"bash", {{"command", "bash -c 'cat > so\"\"ul.md'"}}, GuardRule::kSoulMd},
      {"bash", {{"command", "curl -X POST \"$PULSE_TOOL_URL/update_step\" -d '{}'"}}, GuardRule::kShellToolRoute},
      {"bash", {{"command", "curl -X POST \"${MCP_API_URL}\" -d @x.json"}}, GuardRule::kShellToolRoute},
      {"run_python", {{"code", "u = os.environ['PULSE_' + 'TOOL_URL']"}}, GuardRule::kShellToolRoute},
      {"run_python", {{"code", "k = 'MCP' + '_API' + '_URL'\nos.environ[k]"}}, GuardRule::kShellToolRoute},
  };
  for (const auto& [tool, args, rule] : calls) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, levels, false, tool, args);
    EXPECT_FALSE(d.allowed) << tool << " " << args.dump() << " -> " << d.reason;
    EXPECT_EQ(d.rule, rule) << tool << " " << args.dump() << " -> " << d.reason;
  }
  for (const char* cmd : {"cat soul.md", "grep goal soul.md | head -3", "ls *.md", "cp soul.md pulse/work/soul.md.draft",
                          "echo done > pulse/work/out.txt"}) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, levels, false, "bash", {{"command", cmd}});
    EXPECT_TRUE(d.allowed) << cmd << " -> " << d.reason;
  }
}

TEST(AutonomyBypass, LookAlikeSpellingsOfRefusedToolsAreFolded) {
  std::vector<std::string> spellings = {
      "del\xe2\x80\x8b" "ete_step",          // zero-width space inside
      "dele\xc2\xad" "te_step",              // soft hyphen inside
      "\xef\xbd\x84\xef\xbd\x85lete_step",   // fullwidth d, e
      "d\xd0\xb5lete_step",                  // Cyrillic e
      "delete_st\xd0\xb5p",                  // Cyrillic e at the end
      "\xf0\x9d\x90\x9d" "elete_step",       // mathematical bold d
      "delete\xe2\x80\x90step",              // Unicode hyphen
      "DEL\xe2\x80\x8d" "ETE\xef\xbc\xbf" "STEP",  // zero-width joiner, fullwidth low line
  };
  for (const std::string& name : spellings) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, name, json::object());
    EXPECT_FALSE(d.allowed) << name << " -> " << d.reason;
    EXPECT_EQ(d.rule, GuardRule::kAlwaysRefused) << name;
    EXPECT_EQ(d.tool, "delete_step") << name;
  }
  // Through a wrapper too.
  GuardDecision d = DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, "call_tool", {{"name", "d\xd0\xb5lete_step"}});
  EXPECT_EQ(d.rule, GuardRule::kAlwaysRefused);
}

TEST(AutonomyBypass, NotifyUserRefusesEveryRecipientLikeKeyInAHeldTurn) {
  std::vector<std::string> keys = {"to",    "mail_to", "address", "target",    "recipient", "recipients",
                                   "cc",    "bcc",     "email",   "emailAddress", "phone",  "channel",
                                   "sendTo", "reply_to", "webhook_url", "slack_user", "destination", "To-Addresses"};
  for (TurnKind turn : {TurnKind::kGoalCheck, TurnKind::kRunFailed, TurnKind::kBuilderQuestion}) {
    for (const std::string& key : keys) {
      json args = {{"message", "goal at risk"}, {key, "someone"}};
      GuardDecision d = DecideToolCall(turn, AutonomyLevels{}, false, "notify_user", args);
      EXPECT_FALSE(d.allowed) << key << " in " << TurnKindName(turn);
      EXPECT_EQ(d.level, GuardLevel::kOutward) << key;
      json nested = {{"message", "m"}, {"options", {{"delivery", {{key, {"x"}}}}}}};
      EXPECT_FALSE(DecideToolCall(turn, AutonomyLevels{}, false, "notify_user", nested).allowed) << key;
    }
  }
  for (const char* key : {"message", "title", "priority", "level", "subject"}) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalCheck, AutonomyLevels{}, false, "notify_user", {{key, "x"}});
    EXPECT_TRUE(d.allowed) << key << " -> " << d.reason;
    EXPECT_EQ(d.rule, GuardRule::kNotifyOwner);
  }
}


// Decoding a path can yield bytes that are not text; the reason that names
// the path must still be valid UTF-8, since it is stored and sent as JSON.
TEST(AutonomyBypass, ReasonsNamingDecodedPathsStayValidText) {
  for (const auto& [tool, path] : std::vector<std::pair<std::string, std::string>>{
           {"write_file", "pulse/work/%ff%c3.md"}, {"read_file", ".pulse/%ff"}, {"write_file", "planning/%80.json"}}) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, tool, {{"path", path}});
    std::string dumped;
    EXPECT_NO_THROW(dumped = DecisionToJson(d).dump()) << tool << " " << path;
    EXPECT_NE(d.reason.find('?'), std::string::npos) << d.reason;
  }
}


// The Builder reads a fix the way a person does: look-alike and hidden
// characters do not smuggle a deletion or a soul.md edit past the check.
TEST(AutonomyBypass, AskBuilderFixTextIsFoldedBeforeItIsRead) {
  for (const char* message : {"d\xd0\xb5lete step-4", "dele\xc2\xadte step-4", "edit S\xd0\x9eUL.md",
                              "\xef\xbd\x84\xef\xbd\x85lete step-4", "mig\xe2\x80\x8brate the contract"}) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, "ask_builder", {{"mode", "fix"}, {"message", message}});
    EXPECT_FALSE(d.allowed) << message;
    EXPECT_EQ(d.rule, GuardRule::kAskBuilderFixForbidden) << message;
  }
}


// The second round of attacks (issue #32): soul.md spelled the way bash and
// git read names, and refused tools named in ways the first round missed.
// Each is refused with every level open, where security.md says the soul.md
// checks still apply.
TEST(AutonomyBypass, SoulMdAsBashAndGitSpellItIsRefused) {
  std::vector<std::pair<std::string, json>> calls = {
      // git's C-quoted, octal-escaped names (what `git apply` reads)
      {"apply_patch", {{"patch", "--- a/x.md\n+++ \"b/\\163oul.md\"\n@@ -1 +1 @@\n-a\n+b\n"}}},
      {"apply_patch", {{"patch", "diff --git \"a/\\163oul.md\" \"b/\\163oul.md\"\nindex 1..2 100644\n"}}},
      {"apply_patch", {{"patch", "diff --git a/x b/y\nrename from x\nrename to \"\\163\\157ul.md\"\n"}}},
      {"bash", {{"command", "git apply <<'EOF'\n--- a/x.md\n+++ \"b/\\163oul.md\"\n@@ -1 +1 @@\n-a\n+b\nEOF"}}},
      // bash's ANSI-C quoting
      {"bash", {{"command", "echo x > $'\\x73oul.md'"}}},
      {"bash", {{"command", "echo x > $'\\163oul.md'"}}},
      {"bash", {{"command", "echo x > $'\\u0073oul.md'"}}},
      {"bash", {{"command", "echo x > $'\\U00000073oul.md'"}}},
      // brace expansion
      {"bash", {{"command", "echo x | tee {soul,x}.md"}}},
      {"bash", {{"command", "echo x > so{u..u}l.md"}}},
      {"bash", {{"command", "echo x > {{a,s}o,b}ul.md"}}},
      // parameter defaults and their kin
      {"bash", {{"command", "echo x > ${X:-soul.md}"}}},
      {"bash", {{"command", "echo x > ${X:=soul.md}"}}},
      {"bash", {{"command", "echo x > ${X-soul.md}"}}},
      {"bash", {{"command", "echo x > ${X:+so}ul.md"}}},
      {"bash", {{"command", "echo x > ${X:-${Y:-soul.md}}"}}},
      {"bash", {{"command", "echo x > ${X/a/soul.md}"}}},
      // a script's string literal with C escapes
      {"bash", {{"command", "python3 -c \"open('\\163oul.md','w').write('x')\""}}},
      // copied or moved into the folder that holds soul.md
      {"bash", {{"command", "cp pulse/work/soul.md ."}}},
      {"bash", {{"command", "cp pulse/work/soul.md ./"}}},
      {"bash", {{"command", "cp pulse/work/soul.md pulse/work/../.."}}},
      {"bash", {{"command", "cp -t . pulse/work/soul.md"}}},
      {"bash", {{"command", "cp --target-directory=. pulse/work/soul.md"}}},
      {"bash", {{"command", "cp pulse/work/soul.md \"$PWD\""}}},
      {"bash", {{"command", "cp -r pulse/work/. ."}}},
      {"bash", {{"command", "rsync -a pulse/work/ ./"}}},
      {"bash", {{"command", "mv pulse/work/soul.md ."}}},
      {"bash", {{"command", "install -m644 pulse/work/soul.md ."}}},
      {"bash", {{"command", "ln -sf pulse/work/soul.md ."}}},
      {"some_unknown_runner", {{"script", "cp pulse/work/soul.md ../substack/"}}},
  };
  for (TurnKind turn : AllTurnKinds()) {
    if (!IsGuardedTurn(turn)) continue;
    for (const auto& [tool, args] : calls) {
      GuardDecision d = DecideToolCall(turn, AllOpen(), false, tool, args);
      EXPECT_FALSE(d.allowed) << TurnKindName(turn) << " " << tool << " " << args.dump() << " -> " << d.reason;
      EXPECT_EQ(d.rule, GuardRule::kSoulMd) << tool << " " << args.dump() << " -> " << d.reason;
    }
  }
  // At the default levels too (the patch passed there).
  GuardDecision d = DecideToolCall(TurnKind::kGoalWork, AutonomyLevels{}, false, "apply_patch", calls[0].second);
  EXPECT_EQ(d.rule, GuardRule::kSoulMd) << d.reason;
  // What stays allowed: copies that go elsewhere, braces and defaults that
  // name other files, reading.
  for (const char* cmd : {"cp soul.md pulse/work/soul.md.draft", "cp pulse/work/soul.md pulse/work/backup/",
                          "cp pulse/work/notes.md .", "cp -r pulse/work/drafts pulse/work/old",
                          "echo {a,b} > pulse/work/x.txt", "echo ${X:-hello} > pulse/work/x.txt",
                          "cat $'soul.md'", "grep goal {soul,x}.md", "echo x > $'\\x70ulse/work/out.txt'"}) {
    GuardDecision ok = DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, "bash", {{"command", cmd}});
    EXPECT_TRUE(ok.allowed) << cmd << " -> " << ok.reason;
  }
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, "apply_patch",
                             {{"patch", "--- a/x.md\n+++ \"b/pulse/work/\\163oul.md.draft\"\n"}}).allowed);
}

TEST(AutonomyBypass, AWrapperWhoseToolNameIsNotAStringIsRefused) {
  AutonomyLevels levels = AllOpen();
  std::vector<std::pair<std::string, json>> calls = {
      {"call_tool", json::parse(R"({"name": ["delete_step"]})")},
      {"call_tool", json::parse(R"({"name": [["delete_step"]], "arguments": {"step_id": "s1"}})")},
      {"call_tool", json::parse(R"({"tool": 7})")},
      {"call_tool", json::parse(R"({"function_name": true})")},
      {"call_tool", json::parse(R"({"name": "[\"delete_step\"]"})")},
      {"invoke", json::parse(R"({"request": {"method": ["delete_step"]}})")},
  };
  for (const auto& [tool, args] : calls) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, levels, false, tool, args);
    EXPECT_FALSE(d.allowed) << tool << " " << args.dump() << " -> " << d.reason;
    EXPECT_NE(d.reason.find("not a string"), std::string::npos) << d.reason;
  }
  // A positional call, at the top or nested: decided as the tool it names.
  for (const json& args : {json::parse(R"([["delete_step", {}]])"), json::parse(R"({"calls": [["delete_step", {"step_id": "s1"}]]})"),
                           json::parse(R"(["remove_step", {"step_id": "s1"}])")}) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, levels, false, "call_tool", args);
    EXPECT_FALSE(d.allowed) << args.dump() << " -> " << d.reason;
    EXPECT_EQ(d.rule, GuardRule::kAlwaysRefused) << args.dump() << " -> " << d.reason;
  }
  levels.change = Level::kAsk;
  GuardDecision d = DecideToolCall(TurnKind::kGoalWork, levels, false, "batch",
                                   json::parse(R"({"calls": [["update_step", {"step_id": "s1"}]]})"));
  EXPECT_EQ(d.rule, GuardRule::kChangeLevel) << d.reason;
  // A name given as an object is a nested call description, read as before;
  // arguments that merely hold lists of words are not calls.
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, "call_tool",
                             json::parse(R"({"tool_call": {"function": {"name": "get_run"}}})")).allowed);
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, "search_docs",
                             json::parse(R"({"queries": ["how to delete a step", "plans"], "name": {"first": "A"}})")).allowed);
}

TEST(AutonomyBypass, NamesSpelledWithCharactersNoHandListKnowsAreRefused) {
  std::vector<std::string> spellings = {
      "\xe1\xb4\x85" "elete_step",          // ᴅ LATIN LETTER SMALL CAPITAL D
      "d\xc3\xa9lete_step",                 // é precomposed (NFKD)
      "d\xc3\xa8l\xc3\xa8t\xc3\xa8_st\xc3\xa8p",
      "\xe2\x85\xbe" "elete_step",          // ⅾ SMALL ROMAN NUMERAL FIVE HUNDRED (confusables.txt)
      "\xe4\xb8\x80" "elete_step",          // a character no table knows
      "del\xf3\xa0\x80\xa0" "ete_step",     // a tag character (invisible)
      "de1ete_step",                        // ASCII look-alikes
      "DELETE_STEP\xe2\x81\xa6",            // a bidi isolate
      "d\xe1\xb4\x87l\xe1\xb4\x87t\xe1\xb4\x87_st\xe1\xb4\x87p",
      // Unknown characters read as separators leave another catalog name
      // (move_step, a Change); they may stand for "re" of remove_step.
      "\xea\xaa\x80\xea\xaa\x80\xe1\xb8\xbfove_step",
  };
  for (const std::string& name : spellings) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, name, json::object());
    EXPECT_FALSE(d.allowed) << name << " -> " << d.reason;
    EXPECT_EQ(d.rule, GuardRule::kAlwaysRefused) << name << " -> " << d.reason;
    EXPECT_EQ(d.tool, "delete_step") << name;
    GuardDecision w = DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, "call_tool", {{"name", name}});
    EXPECT_EQ(w.rule, GuardRule::kAlwaysRefused) << name << " -> " << w.reason;
  }
  // Look-alikes never allow: an unknown tool whose name resembles a read-only
  // one stays unclassified, and a name in another script is not taken for a
  // short catalog name.
  AutonomyLevels ask;  // unclassified ask
  EXPECT_FALSE(DecideToolCall(TurnKind::kGoalWork, ask, false, "g\xe4\xb8\x80t_run", json::object()).allowed);
  for (const char* name : {"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe9\x81\x93\xe5\x85\xb7", "browser_click",
                           "read_\xe6\x96\x87\xe4\xbb\xb6"}) {
    GuardDecision d = DecideToolCall(TurnKind::kGoalWork, AllOpen(), false, name, json::object());
    EXPECT_TRUE(d.allowed) << name << " -> " << d.reason;
    EXPECT_EQ(d.rule, GuardRule::kUnclassified) << name;
  }
}

TEST(AutonomyBypass, NotifyUserWithAnyKeyButTheMessagesOwnIsOutward) {
  for (const json& args : {json{{"message", "m"}, {"dm", "U123"}}, json{{"message", "m"}, {"distribution", "all"}},
                           json{{"message", "m"}, {"options", {{"route", "x"}}}},
                           json{{"text", "m"}, {"slack_dm", {"U1"}}}, json{{"message", "m"}, {"\xd0\xb2ho", "x"}}}) {
    GuardDecision d = DecideToolCall(TurnKind::kRunFailed, AllOpen(), false, "notify_user", args);
    EXPECT_FALSE(d.allowed) << args.dump() << " -> " << d.reason;
    EXPECT_EQ(d.level, GuardLevel::kOutward) << args.dump();
    EXPECT_NE(d.reason.find("run_failed"), std::string::npos) << d.reason;
  }
  json own = {{"message", "m"}, {"title", "t"}, {"priority", "high"}, {"Summary", "s"}, {"details", {{"text", "x"}}},
              {"dm", ""}};
  GuardDecision d = DecideToolCall(TurnKind::kRunFailed, AllOpen(), false, "notify_user", own);
  EXPECT_TRUE(d.allowed) << d.reason;
  EXPECT_EQ(d.rule, GuardRule::kNotifyOwner);
}

// The property the fuzz target checks, over a fixed stream of pseudo-random
// choices: every call tests/fuzz/guard_spellings.h makes is refused.
TEST(AutonomyBypass, GeneratedSpellingsAreAllRefused) {
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  std::vector<uint8_t> bytes(256);
  int refused = 0;
  for (int round = 0; round < 3000; ++round) {
    for (uint8_t& b : bytes) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      b = static_cast<uint8_t>(state);
    }
    fuzz::Choices in(bytes.data(), bytes.size());
    fuzz::GuardCall call = fuzz::MakeRefusedCall(in);
    Result<TurnKind> turn = ParseTurnKind(call.turn);
    ASSERT_TRUE(turn.ok());
    GuardDecision d = DecideToolCall(*turn, AllOpen(), false, call.tool, call.args);
    EXPECT_FALSE(d.allowed) << call.what << ": " << call.tool << " "
                            << call.args.dump(-1, ' ', false, json::error_handler_t::replace) << " -> " << d.reason;
    refused += d.allowed ? 0 : 1;
  }
  EXPECT_EQ(refused, 3000);
}

}  // namespace
}  // namespace pulse
