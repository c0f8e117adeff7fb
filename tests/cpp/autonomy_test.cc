// The autonomy guard (issue 5) against the seed's rules (PLAT-697 phase 2 and
// the later places that hold tools). The expected outcomes come from
// ExpectedAllowed below, written from the seed's text with its own tool
// lists; it never calls the implementation's classification.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "core/api/api.h"
#include "core/autonomy.h"
#include "core/schema.h"
#include "core/sha256.h"
#include "core/tool_catalog.h"
#include "core/workflow_config.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::TempDir;

// ------------------------------------------------ the seed's rules, restated

// What a call is, by the seed's text (not by the catalog).
enum class Kind {
  kRun,            // "Run at ask refuses execute_step, run_full_workflow, ..."
  kChange,         // "Change at ask refuses the Builder plan tools, update_step_config, ..."
  kOutward,        // "Outward at ask refuses send_slack_message and Slack writes, gog writes, notify_user to email"
  kAlways,         // "Always refused in Goal Work: delete steps/schedules, create_plan, migrations, contract version"
  kFree,           // read-only tools, Pulse's own records, gog read-only, notify_user in-app, draft files
  kUnclassified,   // not classifiable by name: pulse.autonomy.unclassified
  kNever,          // soul.md writes, scripted tool-route calls, answering for the owner, asking Pulse from Pulse
  kAskBuilderQuestion,
  kAskBuilderFix,
};

const std::set<std::string> kSeedRun = {"execute_step",     "run_full_workflow", "debug_step",
                                        "send_step_message", "trigger_schedule", "ask_platform_crew"};
const std::set<std::string> kSeedChange = {
    "add_step",           "insert_step",      "duplicate_step",         "update_step",
    "update_step_prompt", "update_step_config", "update_plan",          "move_step",
    "rename_step",        "set_step_dependencies", "set_step_model",    "add_route",
    "update_route",       "update_workflow_settings", "create_schedule", "update_schedule",
    "pause_schedule",     "resume_schedule",  "configure_goal_metrics", "restore_step_from_changelog",
    "manage_workflow_webhook"};
const std::set<std::string> kSeedOutward = {
    "send_slack_message",    "slack_post_message",  "slack_reply_in_thread", "slack_update_message",
    "slack_delete_message",  "slack_add_reaction",  "slack_remove_reaction", "slack_upload_file",
    "slack_create_channel",  "slack_invite_to_channel", "slack_set_channel_topic", "send_email"};
const std::set<std::string> kSeedAlways = {"delete_step",      "delete_steps",    "delete_schedule",
                                           "delete_route",     "delete_workflow", "create_plan",
                                           "replace_plan",     "run_migration",   "migrate_contract",
                                           "upgrade_contract", "set_contract_version"};
const std::set<std::string> kSeedReadOnly = {
    "get_pulse_state", "get_pulse_finding_backlog", "read_step", "get_step", "list_steps", "get_plan",
    "get_step_config", "get_run", "list_runs", "get_run_logs", "get_step_output", "list_schedules",
    "get_schedule", "get_goal_metrics", "read_goal_memory", "read_changelog", "list_decision_requests",
    "get_decision_request", "get_agent_log", "read_file", "list_files", "list_directory", "search_files",
    "grep", "glob", "slack_read_channel", "slack_read_thread", "slack_list_channels", "slack_search_messages"};
const std::set<std::string> kSeedRecords = {
    "record_pulse_goal_check",  "record_pulse_recommendation", "record_pulse_goal_memory",
    "record_pulse_decision_outcome", "record_pulse_focus_area", "record_pulse_qa_request",
    "record_pulse_fast_request", "create_decision_request"};
const std::set<std::string> kSeedFileWrite = {"write_file", "create_file", "edit_file", "multi_edit", "str_replace",
                                              "append_file", "apply_patch", "delete_file", "move_file"};
const std::set<std::string> kSeedShell = {"bash",        "shell",        "run_shell_command", "execute_command",
                                          "run_terminal_cmd", "execute_code", "run_python"};

struct Case {
  std::string tool;
  json args;
  Kind kind;
};

