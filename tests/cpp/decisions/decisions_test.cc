// Decisions: recommendations, the owner-only answer rule, the decision log,
// outcomes_due and answer=act, through the API table on a real workspace.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/api/api.h"
#include "core/conversation/conversation.h"
#include "core/decisions/decisions.h"
#include "core/autonomy/tool_sessions.h"
#include "core/store/workspace.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::ReadFileOrDie;
using testing::T;
using testing::TempDir;
using testing::WriteFile;

std::string Config(const std::string& change, const std::string& answer) {
  return R"({"pulse": {"enabled": true, "autonomy": {"run": "ask", "outward": "ask", "change": ")" + change +
         R"(", "answer": ")" + answer + R"("}}})";
}

struct Workflow {
  TempDir dir;
  std::string ws;
  FixedClockEnv env{DefaultEnv(), T("2026-10-07T09:00:00Z")};
  std::unique_ptr<OpenedWorkflow> w;
  ApiContext ctx;
  explicit Workflow(const std::string& config = Config("ask", "recommend")) {
    ws = testing::MakeWorkspace(dir, "substack", config);
    Reopen();
  }
  void Reopen() {
    auto opened = OpenWorkflow(env, ws, "substack");
    EXPECT_TRUE(opened.ok()) << opened.status().message();
    w = std::make_unique<OpenedWorkflow>(std::move(opened).value());
    ctx = ApiContext{w->db.get(), &env, "substack", w->config, w->paths.dir};
  }
  Result<json> Call(const char* method, const json& args) { return CallApi(ctx, method, args); }
  json Ok(const char* method, const json& args) {
    Result<json> r = Call(method, args);
    EXPECT_TRUE(r.ok()) << method << ": " << r.status().message();
    return r.ok() ? *r : json();
  }
  std::string Memory() { return ReadFileOrDie(w->paths.goal_memory); }
  json Decision(int64_t id) {
    json list = Ok("decision.list", json::object());
    for (const json& d : list["decisions"]) {
      if (d["id"] == id) return d;
    }
    return json();
  }
};

int64_t Create(Workflow& wf) {
  json out = wf.Ok("decision.create", {{"question", "Which growth route should run next week?"},
                                       {"options", {"growth_funnel", "publish_review"}},
                                       {"blocks", "next week's schedule"},
                                       {"raised_by", "schedule-goallead--ab12-g1"}});
  return out["id"].get<int64_t>();
}

// Pulse recommends; only the owner answers.
TEST(Decisions, GoalLeadRecommendsAndOnlyTheOwnerAnswers) {
  Workflow wf;
  int64_t id = Create(wf);
  const std::string pulse = "schedule-goallead--ab12-g1";
  json rec = wf.Ok("decision.recommend", {{"id", id},
                                           {"option", "growth_funnel"},
                                           {"why", "the metric has not been measured for 20 days"},
                                           {"evidence", "growth_funnel ran 6 times without a reading"},
                                           {"confidence", "medium"},
                                           {"session", pulse}});
  EXPECT_EQ(rec["recommendation"]["option"], "growth_funnel");
  EXPECT_EQ(rec["recommendation"]["session"], pulse);
  EXPECT_EQ(rec["recommendation"]["blocks"], "next week's schedule");
  EXPECT_EQ(rec["status"], "pending");
  ASSERT_EQ(rec["events"].size(), 2u);
  EXPECT_EQ(rec["events"][1]["kind"], "recommended");

  // Pulse's own session (and any scheduled or background one) cannot answer.
  for (const std::string& s : {pulse, std::string("schedule-daily-7"), std::string("pulse-check-1"), std::string("bg-42")}) {
    Result<json> r = wf.Call("decision.answer", {{"id", id}, {"accept", true}, {"session", s}});
    ASSERT_FALSE(r.ok()) << s;
    EXPECT_EQ(r.status().code(), Code::kRefused);
    EXPECT_NE(r.status().message().find("only the owner answers"), std::string::npos);
  }
  json d = wf.Decision(id);
  EXPECT_EQ(d["status"], "pending");
  EXPECT_TRUE(d["answer"].is_null());
  EXPECT_EQ(d["recommendation"]["status"], "open");
  EXPECT_FALSE(std::filesystem::exists(wf.w->paths.goal_memory));

  // The owner's Accept answers with the recommended option.
  json ans = wf.Ok("decision.answer", {{"id", id}, {"accept", true}, {"note", "and measure it this time"}});
  EXPECT_EQ(ans["status"], "answered");
  EXPECT_EQ(ans["answer"]["option"], "growth_funnel");
  EXPECT_EQ(ans["answer"]["by"], "owner");
  EXPECT_EQ(ans["answer"]["kind"], "accepted");
  EXPECT_FALSE(ans["answer"]["overruled_pulse"].get<bool>());
  EXPECT_EQ(ans["recommendation"]["status"], "accepted");
  std::string memory = wf.Memory();
  EXPECT_NE(memory.find("## Owner preferences and answers\n- 2026-10-07 [owner answer] \"Which growth route should run "
                        "next week?\" → growth_funnel (note: and measure it this time); accepted Pulse's recommendation\n"),
            std::string::npos)
      << memory;
  // Answering again is a conflict and changes nothing.
  Result<json> again = wf.Call("decision.answer", {{"id", id}, {"option", "publish_review"}});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kConflict);
  EXPECT_EQ(wf.Decision(id)["answer"]["option"], "growth_funnel");
}

