// `pulse status`: every workflow of a workspace in one table, worst first —
// the goal check of each (as `pulse check`, not recorded), its key number,
// its attention items (core/attention/attention.h), pending decisions and
// last recorded check. The Pulse tab's overview shows the same rows in the
// same order (the attention rank, then the goal status).
#include <algorithm>
#include <cstdio>
#include <tuple>

#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "core/goal/goal_facts.h"
#include "core/base/time_util.h"
#include "server-shim/cli/cli.h"
#include "server-shim/tick/tick_import.h"

namespace pulse::cli {
namespace {

using nlohmann::json;

// One workflow's row; a workflow that cannot be read gets its reason.
json StatusRow(State& state, const std::string& name) {
  json row = {{"workflow", name}};
  State one;
  one.globals = state.globals;
  one.globals.workflow = name;
  one.env = std::make_unique<FixedClockEnv>(DefaultEnv(), state.env->NowSeconds());
  Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(one);
  if (!w.ok()) {
    row["status"] = "error";
    row["error"] = w.status().message();
    return row;
  }
  ApiContext ctx = ServerContext(**w);
  Result<ImportCounts> imported = serve::ImportScheduleRunsOnChange(*one.env, (*w)->db(), (*w)->config(), (*w)->paths()->schedule_runs);
  Result<json> check = imported.ok() ? CallApi(ctx, "goal.check", json::object()) : Result<json>(imported.status());
  if (!check.ok()) {
    row["status"] = "error";
    row["error"] = check.status().message();
    return row;
  }
  const json& c = *check;
  row["status"] = c["status"];
  row["metric"] = c["metric"];
  row["alarms"] = c["alarms"].size();
  row["worst_alarm"] = c["alarms"].empty() ? json(nullptr) : c["alarms"][0]["message"];
  row["attention"] = c["attention"];
  row["rank"] = c["rank"];
  row["needs_attention"] = c["needs_attention"];
  Result<json> pending = CallApi(ctx, "decision.list", json{{"status", "pending"}});
  row["pending_decisions"] = pending.ok() ? json((*pending)["decisions"].size()) : json(nullptr);
  Result<json> last = CallApi(ctx, "goal.last_check", json::object());
  row["last_recorded_check_at"] = last.ok() ? (*last)["checked_at"] : json(nullptr);
  return row;
}

std::string Cell(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// The worst item not snoozed, and how many more: "critical: Needs re-auth: … (+2 more)".
std::string AttentionCell(const json& r) {
  if (r.contains("error")) return r["error"].get<std::string>();
  std::vector<const json*> open;
  if (r.contains("attention")) {
    for (const json& item : r["attention"]) {
      if (!item.value("snoozed", false)) open.push_back(&item);
    }
  }
  if (open.empty()) return "-";
  std::string cell = (*open[0])["severity"].get<std::string>() + ": " + (*open[0])["text"].get<std::string>();
  if (open.size() > 1) cell += " (+" + std::to_string(open.size() - 1) + " more)";
  return cell;
}

void PrintTable(const json& rows) {
  std::printf("%-24s %-13s %-16s %-8s %s\n", "WORKFLOW", "STATUS", "KEY NUMBER", "PENDING", "NEEDS ATTENTION");
  for (const json& r : rows) {
    std::string key = "-";
    if (r.contains("metric") && r["metric"].is_object() && !r["metric"]["value"].is_null()) {
      key = Cell(r["metric"]["value"]);
      if (!r["metric"]["target"].is_null()) key += " / " + Cell(r["metric"]["target"]);
    }
    std::printf("%-24s %-13s %-16s %-8s %s\n", r["workflow"].get<std::string>().c_str(), r["status"].get<std::string>().c_str(),
                key.c_str(), Cell(r.value("pending_decisions", json(nullptr))).c_str(), AttentionCell(r).c_str());
  }
}

void Setup(CLI::App& app, State& state) {
  static std::string fail_on_text;
  CLI::App* sub = app.add_subcommand("status", "every workflow of the workspace, worst first: status, key number, what needs attention");
  AddCommonOptions(sub, state, false);
  CLI::Option* fail_on_flag = sub->add_option(
      "--fail-on", fail_on_text,
      "exit 1 when any workflow's status, or a kind of its attention items, is one of these (comma-separated)");
  sub->callback([&state, fail_on_flag] {
    std::vector<std::string> fail_on;
    if (fail_on_flag->count() > 0) {
      Result<std::vector<std::string>> parsed = ParseFailOn(fail_on_text);
      if (!parsed.ok()) { state.exit_code = Fail(parsed.status()); return; }
      fail_on = *parsed;
    }
    Result<Env*> env = GetJudgingEnv(state);
    if (!env.ok()) { state.exit_code = Fail(env.status()); return; }
    Status workspace = CheckWorkspace(**env, state.globals.workspace);
    if (!workspace.ok()) { state.exit_code = Fail(workspace); return; }
    Result<std::vector<std::string>> names = ListWorkflows(**env, state.globals.workspace);
    if (!names.ok()) { state.exit_code = Fail(names.status()); return; }
    std::vector<json> rows;
    for (const std::string& name : *names) rows.push_back(StatusRow(state, name));
    // Worst first: the attention rank (core/attention/attention.h), then the
    // goal status, then more open items; names stay in order otherwise.
    auto key = [](const json& r) {
      const int rank = r.contains("error") ? 0 : r.value("rank", 9);
      int open = 0;
      for (const json& item : r.value("attention", json::array())) open += item.value("snoozed", false) ? 0 : 1;
      return std::make_tuple(rank, StatusRank(r["status"].get<std::string>()), -open);
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const json& a, const json& b) { return key(a) < key(b); });
    json out = {{"checked_at", FormatTime((*env)->NowSeconds())},
                {"clock", {{"now", FormatTime((*env)->NowSeconds())}, {"source", state.clock}}},
                {"workflows", rows}};
    if (state.globals.json) {
      PrintJson(out);
    } else {
      std::cout << ClockLine(state) << "\n";
      if (rows.empty()) std::cout << "no workflows under " << state.globals.workspace << "/Workflow/\n";
      else PrintTable(out["workflows"]);
    }
    for (const json& r : rows) {
      const std::string why = FailOnReason(r, fail_on);
      if (why.empty()) continue;
      std::cerr << "pulse: " << r["workflow"].get<std::string>() << " " << why << " (--fail-on)" << std::endl;
      state.exit_code = 1;
    }
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("status", Setup);
}  // namespace pulse::cli