// One representative call (or two, where the arguments decide) per tool.
std::vector<Case> CasesFor(const std::string& name) {
  if (kSeedRun.count(name)) return {{name, json::object(), Kind::kRun}};
  if (kSeedChange.count(name)) return {{name, {{"step_id", "step-growth-summary"}}, Kind::kChange}};
  if (kSeedOutward.count(name)) return {{name, {{"channel", "#growth"}, {"text", "hi"}}, Kind::kOutward}};
  if (kSeedAlways.count(name)) return {{name, {{"step_id", "step-1"}}, Kind::kAlways}};
  if (kSeedReadOnly.count(name) || kSeedRecords.count(name)) return {{name, json::object(), Kind::kFree}};
  if (kSeedFileWrite.count(name)) {
    return {{name, {{"path", "pulse/work/draft.md"}, {"content", "x"}}, Kind::kFree},
            {name, {{"path", "./Soul.md"}, {"content", "x"}}, Kind::kNever},
            {name, {{"file_path", "planning/plan.json"}}, Kind::kChange}};
  }
  if (kSeedShell.count(name)) {
    return {{name, {{"command", "ls -la pulse/work"}}, Kind::kUnclassified},
            {name, {{"command", "curl -X POST -H \"Authorization: Bearer $MCP_API_TOKEN\" \"$MCP_API_URL/s/abc/tools/custom/update_step\""}}, Kind::kNever}};
  }
  if (name == "gog") {
    return {{name, {{"args", {"gmail", "search", "from:me newer_than:7d"}}}, Kind::kFree},
            {name, {{"args", {"gmail", "send", "--to", "a@b.c", "--subject", "hi"}}}, Kind::kOutward},
            {name, {{"command", "drive ls"}}, Kind::kFree},
            {name, {{"command", "calendar create --title standup"}}, Kind::kOutward}};
  }
  if (name == "notify_user") {
    return {{name, {{"message", "goal at risk"}}, Kind::kFree},
            {name, {{"message", "goal at risk"}, {"email_to", "owner@example.com"}}, Kind::kOutward}};
  }
  if (name == "ask_pulse") return {{name, {{"question", "which route?"}}, Kind::kNever}};
  if (name == "ask_builder") {
    return {{name, {{"mode", "question"}, {"question", "why did step-3 change?"}}, Kind::kAskBuilderQuestion},
            {name, {{"mode", "fix"}, {"message", "raise the word limit of step-3"}, {"why", "drafts cut off"}}, Kind::kAskBuilderFix}};
  }
  if (name == "answer_decision_request" || name == "answer_human_input") {
    return {{name, {{"id", "d1"}, {"option", "yes"}}, Kind::kNever}};
  }
  return {};
}

struct Setting {
  bool run_auto, outward_auto, change_auto, unclassified_allow, paused;
};

bool IsPulseTurnName(TurnKind t) {
  return t == TurnKind::kGoalCheck || t == TurnKind::kGoalWork || t == TurnKind::kGoalWorkReceipt ||
         t == TurnKind::kAskPulse || t == TurnKind::kRunFailed;
}

// The seed's holds, turn by turn:
// - goal_check, goal_work (+ receipt), ask_pulse: the workflow's pulse.autonomy;
// - run_failed: Run, Outward, Change held; builder_question: all three at ask;
// - builder_fix: Change only (no run, no send);
// - any turn on a workflow whose schedules are all paused: report-only, all held;
// - workflow steps keep their normal tools.
bool ExpectedAllowed(Kind kind, TurnKind turn, const Setting& s, std::string* level) {
  level->clear();
  if (turn == TurnKind::kWorkflowStep) return true;
  bool run = s.run_auto, outward = s.outward_auto, change = s.change_auto;
  if (s.paused || turn == TurnKind::kRunFailed || turn == TurnKind::kBuilderQuestion) run = outward = change = false;
  if (turn == TurnKind::kBuilderFix) run = outward = false;
  switch (kind) {
    case Kind::kRun: *level = "run"; return run;
    case Kind::kChange: *level = "change"; return change;
    case Kind::kOutward: *level = "outward"; return outward;
    case Kind::kAlways: return false;
    case Kind::kFree: return true;
    case Kind::kUnclassified: *level = "unclassified"; return s.unclassified_allow;
    case Kind::kNever: return false;
    case Kind::kAskBuilderQuestion: return IsPulseTurnName(turn);
    case Kind::kAskBuilderFix:
      if (!IsPulseTurnName(turn) || turn == TurnKind::kRunFailed) return false;
      *level = "change";
      return change;
  }
  return false;
}

AutonomyLevels LevelsOf(const Setting& s) {
  AutonomyLevels a;
  a.run = s.run_auto ? Level::kAuto : Level::kAsk;
  a.outward = s.outward_auto ? Level::kAuto : Level::kAsk;
  a.change = s.change_auto ? Level::kAuto : Level::kAsk;
  a.unclassified = s.unclassified_allow ? "allow" : "ask";
  return a;
}