// An answer in the owner's words that ends its own sentence: the clause is
// a sentence of its own in goal memory, not "…today.; overruled".
TEST(Decisions, AnAnswerEndingItsSentenceIsNotFollowedBySemicolon) {
  Workflow wf;
  int64_t own = wf.Ok("decision.create", {{"question", "Resume the schedules?"}})["id"];
  wf.Ok("decision.recommend", {{"id", own}, {"text", "Keep them paused"}, {"why", "w"}, {"confidence", "low"}});
  wf.Ok("decision.answer", {{"id", own}, {"text", "Resume them today."}});
  EXPECT_NE(wf.Memory().find("→ Resume them today. Overruled Pulse (recommended Keep them paused)."), std::string::npos) << wf.Memory();
  EXPECT_EQ(wf.Memory().find(".; "), std::string::npos) << wf.Memory();
}

TEST(Decisions, ChangeOverrulesAndDismissCloses) {
  Workflow wf;
  int64_t a = Create(wf);
  wf.Ok("decision.recommend", {{"id", a}, {"option", "growth_funnel"}, {"why", "w"}, {"confidence", "low"}});
  json changed = wf.Ok("decision.answer", {{"id", a}, {"option", "publish_review"}});
  EXPECT_EQ(changed["answer"]["kind"], "changed");
  EXPECT_TRUE(changed["answer"]["overruled_pulse"].get<bool>());
  EXPECT_EQ(changed["recommendation"]["status"], "changed");
  EXPECT_NE(wf.Memory().find("→ publish_review; overruled Pulse (recommended growth_funnel)"), std::string::npos);

  int64_t b = wf.Ok("decision.create", {{"question", "Name the newsletter?"}})["id"];
  wf.Ok("decision.recommend", {{"id", b}, {"text", "The Weekly Pulse"}, {"why", "w"}, {"confidence", "high"}});
  json dismissed = wf.Ok("decision.answer", {{"id", b}, {"dismiss", true}});
  EXPECT_EQ(dismissed["status"], "dismissed");
  EXPECT_EQ(dismissed["recommendation"]["status"], "dismissed");
  EXPECT_NE(wf.Memory().find("\"Name the newsletter?\" → dismissed"), std::string::npos);

  // Free text with no recommendation at all.
  int64_t c = wf.Ok("decision.create", {{"question", "Anything else?"}})["id"];
  json free = wf.Ok("decision.answer", {{"id", c}, {"text", "post on Tuesdays"}});
  EXPECT_EQ(free["answer"]["kind"], "answered");
  EXPECT_NE(wf.Memory().find("→ post on Tuesdays; no Pulse recommendation"), std::string::npos);

  EXPECT_EQ(wf.Ok("decision.list", {{"status", "pending"}})["decisions"].size(), 0u);
  EXPECT_EQ(wf.Ok("decision.list", {{"status", "answered"}})["decisions"].size(), 2u);
  EXPECT_EQ(wf.Ok("decision.list", {{"status", "dismissed"}})["decisions"].size(), 1u);
}

