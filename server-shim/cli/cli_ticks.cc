// `pulse ticks`: which instance ticked each workflow, under which etcd claim
// revision (`pulse serve --etcd`): the fence and the recent tick rows.
#include "server-shim/cli/cli.h"
#include "server-shim/cluster/fence.h"

namespace pulse::cli {
namespace {

Result<nlohmann::json> ReadOne(Env& env, const std::string& workspace, const std::string& wf, int64_t limit) {
  if (!env.FileExists(workspace + "/Workflow/" + wf + "/db/db.sqlite")) {
    return nlohmann::json{{"workflow", wf}, {"fence", nullptr}, {"ticks", nlohmann::json::array()}};
  }
  OpenWorkflowOptions o;
  o.create_db = false;
  PULSE_ASSIGN_OR_RETURN(OpenedWorkflow w, OpenWorkflow(env, workspace, wf, o));
  PULSE_ASSIGN_OR_RETURN(nlohmann::json doc, serve::ReadFencedTicks(*w.db, limit));
  doc["workflow"] = wf;
  return doc;
}

void Print(const nlohmann::json& doc) {
  const nlohmann::json& ticks = doc["ticks"];
  std::cout << doc["workflow"].get<std::string>() << ": ";
  if (doc["fence"].is_null()) {
    std::cout << "never ticked under an etcd claim\n";
    return;
  }
  const nlohmann::json& last = ticks.empty() ? doc["fence"] : ticks.back();
  std::cout << "claim revision " << doc["fence"]["revision"] << " held by " << JsonText(doc["fence"]["holder"]) << "; "
            << ticks.size() << " tick row(s), the last by " << JsonText(last.value("instance", doc["fence"]["holder"]))
            << " at " << JsonText(last["at"]) << "\n";
}

void Setup(CLI::App& app, State& state) {
  static int64_t limit = serve::kTickRowsKept;
  CLI::App* sub = app.add_subcommand(
      "ticks", "which instance ticked each workflow and under which etcd claim (pulse serve --etcd)");
  AddCommonOptions(sub, state, /*needs_workflow=*/false);
  sub->add_option("--workflow", state.globals.workflow, "one workflow's slug (default: every workflow)");
  sub->add_option("--limit", limit, "the newest tick rows per workflow to show (default all kept)")
      ->check(CLI::Range(int64_t{0}, serve::kTickRowsKept));
  sub->callback([&state] {
    Result<Env*> env = GetEnv(state);
    if (!env.ok()) { state.exit_code = Fail(env.status()); return; }
    std::vector<std::string> names;
    if (!state.globals.workflow.empty()) {
      names.push_back(state.globals.workflow);
    } else {
      Result<std::vector<std::string>> all = ListWorkflows(**env, state.globals.workspace);
      if (!all.ok()) { state.exit_code = Fail(all.status()); return; }
      names = *all;
    }
    nlohmann::json out = {{"workflows", nlohmann::json::array()}};
    for (const std::string& wf : names) {
      Result<nlohmann::json> doc = ReadOne(**env, state.globals.workspace, wf, limit);
      if (!doc.ok()) { state.exit_code = Fail(doc.status()); return; }
      if (state.globals.json) out["workflows"].push_back(*doc);
      else Print(*doc);
    }
    if (state.globals.json) PrintJson(out);
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("ticks", Setup);
}  // namespace pulse::cli