std::vector<Setting> AllSettings() {
  std::vector<Setting> out;
  for (int bits = 0; bits < 32; ++bits) {
    out.push_back({(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0, (bits & 16) != 0});
  }
  return out;
}

std::string Describe(const Case& c, TurnKind turn, const Setting& s) {
  return c.tool + " " + c.args.dump() + " in " + TurnKindName(turn) + " (run=" + (s.run_auto ? "auto" : "ask") +
         " outward=" + (s.outward_auto ? "auto" : "ask") + " change=" + (s.change_auto ? "auto" : "ask") +
         " unclassified=" + (s.unclassified_allow ? "allow" : "ask") + (s.paused ? " paused" : "") + ")";
}

// ------------------------------------------------------------------- tests

TEST(ToolCatalog, EveryCataloguedToolHasTheSeedsClassAndEverySeedToolIsCatalogued) {
  std::set<std::string> catalogued;
  for (const ToolEntry& e : ToolCatalog()) {
    catalogued.insert(e.name);
    EXPECT_FALSE(CasesFor(e.name).empty()) << e.name << " is catalogued but the test has no expectation for it";
    EXPECT_EQ(NormalizeToolName(e.name), e.name) << "catalog names are stored normalised";
  }
  for (const auto* set : {&kSeedRun, &kSeedChange, &kSeedOutward, &kSeedAlways, &kSeedReadOnly, &kSeedRecords,
                          &kSeedFileWrite, &kSeedShell}) {
    for (const std::string& name : *set) EXPECT_TRUE(catalogued.count(name)) << name << " is missing from the catalog";
  }
  for (const char* name : {"gog", "notify_user", "ask_pulse", "ask_builder"}) EXPECT_TRUE(catalogued.count(name)) << name;
  EXPECT_EQ(catalogued.size(), ToolCatalog().size()) << "a tool is catalogued twice";
  for (const ToolAlias& a : ToolAliases()) {
    EXPECT_TRUE(catalogued.count(a.name)) << "alias " << a.alias << " points at an uncatalogued tool";
    EXPECT_FALSE(catalogued.count(a.alias)) << "alias " << a.alias << " shadows a catalogued tool";
  }
}

TEST(AutonomyGuard, EveryToolTimesEveryLevelTimesEveryTurnFollowsTheSeed) {
  std::vector<Case> cases;
  for (const ToolEntry& e : ToolCatalog()) {
    for (Case& c : CasesFor(e.name)) cases.push_back(std::move(c));
  }
  cases.push_back({"browser_navigate", {{"url", "https://example.com"}}, Kind::kUnclassified});
  cases.push_back({"mcp__github__create_issue", {{"title", "x"}}, Kind::kUnclassified});
  int checked = 0;
  for (const Setting& s : AllSettings()) {
    AutonomyLevels levels = LevelsOf(s);
    for (TurnKind turn : AllTurnKinds()) {
      for (const Case& c : cases) {
        std::string level;
        bool want = ExpectedAllowed(c.kind, turn, s, &level);
        GuardDecision d = DecideToolCall(turn, levels, s.paused, c.tool, c.args);
        ++checked;
        ASSERT_EQ(d.allowed, want) << Describe(c, turn, s) << " -> " << d.reason;
        ASSERT_FALSE(d.rule.empty()) << Describe(c, turn, s);
        if (!d.allowed) {
          ASSERT_NE(d.reason.find("refused: "), std::string::npos) << d.reason;
          ASSERT_NE(d.reason.find("create a decision request instead (create_decision_request)"), std::string::npos)
              << Describe(c, turn, s) << " -> " << d.reason;
          if (!level.empty()) {
            ASSERT_NE(d.reason.find("pulse.autonomy." + level), std::string::npos)
                << "the refusal names the level that held it: " << Describe(c, turn, s) << " -> " << d.reason;
            ASSERT_EQ(d.level, level) << Describe(c, turn, s);
          }
        } else {
          ASSERT_EQ(d.reason.rfind("allowed: ", 0), 0u) << d.reason;
        }
      }
    }
  }
  EXPECT_GT(checked, 30000);
}

TEST(AutonomyGuard, RefusalWordingNamesToolClassLevelAndTurn) {
  AutonomyLevels levels;  // defaults: ask
  GuardDecision d = DecideToolCall(TurnKind::kGoalWork, levels, false, "update_step", json::object());
  EXPECT_EQ(d.reason,
            "refused: update_step is a Change tool and pulse.autonomy.change is ask in this goal_work turn; "
            "create a decision request instead (create_decision_request)");
  EXPECT_EQ(d.rule, "change_level");
  levels.run = Level::kAuto;
  d = DecideToolCall(TurnKind::kRunFailed, levels, false, "execute_step", json::object());
  EXPECT_EQ(d.reason,
            "refused: execute_step is a Run tool and pulse.autonomy.run is held at ask in this run_failed turn "
            "(a run_failed turn holds Run, Outward and Change); create a decision request instead "
            "(create_decision_request)");
  d = DecideToolCall(TurnKind::kGoalCheck, levels, true, "execute_step", json::object());
  EXPECT_NE(d.reason.find("schedules are all paused: report-only"), std::string::npos) << d.reason;
}

// The seed's TestGoalWorkAutonomyIsEnforcedAtToolDispatch, over a real
// database and real sessions: change=ask refuses update_step, change=auto
// allows it, directly and through the token-checked dispatch path.
TEST(AutonomyGuard, GoalWorkAutonomyIsEnforcedAtToolDispatch) {
  TempDir dir;
  auto db = Db::Open(dir.Join("db.sqlite"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(EnsureSchema(**db).ok());
  auto ask = ParseWorkflowConfig(R"({"pulse":{"autonomy":{"change":"ask"}}})", "workflow.json");
  auto autoc = ParseWorkflowConfig(R"({"pulse":{"autonomy":{"change":"auto"}}})", "workflow.json");
  ASSERT_TRUE(ask.ok() && autoc.ok());
  auto s = OpenToolSession(**db, "substack", TurnKind::kGoalWork, "", T("2026-10-07T09:00:00Z"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  json args = {{"step_id", "step-growth-summary"}, {"prompt", "..."}};
  for (const WorkflowConfig* config : {&*ask, &*autoc}) {
    bool want = config->autonomy.change == Level::kAuto;
    auto direct = GuardBoundCall(**db, *config, s->session.id, "update_step", args, T("2026-10-07T09:01:00Z"));
    auto http = GuardToolCall(**db, *config, s->session.id, s->token, "update_step", args, T("2026-10-07T09:02:00Z"));
    ASSERT_TRUE(direct.ok() && http.ok());
    EXPECT_EQ(direct->allowed, want);
    EXPECT_EQ(http->allowed, want);
    EXPECT_EQ(direct->reason, http->reason);
    EXPECT_EQ(direct->rule, http->rule);
  }
}

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
  EXPECT_EQ(d.rule, "change_level");
  EXPECT_NE(d.reason.find("call_tool dispatches update_step is a Change tool"), std::string::npos) << d.reason;
  d = DecideToolCall(TurnKind::kGoalWork, levels, false, "invoke",
                     {{"tool", "notify_user"}, {"args", {{"nested", {{"email_cc", "a@b.c"}}}}}});
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.level, "outward");
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
      EXPECT_EQ(d.level, "outward") << a.dump();
    }
    for (const json& a : without) {
      GuardDecision d = DecideToolCall(TurnKind::kGoalCheck, levels, false, "notify_user", a);
      EXPECT_TRUE(d.allowed) << a.dump() << " " << d.reason;
      EXPECT_EQ(d.rule, "notify_owner");
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
    EXPECT_EQ(d.level, "outward") << a.dump();
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
    EXPECT_EQ(d.rule, "gog_read_only");
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
        EXPECT_EQ(d.rule, "soul_md") << tool << " " << args.dump();
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
      EXPECT_EQ(d.rule, "shell_tool_route") << tool;
      EXPECT_NE(d.reason.find("create a decision request instead"), std::string::npos);
    }
  }
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, levels, false, "bash", {{"command", "ls pulse/work"}}).allowed);
}

