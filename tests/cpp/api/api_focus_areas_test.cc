// Focus areas and requests at the API edge (core/api/focus_areas.cc) on a
// real workflow folder: the owner's changes written into workflow.json and
// read back (the context follows them), the actions named when one is not
// allowed, expiry past the end date, and the request list, QA request and
// the server's take of fast requests.
#include "core/api/focus_areas.h"

#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::Workflow;

std::string Refusal(Workflow& wf, const std::string& method, const json& args) {
  Result<json> r = CallApi(wf.ctx, method, args);
  return r.ok() ? "ok: " + r->dump() : r.status().message();
}

TEST(ApiFocusAreas, TheOwnersChangesAreWrittenIntoWorkflowJsonAndListed) {
  Workflow wf;
  EXPECT_EQ(WorkflowJsonPath(wf.ctx), wf.w.paths.dir + "/workflow.json");
  json proposed = wf.Call("focus.change", {{"action", "propose"}, {"title", "Referrals"}, {"end_date", "2026-10-20"},
                                           {"check", "referral signups per week"}});
  const std::string id = proposed["id"];
  EXPECT_EQ(proposed["action"], "propose");
  EXPECT_EQ(proposed["focus_area"]["status"], "proposed");
  json doc = json::parse(testing::ReadFileOrDie(wf.w.paths.workflow_json));
  EXPECT_NE(doc["pulse"].dump().find("Referrals"), std::string::npos) << doc["pulse"].dump();

  json confirmed = wf.Call("focus.change", {{"action", "confirm"}, {"id", id}});
  EXPECT_EQ(confirmed["focus_area"]["status"], "active");
  json list = wf.Call("focus.list", json::object());
  EXPECT_EQ(list["open"], 1);
  EXPECT_EQ(list["max_open"], kMaxOpenFocusAreas);
  EXPECT_EQ(list["default_days"], kDefaultFocusDays);
  ASSERT_EQ(list["focus_areas"].size(), 1u);

  json second = wf.Call("focus.change", {{"action", "propose"}, {"title", "Open rate"}, {"end_date", "2026-10-30"}});
  wf.Call("focus.change", {{"action", "reject"}, {"id", second["id"]}});
  EXPECT_EQ(wf.Call("focus.list", json::object())["focus_areas"].size(), 2u);
  EXPECT_EQ(wf.Call("focus.list", {{"open", true}})["focus_areas"].size(), 1u);

  wf.env.Set(T("2026-10-21T06:00:00Z"));
  json expired = wf.Call("focus.expire", json::object());
  EXPECT_EQ(expired["expired"], json{id});
  EXPECT_EQ(wf.Call("focus.list", json::object())["open"], 0);
  EXPECT_EQ(wf.Call("focus.expire", json::object())["expired"], json::array());
}

TEST(ApiFocusAreas, AnActionNotAllowedIsRefusedListingTheAllowedOnes) {
  Workflow wf;
  EXPECT_EQ(Refusal(wf, "focus.change", {{"action", "archive"}}),
            "focus.change: \"action\" must be one of propose, add, confirm, reject, drop, extend, track, close, not "
            "\"archive\"");
  EXPECT_EQ(Refusal(wf, "focus.change", json::object()), "focus.change: \"action\" is required");
  // Pulse's own tool may only propose, track and close.
  FocusChange change;
  json doc = {{"action", "confirm"}, {"id", "f-1"}};
  Status s = ReadFocusChange(Args("record_pulse_focus_area", doc),
                             {FocusAction::kPropose, FocusAction::kTrack, FocusAction::kClose}, &change);
  EXPECT_EQ(s.message(), "record_pulse_focus_area: \"action\" must be one of propose, track, close, not \"confirm\"");
  json ok = {{"action", "track"}, {"id", "f-1"}, {"note", "two referrals"}};
  ASSERT_TRUE(ReadFocusChange(Args("x", ok), {FocusAction::kTrack}, &change).ok());
  EXPECT_EQ(change.action, FocusAction::kTrack);
  EXPECT_EQ(change.id, "f-1");
  EXPECT_EQ(change.note, "two referrals");
}

TEST(ApiFocusAreas, RequestsAreListedByKindAndFastOnesTakenByTheServer) {
  Workflow wf;
  json qa = wf.Call("qa.request", {{"what", "step-3 writes subscribers.json"}, {"why", "r-2 read zero"}});
  EXPECT_EQ(qa["request"]["kind"], "qa");
  EXPECT_EQ(Refusal(wf, "qa.request", {{"why", "x"}}), "qa.request: \"what\" is required");
  NewRequest fast;
  fast.kind = RequestKind::kFast;
  fast.what = "the owner resumed the schedules";
  ASSERT_TRUE(RecordRequest(*wf.ctx.db, wf.env, fast).ok());

  EXPECT_EQ(wf.Call("request.list", json::object())["requests"].size(), 2u);
  json only_qa = wf.Call("request.list", {{"kind", "qa"}});
  ASSERT_EQ(only_qa["requests"].size(), 1u);
  EXPECT_EQ(only_qa["requests"][0]["id"], qa["request_id"]);
  EXPECT_EQ(Refusal(wf, "request.list", {{"kind", "urgent"}}),
            "request.list: \"kind\" must be qa, fast or builder_ask, not \"urgent\"");

  EXPECT_EQ(ServerApi().AccessFor("request.take_fast", json::object()), Access::kServer);
  json taken = wf.Call("request.take_fast", {{"taken_by", "pass 1"}});
  ASSERT_EQ(taken["taken"].size(), 1u);
  EXPECT_EQ(taken["taken"][0]["what"], "the owner resumed the schedules");
  EXPECT_TRUE(wf.Call("request.take_fast", {{"taken_by", "pass 2"}})["taken"].empty());
  EXPECT_EQ(wf.Call("request.list", {{"kind", "fast"}, {"status", "pending"}})["requests"].size(), 0u);
}

}  // namespace
}  // namespace pulse
