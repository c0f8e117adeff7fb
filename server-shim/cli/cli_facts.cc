// `pulse facts`: the goal check's context facts since the last recorded
// check (the goal.facts API method; the outside files are snapshotted into
// the workflow database first, with a warning line on stderr for each
// skipped line or row). Also the text form `pulse check` prints under the
// check.
#include <cstdio>

#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "server-shim/cli/cli.h"
#include "server-shim/cli/cli_facts.h"

namespace pulse::cli {

using nlohmann::json;

namespace {

std::string Money(const json& v) {
  if (!v.is_number()) return "—";
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", v.get<double>());
  return buf;
}

std::string Str(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string Num(const json& v) {
  if (!v.is_number()) return Str(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v.get<double>());
  return buf;
}

std::string Percent(const json& v) { return v.is_number() ? Num(json(v.get<double>() * 100)) + "%" : "—"; }

}  // namespace

void PrintFacts(const json& f) {
  std::cout << "  facts since " << Str(f["since"]) << (f["last_check_at"].is_null() ? " (no recorded check: the last 7 days)" : " (the last recorded check)") << ":\n";
  for (const json& c : f["plan_changes"]) {
    std::cout << "    plan change " << Str(c["at"]) << " " << Str(c["tool"])
              << (Str(c["who"]).empty() ? "" : " by " + Str(c["who"]))
              << (c["touches_goal"].get<bool>() ? " [touches the goal: ask the Builder]" : "") << ": "
              << Str(c["reason"]) << "\n";
  }
  for (const json& a : f["owner_answers"]) {
    std::cout << "    owner answered decision " << a["decision_id"].dump() << " (" << Str(a["question"]) << "): "
              << Str(a["answer"]) << "\n";
  }
  const json& s = f["spend"];
  if (!s["unreadable"].is_null()) {
    std::cout << "    spend: " << Str(s["unreadable"]) << "\n";
  } else {
    std::cout << "    spend: " << Money(s["last_7_days_usd"]) << " in the last 7 days, "
              << Money(s["previous_7_days_usd"]) << " the 7 before"
              << (s["ratio"].is_null() ? "" : " (×" + Num(s["ratio"]) + ")") << "; no budget is set\n";
  }
  for (const json& c : f["cost_spikes"]) {
    std::cout << "    cost spike: run " << Str(c["run_id"]) << " cost " << Money(c["usd"]) << ", " << Num(c["ratio"])
              << "× the 14-day median run (" << Money(c["median_run_usd"]) << "), route "
              << (Str(c["route"]).empty() ? "unknown" : Str(c["route"]))
              << (c["goal_route"].get<bool>() ? " (the goal's route)" : "") << "\n";
  }
  const json& e = f["error_rate"];
  std::cout << "    error rate: " << e["failed"].dump() << " of " << e["runs"].dump() << " runs failed"
            << (e["median_daily_share"].is_null() ? "" : " (the 14-day median day: " + Percent(e["median_daily_share"]) + ")")
            << (e["spike"].get<bool>() ? " — a spike" : "") << "\n";
  for (const json& h : f["login_hints"]) {
    std::cout << "    login hint: run " << Str(h["run_id"]) << " " << Str(h["pattern"]) << " in its " << Str(h["where"])
              << ": \"" << Str(h["matched"]) << "\"\n";
  }
  if (f["needs_reauth"].get<bool>()) std::cout << "    needs re-auth: re-connect what the runs above use\n";
  for (const json& u : f["unreadable"]) std::cout << "    " << Str(u) << "\n";
}

namespace {

void SetupFacts(CLI::App& app, State& state) {
  CLI::App* sub = app.add_subcommand("facts", "the goal check's context facts since the last recorded check");
  AddCommonOptions(sub, state);
  sub->callback([&state] {
    Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
    if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
    ApiContext ctx = ServerContext(**w);
    Result<json> out = CallApi(ctx, "goal.facts", json::object());
    if (!out.ok()) { state.exit_code = Fail(out.status()); return; }
    if (state.globals.json) {
      PrintJson(*out);
    } else {
      std::cout << Str((*out)["workflow"]) << ":\n";
      PrintFacts(*out);
    }
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("facts", SetupFacts);
}  // namespace pulse::cli