TEST(AutonomyGuard, BuilderTurnsAndAskRules) {
  AutonomyLevels levels;
  levels.run = levels.outward = levels.change = Level::kAuto;
  // builder_fix: Change only; deletions, plan replacement and migrations still refused.
  EXPECT_TRUE(DecideToolCall(TurnKind::kBuilderFix, levels, false, "update_step", json::object()).allowed);
  EXPECT_FALSE(DecideToolCall(TurnKind::kBuilderFix, levels, false, "execute_step", json::object()).allowed);
  EXPECT_FALSE(DecideToolCall(TurnKind::kBuilderFix, levels, false, "send_slack_message", json::object()).allowed);
  for (const char* t : {"delete_step", "create_plan", "run_migration", "migrate_contract", "set_contract_version"}) {
    GuardDecision d = DecideToolCall(TurnKind::kBuilderFix, levels, false, t, json::object());
    EXPECT_FALSE(d.allowed) << t;
    EXPECT_EQ(d.rule, "always_refused") << t;
  }
  // builder_question: changes, runs and sends nothing, whatever the levels.
  for (const char* t : {"update_step", "execute_step", "send_slack_message", "create_schedule"}) {
    EXPECT_FALSE(DecideToolCall(TurnKind::kBuilderQuestion, levels, false, t, json::object()).allowed) << t;
  }
  EXPECT_TRUE(DecideToolCall(TurnKind::kBuilderQuestion, levels, false, "read_step", json::object()).allowed);
  // No ping-pong, and Pulse never asks itself.
  EXPECT_EQ(DecideToolCall(TurnKind::kBuilderQuestion, levels, false, "ask_goal_lead", json::object()).rule, "no_ping_pong");
  EXPECT_EQ(DecideToolCall(TurnKind::kAskPulse, levels, false, "ask_pulse", json::object()).rule, "no_self_ask");
  EXPECT_TRUE(DecideToolCall(TurnKind::kWorkflowStep, levels, false, "ask_pulse", json::object()).allowed);
  // ask_builder fix: refused from a failed-run turn and for soul.md / deletions / migrations.
  json fix = {{"mode", "fix"}, {"message", "raise the limit"}};
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, levels, false, "ask_builder", fix).allowed);
  EXPECT_EQ(DecideToolCall(TurnKind::kRunFailed, levels, false, "ask_builder", fix).rule, "ask_builder_fix_run_failed");
  EXPECT_EQ(DecideToolCall(TurnKind::kGoalWork, levels, false, "ask_builder",
                           {{"mode", "fix"}, {"message", "delete step-4, it is unused"}}).rule,
            "ask_builder_fix_forbidden");
  EXPECT_EQ(DecideToolCall(TurnKind::kGoalWork, levels, false, "ask_builder",
                           {{"mode", "fix"}, {"message", "tighten the goal in SOUL.md"}}).rule,
            "ask_builder_fix_forbidden");
  EXPECT_TRUE(DecideToolCall(TurnKind::kRunFailed, levels, false, "ask_builder", {{"question", "what changed?"}}).allowed);
  // Answering for the owner: never from a guarded turn.
  EXPECT_EQ(DecideToolCall(TurnKind::kGoalCheck, levels, false, "answer_decision_request", json::object()).rule, "owner_only");
}

