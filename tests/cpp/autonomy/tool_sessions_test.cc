// Guarded tool sessions: ids, tokens stored as digests, helpers held like
// their root, closing, and the guard at dispatch through a session.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "core/autonomy/autonomy.h"
#include "core/store/schema.h"
#include "core/base/sha256.h"
#include "core/autonomy/tool_catalog.h"
#include "core/autonomy/tool_sessions.h"
#include "core/workflow/workflow_config.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::TempDir;

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
  EXPECT_EQ(a.session.id, "schedule-goallead--" + hash + "-o1");
  EXPECT_EQ(b.session.id, "schedule-goallead--" + hash + "-o2");
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
  EXPECT_STREQ(GuardRuleName(after->rule), "session_closed");
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
  EXPECT_STREQ(GuardRuleName(st->rule), "workflow_step");
  // Closing the root closes everything under it.
  auto closed = CloseToolSession(*db_, root.session.id, now_ + 10);
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ(closed->size(), 4u);
  auto late = GuardBoundCall(*db_, config_, nested.session.id, "read_step", json::object(), now_ + 20);
  ASSERT_TRUE(late.ok());
  EXPECT_STREQ(GuardRuleName(late->rule), "session_closed");
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
  ctx.api = &ServerApi();  // the guard's method is the server's and the CLI's (core/api/api.h)
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
  // The core's table (the WebAssembly module's) says where the guard runs.
  auto here = CallApi(ctx, "autonomy.guard", {{"turn", "goal_check"}, {"tool", "update_step"}});
  ASSERT_EQ(here.status().code(), Code::kNotFound);
  EXPECT_NE(here.status().message().find("`pulse serve` and `pulse guard`, not in the WebAssembly module"),
            std::string::npos) << here.status().message();
  ctx.api = &ServerApi();
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


TEST(ToolSessions, UnattendedPrefixesIgnoreCaseBlanksAndUnderscores) {
  for (const char* id : {"schedule-x", "SCHEDULE-x", " schedule-x", "schedule_x", "Schedule - x", "BG-1", "bg_1",
                         "PULSE-x", "pulse_turn-1", "background-job", "BACKGROUND_job", "\tbg-1"}) {
    EXPECT_TRUE(HasUnattendedPrefix(id)) << id;
  }
  for (const char* id : {"", "owner-chat-1", "owner", "schedulex", "bgx", "pulsex", "my-schedule-x"}) {
    EXPECT_FALSE(HasUnattendedPrefix(id)) << id;
  }
}

// A session is resolved once with what the guard needs: whether its root is
// still open comes with it, and authentication names no session.
TEST_F(SessionTest, ResolvedSessionsCarryTheirRootAndAuthenticateByToken) {
  OpenedSession root = Open(TurnKind::kGoalWork);
  OpenedSession helper = Open(TurnKind::kGoalWork, root.session.id);
  auto a = AuthenticateSession(*db_, helper.session.id, helper.token);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE(a->usable());
  EXPECT_EQ(AuthenticateSession(*db_, helper.session.id, root.token).status().code(), Code::kUnauthenticated);
  EXPECT_EQ(AuthenticateSession(*db_, "schedule-nope", root.token).status().code(), Code::kUnauthenticated);
  EXPECT_EQ(AuthenticateSession(*db_, helper.session.id, "").status().code(), Code::kUnauthenticated);
  // Only the root is closed here (directly in the table): the helper reads unusable.
  ASSERT_TRUE(db_->Exec("UPDATE pulse_tool_sessions SET closed_at = '2026-10-07T09:30:00Z' WHERE session_id = '" +
                        root.session.id + "'").ok());
  auto h = ResolveSessionToken(*db_, helper.token);
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->open());
  EXPECT_FALSE(h->usable());
  // The typed entry takes the resolved session as it is and refuses.
  auto d = GuardSessionCall(*db_, config_, *h, "read_step", json::object(), now_);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->allowed);
  EXPECT_EQ(d->rule, GuardRule::kSessionClosed);
  auto rows = ListGuardDecisions(*db_, helper.session.id);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].rule, "session_closed");
  EXPECT_EQ((*rows)[0].tool_normalized, "read_step");
  EXPECT_EQ((*rows)[0].tool_class, "read_only");
}

}  // namespace
}  // namespace pulse