TEST(Decisions, BadRecommendationsAreClearErrorsAndStoreNothing) {
  Workflow wf;
  int64_t id = Create(wf);
  auto code = [&](const json& args) {
    Result<json> r = wf.Call("decision.recommend", args);
    return r.ok() ? Code::kOk : r.status().code();
  };
  json base{{"id", id}, {"option", "growth_funnel"}, {"why", "w"}, {"confidence", "high"}};
  json unknown = base; unknown["id"] = 999;
  EXPECT_EQ(code(unknown), Code::kNotFound);
  json bad_option = base; bad_option["option"] = "paid_ads";
  EXPECT_EQ(code(bad_option), Code::kInvalidArgument);
  json bad_conf = base; bad_conf["confidence"] = "certain";
  EXPECT_EQ(code(bad_conf), Code::kInvalidArgument);
  json bad_time = base; bad_time["safe_default_by"] = "next tuesday";
  EXPECT_EQ(code(bad_time), Code::kInvalidArgument);
  json past = base; past["safe_default_by"] = "2026-10-01T00:00:00Z";
  EXPECT_EQ(code(past), Code::kInvalidArgument);
  json text_for_options = base; text_for_options.erase("option"); text_for_options["text"] = "x";
  EXPECT_EQ(code(text_for_options), Code::kInvalidArgument);
  json no_why = base; no_why.erase("why");
  EXPECT_EQ(code(no_why), Code::kInvalidArgument);
  json bad_needs = base; bad_needs["needs"] = "everything";
  EXPECT_EQ(code(bad_needs), Code::kInvalidArgument);
  Result<json> bad_id = wf.Call("decision.recommend", json{{"id", "d-1"}, {"option", "x"}, {"why", "w"}, {"confidence", "low"}});
  ASSERT_FALSE(bad_id.ok());
  EXPECT_NE(bad_id.status().message().find("not a decision id"), std::string::npos);

  // safe_default_by: refused below high confidence, and when applying needs a level held at ask.
  json medium = base; medium["confidence"] = "medium"; medium["safe_default_by"] = "2026-10-09T09:00:00Z";
  Result<json> r = wf.Call("decision.recommend", medium);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kRefused);
  EXPECT_NE(r.status().message().find("high confidence"), std::string::npos);
  json change = base; change["safe_default_by"] = "2026-10-09T09:00:00Z";
  r = wf.Call("decision.recommend", change);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kRefused);
  EXPECT_NE(r.status().message().find("change=auto"), std::string::npos);
  // needs=none is within any levels.
  json none = change; none["needs"] = "none";
  EXPECT_EQ(code(none), Code::kOk);
  EXPECT_EQ(wf.Decision(id)["recommendation"]["needs"], "none");
  auto n = wf.w->db->QueryInt64("SELECT count(*) FROM pulse_recommendations");
  EXPECT_EQ(*n, 1);

  // Once answered, no more recommendations.
  wf.Ok("decision.answer", {{"id", id}, {"accept", true}});
  EXPECT_EQ(code(base), Code::kConflict);
  // Answers: an option not offered, nothing chosen, two things chosen.
  int64_t other = Create(wf);
  EXPECT_EQ(wf.Call("decision.answer", {{"id", other}, {"option", "paid_ads"}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(wf.Call("decision.answer", {{"id", other}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(wf.Call("decision.answer", {{"id", other}, {"accept", true}, {"dismiss", true}}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(wf.Call("decision.answer", {{"id", other}, {"accept", true}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(wf.Decision(other)["status"], "pending");
}

TEST(Decisions, ANewerRecommendationSupersedesTheOpenOne) {
  Workflow wf;
  int64_t id = Create(wf);
  wf.Ok("decision.recommend", {{"id", id}, {"option", "growth_funnel"}, {"why", "first pass"}, {"confidence", "low"}});
  wf.env.Advance(kSecondsPerDay);
  wf.Ok("decision.recommend", {{"id", id}, {"option", "publish_review"}, {"why", "second pass"}, {"confidence", "medium"}});
  json d = wf.Decision(id);
  EXPECT_EQ(d["recommendation"]["option"], "publish_review");
  EXPECT_EQ(d["recommendation"]["why"], "second pass");
  EXPECT_EQ(*wf.w->db->QueryInt64("SELECT count(*) FROM pulse_recommendations WHERE status = 'superseded'"), 1);
  EXPECT_GT(d["waited_seconds"].get<int64_t>(), 0);
}

TEST(Decisions, OutcomesAreDueADayAfterTheAnswer) {
  Workflow wf;
  int64_t id = Create(wf);
  wf.Ok("decision.answer", {{"id", id}, {"option", "growth_funnel"}});
  EXPECT_EQ(wf.Ok("decision.list", json::object())["outcomes_due"].size(), 0u);
  wf.env.Advance(kSecondsPerDay);  // exactly a day: not over a day yet
  EXPECT_EQ(wf.Ok("decision.list", json::object())["outcomes_due"].size(), 0u);
  wf.env.Advance(1);
  json due = wf.Ok("decision.list", {{"status", "pending"}})["outcomes_due"];
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0]["id"], id);
  json out = wf.Ok("decision.outcome", {{"id", id}, {"result", "a reading was recorded on 9 Oct: 431 subscribers"}});
  EXPECT_EQ(out["outcome"]["result"], "a reading was recorded on 9 Oct: 431 subscribers");
  EXPECT_EQ(wf.Ok("decision.list", json::object())["outcomes_due"].size(), 0u);
  EXPECT_NE(wf.Memory().find("## Decisions and outcomes\n- 2026-10-08 [result] \"Which growth route should run next "
                             "week?\" → growth_funnel: a reading was recorded on 9 Oct: 431 subscribers"),
            std::string::npos)
      << wf.Memory();
  // Outcome for a pending decision: a conflict.
  int64_t pending = Create(wf);
  EXPECT_EQ(wf.Call("decision.outcome", {{"id", pending}, {"result", "x"}}).status().code(), Code::kConflict);
  EXPECT_EQ(wf.Call("decision.outcome", {{"id", 404}, {"result", "x"}}).status().code(), Code::kNotFound);
}

TEST(Decisions, AnUnreadableGoalMdLeavesTheDecisionPending) {
  Workflow wf;
  int64_t id = Create(wf);
  std::filesystem::create_directories(wf.w->paths.goal_memory);  // a directory where goal.md belongs
  Result<json> r = wf.Call("decision.answer", {{"id", id}, {"option", "growth_funnel"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("goal.md"), std::string::npos);
  json d = wf.Decision(id);
  EXPECT_EQ(d["status"], "pending");
  EXPECT_TRUE(d["answer"].is_null());
}

TEST(Decisions, AnswerActAppliesTheSafeDefaultAndTheOwnerCanOverrule) {
  Workflow wf(Config("auto", "act"));
  int64_t id = Create(wf);
  wf.Ok("decision.recommend", {{"id", id}, {"option", "growth_funnel"}, {"why", "no reading for 20 days"},
                               {"confidence", "high"}, {"safe_default_by", "2026-10-08T09:00:00Z"},
                               {"session", "schedule-goallead--ab12-g1"}});
  // Not yet due.
  json early = wf.Ok("decision.apply_due_defaults", json::object());
  EXPECT_EQ(early["applied"].size(), 0u);
  wf.env.Set(T("2026-10-08T09:00:00Z"));
  json applied = wf.Ok("decision.apply_due_defaults", json::object());
  ASSERT_EQ(applied["applied"].size(), 1u);
  json d = applied["applied"][0];
  EXPECT_EQ(d["status"], "answered");
  EXPECT_EQ(d["answer"]["by"], "pulse");
  EXPECT_TRUE(d["answer"]["applied_by_pulse"].get<bool>());
  EXPECT_EQ(d["answer"]["kind"], "applied_by_pulse");
  EXPECT_EQ(d["recommendation"]["status"], "applied");
  EXPECT_NE(wf.Memory().find("[Pulse inference] \"Which growth route should run next week?\" → growth_funnel: Pulse "
                             "applied its safe default"),
            std::string::npos);
  // Running again applies nothing more.
  EXPECT_EQ(wf.Ok("decision.apply_due_defaults", json::object())["applied"].size(), 0u);

  // The owner overrules it afterwards.
  wf.env.Advance(3600);
  json over = wf.Ok("decision.answer", {{"id", id}, {"option", "publish_review"}, {"note", "drafts first"}});
  EXPECT_EQ(over["answer"]["by"], "owner");
  EXPECT_FALSE(over["answer"]["applied_by_pulse"].get<bool>());
  EXPECT_TRUE(over["answer"]["overruled_pulse"].get<bool>());
  EXPECT_EQ(over["answer"]["option"], "publish_review");
  EXPECT_EQ(over["recommendation"]["status"], "overruled");
  EXPECT_EQ(over["events"].back()["kind"], "overruled_default");
  EXPECT_NE(wf.Memory().find("→ publish_review (note: drafts first); overruled Pulse's applied default (growth_funnel)"),
            std::string::npos);
  // And now it is the owner's answer: final.
  EXPECT_EQ(wf.Call("decision.answer", {{"id", id}, {"option", "growth_funnel"}}).status().code(), Code::kConflict);
}

TEST(Decisions, AnswerRecommendNeverApplies) {
  // change=auto so the safe default is accepted, but answer=recommend.
  Workflow wf(Config("auto", "recommend"));
  int64_t id = Create(wf);
  wf.Ok("decision.recommend", {{"id", id}, {"option", "growth_funnel"}, {"why", "w"}, {"confidence", "high"},
                               {"safe_default_by", "2026-10-08T09:00:00Z"}});
  wf.env.Set(T("2026-10-20T09:00:00Z"));
  json out = wf.Ok("decision.apply_due_defaults", json::object());
  EXPECT_EQ(out["answer"], "recommend");
  EXPECT_EQ(out["applied"].size(), 0u);
  EXPECT_EQ(wf.Decision(id)["status"], "pending");
  EXPECT_FALSE(std::filesystem::exists(wf.w->paths.goal_memory));
}

TEST(Decisions, AnswerActSkipsADefaultOnceItsLevelIsHeldAgain) {
  Workflow wf(Config("auto", "act"));
  int64_t id = Create(wf);
  wf.Ok("decision.recommend", {{"id", id}, {"option", "growth_funnel"}, {"why", "w"}, {"confidence", "high"},
                               {"safe_default_by", "2026-10-08T09:00:00Z"}});
  // The owner turns change back to ask before the default is due.
  WriteFile(wf.w->paths.workflow_json, Config("ask", "act"));
  wf.Reopen();
  wf.env.Set(T("2026-10-09T09:00:00Z"));
  json out = wf.Ok("decision.apply_due_defaults", json::object());
  EXPECT_EQ(out["applied"].size(), 0u);
  ASSERT_EQ(out["skipped"].size(), 1u);
  EXPECT_NE(out["skipped"][0]["reason"].get<std::string>().find("change=auto"), std::string::npos);
  EXPECT_EQ(wf.Decision(id)["status"], "pending");
}

TEST(Decisions, SessionsKnownToTheDatabaseAsPulseTurnsCannotAnswer) {
  Workflow wf;
  // The autonomy module's guarded sessions.
  json opened = wf.Ok("session.open", {{"turn", "goal_check"}});
  std::string turn_session = opened["session"];
  EXPECT_TRUE(*IsUnattendedSession(*wf.w->db, turn_session));
  EXPECT_FALSE(*IsUnattendedSession(*wf.w->db, "owner-chat-1"));
  EXPECT_FALSE(*IsUnattendedSession(*wf.w->db, ""));
  int64_t id = Create(wf);
  EXPECT_EQ(wf.Call("decision.answer", {{"id", id}, {"option", "growth_funnel"}, {"session", turn_session}}).status().code(),
            Code::kRefused);
  json ok = wf.Ok("decision.answer", {{"id", id}, {"option", "growth_funnel"}, {"session", "owner-chat-1"}});
  EXPECT_EQ(ok["answer"]["session"], "owner-chat-1");
}

// Only the owner answers: one test per leg of WhyUnattended. Each leg meets
// a real session of its kind (refused, the refusal naming that leg, so a leg
// switched off shows even where the name would also have caught it) and a
// session only that leg can know, whose id says nothing (answered for the
// owner if the leg were gone). The legs are named in docs/decisions.md.

// The answer from `session` is refused by `leg`: the refusal says `words`,
// the log keeps an answer_refused event naming the leg, and nothing else
// changes (still pending, no answer, no goal memory).
void ExpectRefusedBy(Workflow& wf, const std::string& session, const std::string& leg, const std::string& words) {
  SCOPED_TRACE(session);
  int64_t id = Create(wf);
  Result<UnattendedBy> by = WhyUnattended(*wf.w->db, session);
  ASSERT_TRUE(by.ok()) << by.status().message();
  EXPECT_EQ(UnattendedByName(*by), leg);
  Result<json> r = wf.Call("decision.answer", {{"id", id}, {"option", "growth_funnel"}, {"session", session}});
  ASSERT_FALSE(r.ok()) << "answered for the owner: " << r->dump();
  EXPECT_EQ(r.status().code(), Code::kRefused);
  EXPECT_NE(r.status().message().find(words), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("only the owner answers"), std::string::npos);
  json d = wf.Decision(id);
  EXPECT_EQ(d["status"], "pending");
  EXPECT_TRUE(d["answer"].is_null());
  ASSERT_FALSE(d["events"].empty());
  EXPECT_EQ(d["events"].back()["kind"], "answer_refused");
  EXPECT_EQ(d["events"].back()["actor"], session);
  EXPECT_EQ(d["events"].back()["detail"]["leg"], leg);
  EXPECT_FALSE(std::filesystem::exists(wf.w->paths.goal_memory));
}

// After the refusals, a session no leg knows still answers for the owner.
void ExpectOwnerAnswers(Workflow& wf, const std::string& session) {
  int64_t id = Create(wf);
  EXPECT_EQ(UnattendedByName(*WhyUnattended(*wf.w->db, session)), std::string());
  json ok = wf.Ok("decision.answer", {{"id", id}, {"option", "growth_funnel"}, {"session", session}});
  EXPECT_EQ(ok["answer"]["by"], "owner");
  EXPECT_EQ(ok["answer"]["session"], session);
}

TEST(OwnerOnlyAnswers, LegNamePrefix) {
  Workflow wf;
  for (const char* s : {"schedule-daily-7", "pulse-check-1", "bg-42", "background-sync", "Schedule_daily"}) {
    ExpectRefusedBy(wf, s, "name_prefix", "named as a Pulse, scheduled or background session");
  }
  ExpectOwnerAnswers(wf, "owner-chat-1");
}

TEST(OwnerOnlyAnswers, LegPulseTurnSessions) {
  Workflow wf;
  Db& db = *wf.w->db;
  // Pulse's own conversation session, as the server opens it for each turn,
  // and a helper its turn delegated to.
  const std::string conversation = ConversationSessionId("substack", 1);
  ASSERT_TRUE(OpenConversationTurnSession(db, conversation, TurnKind::kGoalCheck, wf.env.NowSeconds()).ok());
  Result<OpenedSession> helper = OpenToolSession(db, "substack", TurnKind::kGoalWork, conversation, wf.env.NowSeconds());
  ASSERT_TRUE(helper.ok()) << helper.status().message();
  // Known only as a Pulse turn: its id carries no unattended prefix.
  ASSERT_TRUE(OpenConversationTurnSession(db, "goallead-7", TurnKind::kAskPulse, wf.env.NowSeconds()).ok());
  for (const std::string& s : {conversation, helper->session.id, std::string("goallead-7")}) {
    ExpectRefusedBy(wf, s, "pulse_turn", "a session of Pulse's own turns");
  }
  ExpectOwnerAnswers(wf, "owner-chat-1");
}

TEST(OwnerOnlyAnswers, LegGuardedToolSessions) {
  Workflow wf;
  // `pulse session open` (an external agent's turn), a helper under it, and
  // one closed since: the database still knows it.
  json opened = wf.Ok("session.open", {{"turn", "builder_question"}});
  const std::string session = opened["session"];
  json helper = wf.Ok("session.open", {{"turn", "builder_question"}, {"parent", session}});
  json closed = wf.Ok("session.open", {{"turn", "goal_work"}});
  wf.Ok("session.close", {{"session", closed["session"]}});
  // A guarded session whose id the name does not give away (a row from
  // another naming): only the database knows what it is.
  json renamed = wf.Ok("session.open", {{"turn", "qa_fix"}});
  ASSERT_TRUE(wf.w->db->Exec("UPDATE pulse_tool_sessions SET session_id = 'agent-ext-1', root = 'agent-ext-1'"
                             " WHERE session_id = '" + renamed["session"].get<std::string>() + "'").ok());
  for (const std::string& s : {session, helper["session"].get<std::string>(), closed["session"].get<std::string>(),
                               std::string("agent-ext-1")}) {
    ExpectRefusedBy(wf, s, "tool_session", "a guarded tool session");
  }
  ExpectOwnerAnswers(wf, "owner-chat-1");
}

TEST(OwnerOnlyAnswers, LegAgentLogSessions) {
  Workflow wf;
  // A Builder chat's delegated agent, known only from the background agent
  // log (recorded, not opened through the guard), and one still running
  // under Pulse's conversation id.
  wf.Ok("agent_log.started", {{"session", "builder-7f3a"}, {"agent", "sub-1"}, {"kind", "call_sub_agent"}});
  wf.Ok("agent_log.started", {{"session", "claude-0b9c2e"}, {"agent", "a"}});
  wf.Ok("agent_log.completed", {{"session", "claude-0b9c2e"}, {"agent", "a"}, {"status", "completed"}});
  wf.Ok("agent_log.started", {{"session", "schedule-goallead--substack-g1"}, {"agent", "gate-1"}});
  for (const char* s : {"builder-7f3a", "claude-0b9c2e", "schedule-goallead--substack-g1"}) {
    ExpectRefusedBy(wf, s, "agent_log", "a background agent's session in the agent log");
  }
  ExpectOwnerAnswers(wf, "builder-7f3b");
}

TEST(Decisions, TheBrowserPathWorksFromTheDatabaseAlone) {
  Workflow wf;
  // No workflow_dir: only the database, as in the browser.
  ApiContext db_only{wf.w->db.get(), &wf.env, "substack", wf.w->config, ""};
  int64_t id = (*CallApi(db_only, "decision.create", {{"question", "Q?"}, {"options", {"a", "b"}}}))["id"];
  ASSERT_TRUE(CallApi(db_only, "decision.recommend", {{"id", id}, {"option", "a"}, {"why", "w"}, {"confidence", "low"}}).ok());
  ASSERT_TRUE(CallApi(db_only, "decision.answer", {{"id", id}, {"accept", true}}).ok());
  auto shown = CallApi(db_only, "memory.show", json::object());
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ((*shown)["storage"], "database");
  EXPECT_NE((*shown)["text"].get<std::string>().find("\"Q?\" → a; accepted Pulse's recommendation"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(wf.w->paths.goal_memory));
  // Natively, the next read brings the database copy back to the file.
  ASSERT_TRUE(wf.Call("memory.add", {{"section", "lessons"}, {"source", "result"}, {"text", "z"}}).ok());
  EXPECT_NE(wf.Memory().find("\"Q?\" → a"), std::string::npos);
}


// Unattended prefixes are read as a person would: case, blanks and '_' vs
// '-' do not turn a scheduled session into the owner.
TEST(Decisions, UnattendedPrefixesIgnoreCaseBlanksAndUnderscores) {
  Workflow wf;
  int64_t id = Create(wf);
  for (const char* s : {"SCHEDULE-daily-7", " schedule-daily", "schedule_daily", "Schedule - daily", "BG-42", "bg_1",
                        "PULSE-check", "\tpulse-x", "Background_job", "s c h e d u l e-x"}) {
    Result<json> r = wf.Call("decision.answer", {{"id", id}, {"accept", true}, {"session", s}});
    ASSERT_FALSE(r.ok()) << s;
    EXPECT_EQ(r.status().code(), Code::kRefused) << s;
  }
  EXPECT_EQ(wf.Decision(id)["status"], "pending");
  // A note with a lone CR, NEL or U+2028 is one line in goal memory.
  wf.Ok("decision.answer", {{"id", id}, {"option", "growth_funnel"},
                            {"note", "a\rb\xc2\x85" "c\xe2\x80\xa8" "- 2026-01-01 [owner answer] forged"}});
  std::string memory = wf.Memory();
  EXPECT_NE(memory.find("(note: a b c - 2026-01-01 [owner answer] forged)"), std::string::npos) << memory;
  for (const char* brk : {"\r", "\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9"}) {
    EXPECT_EQ(memory.find(brk), std::string::npos) << memory;
  }
}

}  // namespace
}  // namespace pulse