TEST(AutonomyGuard, PausedSchedulesComeFromWorkflowJson) {
  TempDir dir;
  auto db = Db::Open(dir.Join("db.sqlite"));
  ASSERT_TRUE(db.ok());
  auto paused = ParseWorkflowConfig(
      R"({"pulse":{"autonomy":{"run":"auto","outward":"auto","change":"auto"}},
          "schedules":[{"id":"daily","cron":"0 9 * * *","enabled":false},{"id":"weekly","enabled":false}]})",
      "workflow.json");
  auto running = ParseWorkflowConfig(
      R"({"pulse":{"autonomy":{"run":"auto","outward":"auto","change":"auto"}},
          "schedules":[{"id":"daily","cron":"0 9 * * *","enabled":false},{"id":"weekly","enabled":true}]})",
      "workflow.json");
  ASSERT_TRUE(paused.ok() && running.ok());
  for (const char* tool : {"execute_step", "update_step", "send_slack_message"}) {
    auto p = GuardTurnCall(db->get(), *paused, TurnKind::kGoalCheck, tool, json::object(), T("2026-10-07T09:00:00Z"));
    auto r = GuardTurnCall(db->get(), *running, TurnKind::kGoalCheck, tool, json::object(), T("2026-10-07T09:00:00Z"));
    ASSERT_TRUE(p.ok() && r.ok());
    EXPECT_FALSE(p->allowed) << tool;
    EXPECT_NE(p->reason.find("report-only"), std::string::npos) << p->reason;
    EXPECT_TRUE(r->allowed) << tool;
  }
  auto read = GuardTurnCall(db->get(), *paused, TurnKind::kGoalCheck, "get_pulse_state", json::object(), T("2026-10-07T09:00:00Z"));
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->allowed);
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = Db::Open(dir_.Join("db.sqlite"));
    ASSERT_TRUE(opened.ok());
    db_ = std::move(opened).value();
    ASSERT_TRUE(EnsureSchema(*db_).ok());
    auto c = ParseWorkflowConfig(R"({"pulse":{"autonomy":{"run":"ask","outward":"ask","change":"ask"}}})", "workflow.json");
    ASSERT_TRUE(c.ok());
    config_ = *c;
  }
  OpenedSession Open(TurnKind turn, const std::string& parent = "") {
    auto s = OpenToolSession(*db_, "substack", turn, parent, now_);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? *s : OpenedSession{};
  }
  TempDir dir_;
  std::unique_ptr<Db> db_;
  WorkflowConfig config_;
  int64_t now_ = T("2026-10-07T09:00:00Z");
};

