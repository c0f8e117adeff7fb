// `pulse observe`, `pulse finalize-run`, `pulse check`: file reading and
// printing only; the rules are the goal.* API methods (core/api/goal.cc).
//
// schedule-runs.json (runs older than Pulse's own records) is imported, when
// present, by both finalize-run (in the same transaction as the run's own
// facts) and check (before the check reads): the import is idempotent (known
// runs are skipped), and a malformed file stops the command with exit 2
// before any row is written.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "agent/outbox/after_run_actions.h"
#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "core/goal/goal_facts.h"
#include "core/base/time_util.h"
#include "server-shim/cli/cli.h"
#include "server-shim/tick/tick_import.h"
#include "server-shim/cli/cli_facts.h"

namespace pulse::cli {
namespace {

using nlohmann::json;

struct ObserveFlags {
  std::string metric, value, at, source, run_id;
};

void SetupObserve(CLI::App& app, State& state) {
  static ObserveFlags f;
  CLI::App* sub = app.add_subcommand("observe", "record a metric reading");
  AddCommonOptions(sub, state);
  sub->add_option("--metric", f.metric, "the metric's name")->required();
  sub->add_option("--value", f.value, "the reading")->required();
  sub->add_option("--at", f.at, "when it was read (RFC 3339; default: now)");
  sub->add_option("--source", f.source, "workflow_run, builder_chat or manual")->required();
  sub->add_option("--run-id", f.run_id, "the run that took the reading");
  sub->callback([&state] {
    // Checked before the workflow is opened: a refused value writes nothing.
    Result<double> value = ParseReadingValue(f.value, "--value");
    if (!value.ok()) { state.exit_code = Fail(value.status()); return; }
    Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
    if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
    ApiContext ctx = ServerContext(**w);
    json args = {{"metric", f.metric}, {"value", *value}, {"source", f.source}};
    if (!f.at.empty()) args["at"] = f.at;
    if (!f.run_id.empty()) args["run_id"] = f.run_id;
    Result<json> out = CallApi(ctx, "goal.observe", args);
    if (!out.ok()) { state.exit_code = Fail(out.status()); return; }
    if (state.globals.json) {
      PrintJson(*out);
    } else {
      std::cout << "recorded " << (*out)["metric"].get<std::string>() << " = " << (*out)["value"].dump() << " at "
                << (*out)["at"].get<std::string>() << " (" << f.source << ")\n";
    }
  });
}

void PrintAfterRun(const json& a) {
  if (a.value("already", false)) {
    std::cout << "  after-run options: already carried out for this run\n";
    return;
  }
  std::cout << "  after-run options (" << a["source"].get<std::string>() << "):";
  for (const char* k : {"notify", "backup", "publish"}) {
    const json& x = a[k];
    std::cout << " " << k << " " << x["state"].get<std::string>();
    if (x.contains("why")) std::cout << " (" << x["why"].get<std::string>() << ")";
    std::cout << (std::string(k) == "publish" ? "" : ";");
  }
  std::cout << "\n";
}

void SetupFinalize(CLI::App& app, State& state) {
  static struct { std::string run_dir; } f;
  CLI::App* sub = app.add_subcommand("finalize-run", "the after-run hook: record a finished run's goal facts");
  AddCommonOptions(sub, state);
  sub->add_option("--run-dir", f.run_dir, "the run's folder (holds run.json and route_selection.json)")->required();
  sub->callback([&state] {
    Result<Env*> env = GetEnv(state);
    if (!env.ok()) { state.exit_code = Fail(env.status()); return; }
    // Every input is read and checked before anything is written.
    Result<RunRecord> run = ReadRunFolder(**env, f.run_dir);
    if (!run.ok()) { state.exit_code = Fail(run.status()); return; }
    Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
    if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
    ApiContext ctx = ServerContext(**w);
    json args = {{"route", run->route},
                 {"run", {{"run_id", run->run_id}, {"started_at", FormatTime(run->started_at)},
                          {"finished_at", FormatTime(run->finished_at)}, {"status", run->status},
                          {"trigger", run->trigger}, {"error", run->error}}}};
    // The older runs and this run are recorded in one transaction.
    const std::string& older = (*w)->paths()->schedule_runs;
    if ((*env)->FileExists(older)) {
      Result<json> doc = ReadJsonFile(**env, older);
      if (!doc.ok()) { state.exit_code = Fail(doc.status()); return; }
      Status valid = ParseScheduleRuns(*doc, older).status();
      if (!valid.ok()) { state.exit_code = Fail(valid); return; }
      args["schedule_runs"] = *doc;
      args["schedule_runs_source"] = older;
    }
    Result<json> out = CallApi(ctx, "goal.record_run", args);
    if (!out.ok()) { state.exit_code = Fail(out.status().WithContext(f.run_dir)); return; }
    // The run's after-run options: notify, backup, publish.
    Result<json> after = CarryOutAfterRun(ctx, *run);
    if (!after.ok()) { state.exit_code = Fail(after.status().WithContext(f.run_dir + ": after-run options")); return; }
    (*out)["after_run"] = *after;
    if (state.globals.json) {
      PrintJson(*out);
    } else {
      const json& o = *out;
      std::cout << o["run_id"].get<std::string>() << ": " << o["outcome"].get<std::string>() << " (route "
                << o["route"].get<std::string>() << (o["primary_route"].get<bool>() ? ", the goal's route" : "")
                << ", " << o["status"].get<std::string>()
                << (o["primary_reading"].get<bool>() ? ", primary reading taken" : ", no primary reading") << ")\n";
      PrintAfterRun(o["after_run"]);
    }
  });
}

void PrintCheck(const json& c) {
  std::cout << c["workflow"].get<std::string>() << ": " << c["status"].get<std::string>() << " (checked "
            << c["checked_at"].get<std::string>() << ")\n";
  if (!c["metric"].is_null()) {
    const json& m = c["metric"];
    std::cout << "  " << m["name"].get<std::string>() << ": "
              << (m["value"].is_null() ? std::string("no reading") : m["value"].dump());
    if (!m["target"].is_null()) std::cout << " (target " << m["target"].dump() << ")";
    std::cout << "\n  last measured: " << (m["last_measured_at"].is_null() ? "never" : m["last_measured_at"].get<std::string>())
              << "; by a workflow run: "
              << (m["last_measured_by_run_at"].is_null() ? "never" : m["last_measured_by_run_at"].get<std::string>())
              << "\n";
  }
  if (c["alarms"].empty()) {
    std::cout << "  no alarms\n";
  } else {
    std::cout << "  alarms:\n";
    for (const json& a : c["alarms"]) std::cout << "    - " << a["message"].get<std::string>() << "\n";
  }
  for (const json& r : c["outside_run_readings"]) {
    std::cout << "  reading from outside a run: " << r["source"].get<std::string>() << " at "
              << r["at"].get<std::string>() << "\n";
  }
  if (c["quiet"].get<bool>()) std::cout << "  quiet: the pause was already reported and nothing changed since\n";
  if (c.contains("attention") && !c["attention"].empty()) {
    std::cout << "  needs attention:\n";
    for (const json& a : c["attention"]) {
      std::cout << "    - " << a["severity"].get<std::string>() << " " << a["kind"].get<std::string>() << ": "
                << a["text"].get<std::string>()
                << (a.value("snoozed", false) ? " (snoozed" + (a.contains("snoozed_until") ? " until " + a["snoozed_until"].get<std::string>() : std::string(" until it changes")) + ")" : "")
                << "\n";
    }
  }
  if (c.contains("facts")) PrintFacts(c["facts"]);
}

void SetupCheck(CLI::App& app, State& state) {
  static struct { bool record = false; std::string fail_on; } f;
  CLI::App* sub = app.add_subcommand("check", "the goal check: status, key number, last measured, alarms, attention");
  AddCommonOptions(sub, state);
  sub->add_flag("--record", f.record, "store the check (what makes \"paused: said once, then quiet\" work)");
  CLI::Option* fail_on_flag = sub->add_option(
      "--fail-on", f.fail_on,
      "exit 1 when the status, or the kind of an attention item not snoozed, is one of these (comma-separated, "
      "e.g. not_measured,off_track,needs_reauth); without it a bad status still exits 0");
  sub->callback([&state, fail_on_flag] {
    std::vector<std::string> fail_on;
    if (fail_on_flag->count() > 0) {
      Result<std::vector<std::string>> parsed = ParseFailOn(f.fail_on);
      if (!parsed.ok()) { state.exit_code = Fail(parsed.status()); return; }
      fail_on = *parsed;
    }
    Result<Env*> env = GetJudgingEnv(state);
    if (!env.ok()) { state.exit_code = Fail(env.status()); return; }
    Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
    if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
    ApiContext ctx = ServerContext(**w);
    // As the tick: an unchanged file is not read again (tick_import.h).
    Result<ImportCounts> imported =
        serve::ImportScheduleRunsOnChange(*state.env, (*w)->db(), (*w)->config(), (*w)->paths()->schedule_runs);
    if (!imported.ok()) { state.exit_code = Fail(imported.status()); return; }
    Result<json> out = CallApi(ctx, "goal.check", json{{"record", f.record}});
    if (!out.ok()) { state.exit_code = Fail(out.status()); return; }
    // A bad goal status is a finding, not an error: exit 0, unless the
    // caller (cron, CI) asked to be alerted on it with --fail-on.
    if (state.globals.json) {
      PrintJson(*out);
    } else {
      std::cout << ClockLine(state) << "\n";
      PrintCheck(*out);
    }
    const std::string why = FailOnReason(*out, fail_on);
    if (!why.empty()) {
      std::cerr << "pulse: " << (*out)["workflow"].get<std::string>() << " " << why << " (--fail-on)" << std::endl;
      state.exit_code = 1;
    }
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("observe", SetupObserve);
PULSE_REGISTER_COMMAND("finalize-run", SetupFinalize);
PULSE_REGISTER_COMMAND("check", SetupCheck);
}  // namespace pulse::cli
