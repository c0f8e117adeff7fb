// The autonomy guard against the rules Pulse was given for its turns. The
// expected outcomes come from
// ExpectedAllowed below, written from the autonomy rules' own text (docs/autonomy.md) with its own tool
// lists; it never calls the implementation's classification.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "core/api/api.h"
#include "core/autonomy/autonomy.h"
#include "core/store/schema.h"
#include "core/base/sha256.h"
#include "core/autonomy/tool_catalog.h"
#include "core/workflow/workflow_config.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::TempDir;

// ------------------------------------------------ the autonomy rules, restated

// What a call is, by the rules' text (not by the catalog).
enum class Kind {
  kRun,            // "Run at ask refuses execute_step, run_full_workflow, ..."
  kChange,         // "Change at ask refuses the Builder plan tools, update_step_config, ..."
  kOutward,        // "Outward at ask refuses send_slack_message and Slack writes, gog writes, notify_user to email"
  kAlways,         // "Always refused in Goal Work: delete steps/schedules, create_plan, migrations, contract version"
  kFree,           // read-only tools, Pulse's own records and receipts
  kLocal,          // gog read-only, notify_user in-app, draft files: free, but neither a read of the workflow nor a record
  kBackupPublish,  // a backup or publish tool the catalog does not know: the housekeeping turn's own work
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
  // The receipts of Workflow Review and of after-run housekeeping: records too.
  if (name == "record_workflow_review" || name == "record_housekeeping") return {{name, json::object(), Kind::kFree}};
  if (kSeedFileWrite.count(name)) {
    return {{name, {{"path", "pulse/work/draft.md"}, {"content", "x"}}, Kind::kLocal},
            {name, {{"path", "./Soul.md"}, {"content", "x"}}, Kind::kNever},
            {name, {{"file_path", "planning/plan.json"}}, Kind::kChange}};
  }
  if (kSeedShell.count(name)) {
    return {{name, {{"command", "ls -la pulse/work"}}, Kind::kUnclassified},
            {name, {{"command", "curl -X POST -H \"Authorization: Bearer $MCP_API_TOKEN\" \"$MCP_API_URL/s/abc/tools/custom/update_step\""}}, Kind::kNever}};
  }
  if (name == "gog") {
    return {{name, {{"args", {"gmail", "search", "from:me newer_than:7d"}}}, Kind::kLocal},
            {name, {{"args", {"gmail", "send", "--to", "a@b.c", "--subject", "hi"}}}, Kind::kOutward},
            {name, {{"command", "drive ls"}}, Kind::kLocal},
            {name, {{"command", "calendar create --title standup"}}, Kind::kOutward}};
  }
  if (name == "notify_user") {
    return {{name, {{"message", "goal at risk"}}, Kind::kLocal},
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

// The rules' holds, turn by turn:
// - goal_check, goal_work (+ receipt), ask_pulse: the workflow's pulse.autonomy;
// - run_failed: Run, Outward, Change held; builder_question: all three at ask;
// - builder_fix: Change only (no run, no send);
// - qa_fix: Run held, Outward and Change at the workflow's levels;
// - workflow_review: Run and Outward held (it stands before a run), Change at
//   the workflow's level (it may mend the plan); it never asks a Builder chat
//   (its break goes to its own conversation and the stopped run);
// - housekeeping: "limited to those actions": reads, records and the backup
//   and publish tools only; Run and Change held, nothing else;
// - any turn on a workflow whose schedules are all paused: report-only, all held;
// - workflow steps keep their normal tools.
bool ExpectedAllowed(Kind kind, TurnKind turn, const Setting& s, std::string* level) {
  level->clear();
  if (turn == TurnKind::kWorkflowStep) return true;
  bool run = s.run_auto, outward = s.outward_auto, change = s.change_auto;
  if (s.paused || turn == TurnKind::kRunFailed || turn == TurnKind::kBuilderQuestion) run = outward = change = false;
  if (turn == TurnKind::kBuilderFix || turn == TurnKind::kWorkflowReview) run = outward = false;
  if (turn == TurnKind::kQaFix) run = false;
  const bool housekeeping = turn == TurnKind::kHousekeeping;
  if (housekeeping) run = change = false;
  switch (kind) {
    case Kind::kRun: *level = "run"; return run;
    case Kind::kChange: *level = "change"; return change;
    case Kind::kOutward:
      // Housekeeping refuses a send whatever the level; at ask the level says so.
      if (!outward || !housekeeping) *level = "outward";
      return outward && !housekeeping;
    case Kind::kAlways: return false;
    case Kind::kFree: return true;
    case Kind::kLocal: return !housekeeping;
    case Kind::kUnclassified:
      if (!s.unclassified_allow || !housekeeping) *level = "unclassified";
      return s.unclassified_allow && !housekeeping;
    case Kind::kBackupPublish: *level = "unclassified"; return s.unclassified_allow;
    case Kind::kNever: return false;
    // A QA fix run may ask the Builder too (a fix only at its Change level).
    case Kind::kAskBuilderQuestion: return IsPulseTurnName(turn) || turn == TurnKind::kQaFix;
    case Kind::kAskBuilderFix:
      if ((!IsPulseTurnName(turn) && turn != TurnKind::kQaFix) || turn == TurnKind::kRunFailed) return false;
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
  cases.push_back({"backup_workspace", {{"provider", "s3"}}, Kind::kBackupPublish});
  cases.push_back({"publish_site", {{"provider", "netlify"}}, Kind::kBackupPublish});
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
        if (!d.allowed) {
          ASSERT_NE(d.reason.find("refused: "), std::string::npos) << d.reason;
          ASSERT_NE(d.reason.find("create a decision request instead (create_decision_request)"), std::string::npos)
              << Describe(c, turn, s) << " -> " << d.reason;
          if (!level.empty()) {
            ASSERT_NE(d.reason.find("pulse.autonomy." + level), std::string::npos)
                << "the refusal names the level that held it: " << Describe(c, turn, s) << " -> " << d.reason;
            ASSERT_EQ(GuardLevelName(d.level), level) << Describe(c, turn, s);
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
  EXPECT_STREQ(GuardRuleName(d.rule), "change_level");
  levels.run = Level::kAuto;
  d = DecideToolCall(TurnKind::kRunFailed, levels, false, "execute_step", json::object());
  EXPECT_EQ(d.reason,
            "refused: execute_step is a Run tool and pulse.autonomy.run is held at ask in this run_failed turn "
            "(a run_failed turn holds Run, Outward and Change); create a decision request instead "
            "(create_decision_request)");
  d = DecideToolCall(TurnKind::kGoalCheck, levels, true, "execute_step", json::object());
  EXPECT_NE(d.reason.find("schedules are all paused: report-only"), std::string::npos) << d.reason;
}

// Goal Work's autonomy enforced at tool dispatch, over a real
// database and real sessions: change=ask refuses update_step, change=auto
// allows it, directly and through the token-checked dispatch path.
TEST(AutonomyGuard, GoalWorkAutonomyIsEnforcedAtToolDispatch) {
  TempDir dir;
  auto db = testing::OpenWithSchema(dir.Join("db.sqlite"));
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
    EXPECT_STREQ(GuardRuleName(d.rule), "always_refused") << t;
  }
  // builder_question: changes, runs and sends nothing, whatever the levels.
  for (const char* t : {"update_step", "execute_step", "send_slack_message", "create_schedule"}) {
    EXPECT_FALSE(DecideToolCall(TurnKind::kBuilderQuestion, levels, false, t, json::object()).allowed) << t;
  }
  EXPECT_TRUE(DecideToolCall(TurnKind::kBuilderQuestion, levels, false, "read_step", json::object()).allowed);
  // No ping-pong, and Pulse never asks itself.
  EXPECT_STREQ(GuardRuleName(DecideToolCall(TurnKind::kBuilderQuestion, levels, false, "ask_goal_lead", json::object()).rule), "no_ping_pong");
  EXPECT_STREQ(GuardRuleName(DecideToolCall(TurnKind::kAskPulse, levels, false, "ask_pulse", json::object()).rule), "no_self_ask");
  EXPECT_TRUE(DecideToolCall(TurnKind::kWorkflowStep, levels, false, "ask_pulse", json::object()).allowed);
  // ask_builder fix: refused from a failed-run turn and for soul.md / deletions / migrations.
  json fix = {{"mode", "fix"}, {"message", "raise the limit"}};
  EXPECT_TRUE(DecideToolCall(TurnKind::kGoalWork, levels, false, "ask_builder", fix).allowed);
  EXPECT_STREQ(GuardRuleName(DecideToolCall(TurnKind::kRunFailed, levels, false, "ask_builder", fix).rule), "ask_builder_fix_run_failed");
  EXPECT_STREQ(GuardRuleName(DecideToolCall(TurnKind::kGoalWork, levels, false, "ask_builder",
                           {{"mode", "fix"}, {"message", "delete step-4, it is unused"}}).rule),
            "ask_builder_fix_forbidden");
  EXPECT_STREQ(GuardRuleName(DecideToolCall(TurnKind::kGoalWork, levels, false, "ask_builder",
                           {{"mode", "fix"}, {"message", "tighten the goal in SOUL.md"}}).rule),
            "ask_builder_fix_forbidden");
  EXPECT_TRUE(DecideToolCall(TurnKind::kRunFailed, levels, false, "ask_builder", {{"question", "what changed?"}}).allowed);
  // Answering for the owner: never from a guarded turn.
  EXPECT_STREQ(GuardRuleName(DecideToolCall(TurnKind::kGoalCheck, levels, false, "answer_decision_request", json::object()).rule), "owner_only");
}

TEST(AutonomyGuard, PausedSchedulesComeFromWorkflowJson) {
  TempDir dir;
  auto db = testing::OpenWithSchema(dir.Join("db.sqlite"));
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

}  // namespace
}  // namespace pulse