TEST_F(SessionTest, SessionIdsAreUnattendedAndTokensAreStoredOnlyAsDigests) {
  OpenedSession a = Open(TurnKind::kGoalWork);
  OpenedSession b = Open(TurnKind::kGoalCheck);
  OpenedSession q = Open(TurnKind::kBuilderQuestion);
  std::string hash = Sha256Hex("substack").substr(0, 16);
  EXPECT_EQ(a.session.id, "schedule-goallead--" + hash + "-g1");
  EXPECT_EQ(b.session.id, "schedule-goallead--" + hash + "-g2");
  EXPECT_EQ(q.session.id.rfind("schedule-builder--", 0), 0u);
  OpenedSession h = Open(TurnKind::kGoalWork, a.session.id);
  for (const OpenedSession* x : {&a, &b, &q, &h}) {
    EXPECT_TRUE(SessionBelongsToWorkflow(x->session.id, "substack")) << x->session.id;
    EXPECT_FALSE(SessionBelongsToWorkflow(x->session.id, "other")) << x->session.id;
  }
  EXPECT_EQ(a.token.size(), 64u);
  EXPECT_NE(a.token, b.token);
  auto resolved = ResolveSessionToken(*db_, b.token);
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->id, b.session.id);
  EXPECT_EQ(resolved->turn, TurnKind::kGoalCheck);
  EXPECT_EQ(ResolveSessionToken(*db_, "not-a-token").status().code(), Code::kNotFound);
  // The token is nowhere in the database, its digest is.
  {
    auto st = db_->Prepare("SELECT token_sha256 FROM pulse_tool_sessions WHERE session_id = ?");
    ASSERT_TRUE(st.ok());
    st->Bind(1, a.session.id);
    ASSERT_TRUE(*st->Step());
    EXPECT_EQ(st->Text(0), Sha256Hex(a.token));
  }
  db_.reset();  // the last connection closes: the WAL is checkpointed into the file
  std::string bytes = testing::ReadFileOrDie(dir_.Join("db.sqlite"));
  if (std::filesystem::exists(dir_.Join("db.sqlite-wal"))) bytes += testing::ReadFileOrDie(dir_.Join("db.sqlite-wal"));
  EXPECT_EQ(bytes.find(a.token), std::string::npos);
  EXPECT_NE(bytes.find(Sha256Hex(a.token)), std::string::npos);
}

TEST_F(SessionTest, WrongTokenIsUnauthenticatedNotARefusalAndClosedSessionsAreRefused) {
  OpenedSession a = Open(TurnKind::kGoalWork);
  OpenedSession b = Open(TurnKind::kGoalWork);
  auto wrong = GuardToolCall(*db_, config_, a.session.id, b.token, "read_step", json::object(), now_);
  EXPECT_EQ(wrong.status().code(), Code::kUnauthenticated);
  auto none = GuardToolCall(*db_, config_, a.session.id, "", "read_step", json::object(), now_);
  EXPECT_EQ(none.status().code(), Code::kUnauthenticated);
  auto unknown = GuardToolCall(*db_, config_, "schedule-nope", a.token, "read_step", json::object(), now_);
  EXPECT_EQ(unknown.status().code(), Code::kUnauthenticated);
  EXPECT_EQ(wrong.status().message(), "session \"" + a.session.id + "\": missing or wrong session token");
  auto ok = GuardToolCall(*db_, config_, a.session.id, a.token, "read_step", json::object(), now_);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->allowed);
  auto closed = CloseToolSession(*db_, a.session.id, now_ + 60);
  ASSERT_TRUE(closed.ok());
  auto after = GuardToolCall(*db_, config_, a.session.id, a.token, "read_step", json::object(), now_ + 120);
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->allowed);
  EXPECT_EQ(after->rule, "session_closed");
  EXPECT_NE(after->reason.find("create a decision request instead"), std::string::npos);
  // Unauthenticated calls are not decisions: only the two authenticated ones are recorded.
  auto rows = ListGuardDecisions(*db_, a.session.id);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].rule, "read_only");
  EXPECT_EQ((*rows)[1].rule, "session_closed");
}

TEST_F(SessionTest, HelpersAreHeldLikeTheirRootAndStepsKeepTheirTools) {
  OpenedSession root = Open(TurnKind::kRunFailed);
  OpenedSession helper = Open(TurnKind::kGoalCheck, root.session.id);  // claims another turn: ignored
  OpenedSession nested = Open(TurnKind::kAskPulse, helper.session.id);
  OpenedSession step = Open(TurnKind::kWorkflowStep, root.session.id);
  EXPECT_EQ(helper.session.turn, TurnKind::kRunFailed);
  EXPECT_EQ(nested.session.turn, TurnKind::kRunFailed);
  EXPECT_EQ(nested.session.root, root.session.id);
  EXPECT_EQ(step.session.turn, TurnKind::kWorkflowStep);
  config_.autonomy.run = Level::kAuto;
  for (const OpenedSession* s : {&helper, &nested}) {
    auto d = GuardToolCall(*db_, config_, s->session.id, s->token, "execute_step", json::object(), now_);
    ASSERT_TRUE(d.ok());
    EXPECT_FALSE(d->allowed) << s->session.id;
    EXPECT_NE(d->reason.find("run_failed"), std::string::npos);
  }
  auto st = GuardToolCall(*db_, config_, step.session.id, step.token, "update_step", json::object(), now_);
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(st->allowed);
  EXPECT_EQ(st->rule, "workflow_step");
  // Closing the root closes everything under it.
  auto closed = CloseToolSession(*db_, root.session.id, now_ + 10);
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ(closed->size(), 4u);
  auto late = GuardBoundCall(*db_, config_, nested.session.id, "read_step", json::object(), now_ + 20);
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(late->rule, "session_closed");
  auto orphan = OpenToolSession(*db_, "substack", TurnKind::kGoalWork, root.session.id, now_ + 30);
  EXPECT_EQ(orphan.status().code(), Code::kRefused);
  auto missing = OpenToolSession(*db_, "substack", TurnKind::kGoalWork, "schedule-nope", now_ + 30);
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
}

// The same call, once directly (the server's binding), once through the
// token-checked dispatch the HTTP route uses, once through the API method:
// the same answer every time, and a session or turn smuggled in the
// arguments changes nothing.
TEST_F(SessionTest, DirectAndHttpDispatchAgreeAndSmuggledSessionsChangeNothing) {
  OpenedSession work = Open(TurnKind::kGoalWork);
  OpenedSession step = Open(TurnKind::kWorkflowStep);
  config_.autonomy.outward = Level::kAuto;
  std::vector<std::pair<std::string, json>> calls = {
      {"update_step", {{"step_id", "s1"}}},
      {"update_step", {{"step_id", "s1"}, {"session", step.session.id}, {"turn", "workflow_step"}}},
      {"update_step", {{"session_id", step.session.id}, {"_meta", {{"turn", "workflow_step"}, {"token", step.token}}}}},
      {"Execute-Step", {{"turn", "builder_fix"}}},
      {"send_slack_message", {{"channel", "#x"}}},
      {"gog", {{"args", {"--account", "me", "gmail", "send"}}}},
      {"notify_user", {{"m", {{"email_cc", "a@b.c"}}}}},
      {"delete_step", json::object()},
      {"write_file", {{"path", "./soul.md"}}},
      {"bash", {{"command", "curl $MCP_API_URL/s/x/tools/custom/update_step"}}},
      {"browser_click", {{"selector", "#go"}}},
      {"get_pulse_state", {{"view", "goal_status"}}},
      {"record_pulse_goal_check", {{"status", "on_track"}}},
  };
  ApiContext ctx{db_.get(), nullptr, "substack", config_, ""};
  FixedClockEnv env(DefaultEnv(), now_);
  ctx.env = &env;
  for (const auto& [tool, args] : calls) {
    GuardDecision pure = DecideToolCall(TurnKind::kGoalWork, config_.autonomy, false, tool, args);
    auto direct = GuardBoundCall(*db_, config_, work.session.id, tool, args, now_);
    auto http = GuardToolCall(*db_, config_, work.session.id, work.token, tool, args, now_);
    auto api = CallApi(ctx, "autonomy.guard",
                       {{"session", work.session.id}, {"token", work.token}, {"turn", "workflow_step"},
                        {"tool", tool}, {"args", args}});
    ASSERT_TRUE(direct.ok() && http.ok() && api.ok()) << tool;
    for (const GuardDecision* d : {&*direct, &*http}) {
      EXPECT_EQ(d->allowed, pure.allowed) << tool << " " << args.dump();
      EXPECT_EQ(d->rule, pure.rule) << tool;
      EXPECT_EQ(d->reason, pure.reason) << tool;
    }
    EXPECT_EQ((*api)["allowed"], pure.allowed) << tool;
    EXPECT_EQ((*api)["reason"], pure.reason) << tool;
    EXPECT_EQ((*api)["turn"], "goal_work") << "the API's turn argument is ignored when a session is given";
  }
  // Smuggled arguments did not turn a goal_work update_step into a step's.
  EXPECT_FALSE(DecideToolCall(TurnKind::kGoalWork, config_.autonomy, false, "update_step",
                              {{"session", step.session.id}, {"turn", "workflow_step"}}).allowed);
  // Every decision is recorded under the bound session, with its rule.
  auto rows = ListGuardDecisions(*db_, work.session.id);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), calls.size() * 3);
  for (const GuardRecord& r : *rows) {
    EXPECT_EQ(r.session, work.session.id);
    EXPECT_EQ(r.turn, "goal_work");
    EXPECT_FALSE(r.rule.empty());
  }
  EXPECT_EQ((*rows)[0].args_sha256, Sha256Hex(calls[0].second.dump()));
  auto step_rows = ListGuardDecisions(*db_, step.session.id);
  ASSERT_TRUE(step_rows.ok());
  EXPECT_TRUE(step_rows->empty());
}

TEST_F(SessionTest, ApiMethodsAndBadInput) {
  FixedClockEnv env(DefaultEnv(), now_);
  ApiContext ctx{db_.get(), &env, "substack", config_, ""};
  auto opened = CallApi(ctx, "session.open", {{"turn", "goal_work"}});
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  std::string id = (*opened)["session"];
  std::string token = (*opened)["token"];
  EXPECT_EQ(id.rfind("schedule-goallead--", 0), 0u);
  auto resolved = CallApi(ctx, "session.resolve", {{"token", token}});
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ((*resolved)["session"], id);
  EXPECT_EQ((*resolved)["open"], true);
  auto levels = CallApi(ctx, "autonomy.levels", json::object());
  ASSERT_TRUE(levels.ok());
  EXPECT_EQ(*levels, (json{{"run", "ask"}, {"outward", "ask"}, {"change", "ask"}, {"answer", "recommend"},
                           {"unclassified", "ask"}, {"schedules_paused", false}}));
  auto catalog = CallApi(ctx, "autonomy.catalog", json::object());
  ASSERT_TRUE(catalog.ok());
  EXPECT_EQ((*catalog)["tools"].size(), ToolCatalog().size());
  bool alias_listed = false;
  for (const json& t : (*catalog)["tools"]) {
    if (t["name"] == "ask_pulse") alias_listed = t["aliases"] == json::array({"ask_goal_lead"});
  }
  EXPECT_TRUE(alias_listed);
  auto g = CallApi(ctx, "autonomy.guard", {{"turn", "goal_check"}, {"tool", "update_step"}});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)["allowed"], false);
  auto decisions = CallApi(ctx, "autonomy.decisions", {{"session", ""}});
  ASSERT_TRUE(decisions.ok());
  EXPECT_EQ((*decisions)["decisions"].size(), 1u);
  auto closed = CallApi(ctx, "session.close", {{"session", id}});
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ((*closed)["open"], false);
  EXPECT_EQ((*closed)["closed"], json::array({id}));

  EXPECT_EQ(CallApi(ctx, "autonomy.guard", {{"turn", "lunch"}, {"tool", "x"}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(CallApi(ctx, "autonomy.guard", {{"turn", "goal_work"}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(CallApi(ctx, "autonomy.guard", {{"turn", "goal_work"}, {"tool", "x"}, {"args", "[1]"}}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(CallApi(ctx, "autonomy.guard", {{"session", id}, {"token", "bad"}, {"tool", "x"}}).status().code(),
            Code::kUnauthenticated);
  EXPECT_EQ(CallApi(ctx, "session.open", json::object()).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(CallApi(ctx, "session.close", {{"session", "schedule-nope"}}).status().code(), Code::kNotFound);
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  Sha256 split;
  split.Update("abcdbcdecdefdefgefghfghighijhijk");
  split.Update("ijkljklmklmnlmnomnopnopq");
  EXPECT_EQ(HexEncode(split.Finish()), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
}

}  // namespace
}  // namespace pulse
