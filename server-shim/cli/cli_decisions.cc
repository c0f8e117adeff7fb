// `pulse decision create|recommend|answer|outcome|list|apply-defaults` and
// `pulse memory show|add|consolidate|save` (docs/decisions.md). Each calls the same
// API method the server and the browser use; no rule lives here.
#include <iostream>
#include <optional>

#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "core/base/env.h"
#include "server-shim/cli/cli.h"
#include "server-shim/serve.h"

namespace pulse::cli {
namespace {

using nlohmann::json;

void PrintDecision(const json& d) {
  std::cout << "#" << d["id"] << " [" << JsonText(d["status"]) << "] " << JsonText(d["question"]) << "\n";
  if (!d["options"].empty()) {
    std::cout << "    options:";
    for (const json& o : d["options"]) std::cout << " \"" << JsonText(o) << "\"";
    std::cout << "\n";
  }
  if (!JsonText(d["blocks"]).empty()) std::cout << "    blocks: " << JsonText(d["blocks"]) << "\n";
  if (d.contains("waited_seconds")) {
    int64_t s = d["waited_seconds"].get<int64_t>();
    std::cout << "    waiting " << s / 86400 << "d " << (s % 86400) / 3600 << "h (since " << JsonText(d["created_at"]) << ")\n";
  }
  const json& r = d["recommendation"];
  if (!r.is_null()) {
    std::cout << "    Pulse recommends: " << (r["option"].is_null() ? JsonText(r["text"]) : JsonText(r["option"])) << " ("
              << JsonText(r["confidence"]) << " confidence, " << JsonText(r["status"]) << ") because " << JsonText(r["why"]) << "\n";
    if (!JsonText(r["evidence"]).empty()) std::cout << "    evidence: " << JsonText(r["evidence"]) << "\n";
    if (!r["safe_default_by"].is_null()) std::cout << "    safe default by: " << JsonText(r["safe_default_by"]) << "\n";
  }
  const json& a = d["answer"];
  if (!a.is_null()) {
    std::cout << "    answer: " << (JsonText(a["kind"]) == "dismissed" ? "dismissed" : JsonText(a["chosen"])) << " by "
              << JsonText(a["by"]) << " (" << JsonText(a["kind"]) << ") at " << JsonText(a["answered_at"]);
    if (!JsonText(a["note"]).empty()) std::cout << "; note: " << JsonText(a["note"]);
    if (a["overruled_pulse"].get<bool>()) std::cout << "; overruled Pulse";
    std::cout << "\n";
  }
  if (!d["outcome"].is_null()) std::cout << "    result: " << JsonText(d["outcome"]["result"]) << "\n";
}

// Each subcommand keeps its flags in one struct, a function-local static
// (CLI11 binds to the fields by reference; each Setup runs once per process).
void SetupDecisionCreate(CLI::App* dec, State& state) {
  static struct { std::string question, blocks, raised_by; std::vector<std::string> options; } f;
  auto* sub = dec->add_subcommand("create", "open a pending decision request (prints its id)");
  AddCommonOptions(sub, state);
  sub->add_option("--question", f.question, "the question for the owner")->required();
  sub->add_option("--option", f.options, "an option (repeat for each); none: a free-text answer");
  sub->add_option("--blocks", f.blocks, "what waits on the answer");
  sub->add_option("--raised-by", f.raised_by, "who raised it (a session or a name)");
  sub->callback([&state] {
    json args{{"question", f.question}, {"options", f.options}, {"blocks", f.blocks}, {"raised_by", f.raised_by}};
    auto out = CallOnWorkflow(state, "decision.create", args);
    if (!out) return;
    if (state.globals.json) PrintJson(*out);
    else std::cout << (*out)["id"].get<int64_t>() << "\n";
  });
}

void SetupDecisionRecommend(CLI::App* dec, State& state) {
  static struct { std::string id, option, text, why, evidence, confidence, safe_by, needs, session; } f;
  auto* sub = dec->add_subcommand("recommend", "attach Pulse's recommendation to a pending decision");
  AddCommonOptions(sub, state);
  sub->add_option("--id", f.id, "the decision's id")->required();
  auto* o = sub->add_option("--option", f.option, "the recommended option");
  auto* t = sub->add_option("--text", f.text, "the recommended free-text answer (decisions without options)");
  o->excludes(t);
  sub->add_option("--why", f.why, "why")->required();
  sub->add_option("--evidence", f.evidence, "the evidence");
  sub->add_option("--confidence", f.confidence, "low|medium|high")->required();
  sub->add_option("--safe-default-by", f.safe_by, "when Pulse may apply it with no owner answer (high confidence only)");
  sub->add_option("--needs", f.needs, "what applying it needs: none|run|outward|change (default change)");
  sub->add_option("--session", f.session, "the recommending session");
  sub->callback([&state, o, t] {
    json args{{"id", f.id}, {"why", f.why}, {"evidence", f.evidence}, {"confidence", f.confidence},
              {"needs", f.needs}, {"session", f.session}};
    if (o->count()) args["option"] = f.option;
    if (t->count()) args["text"] = f.text;
    if (!f.safe_by.empty()) args["safe_default_by"] = f.safe_by;
    auto out = CallOnWorkflow(state, "decision.recommend", args);
    if (!out) return;
    if (state.globals.json) PrintJson(*out);
    else PrintDecision(*out);
  });
}

void SetupDecisionAnswer(CLI::App* dec, State& state) {
  static struct { std::string id, option, text, note, session; bool accept = false, dismiss = false; } f;
  auto* sub = dec->add_subcommand("answer", "the owner's answer (refused for Pulse, scheduled and background sessions)");
  AddCommonOptions(sub, state);
  sub->add_option("--id", f.id, "the decision's id")->required();
  auto* a = sub->add_flag("--accept", f.accept, "accept Pulse's recommendation");
  auto* o = sub->add_option("--option", f.option, "answer with this option");
  auto* t = sub->add_option("--text", f.text, "answer in words");
  auto* d = sub->add_flag("--dismiss", f.dismiss, "close it without an answer");
  a->excludes(o)->excludes(t)->excludes(d);
  o->excludes(t)->excludes(d);
  t->excludes(d);
  sub->add_option("--note", f.note, "a note kept with the answer and in goal memory");
  sub->add_option("--session", f.session, "the answering session (empty: the owner)");
  sub->callback([&state, o, t] {
    json args{{"id", f.id}, {"accept", f.accept}, {"dismiss", f.dismiss}, {"note", f.note}, {"session", f.session}};
    if (o->count()) args["option"] = f.option;
    if (t->count()) args["text"] = f.text;
    if (!f.accept && !f.dismiss && !o->count() && !t->count()) {
      state.exit_code = Fail(Status::InvalidArgument("decision answer: give one of --accept, --option, --text, --dismiss"));
      return;
    }
    // Accept or Change: then the apply message for the Builder chat, stored
    // in the outbox (a server with --builder delivers it on its tick).
    Result<std::unique_ptr<WorkflowHandle>> w = OpenFromFlags(state);
    if (!w.ok()) { state.exit_code = Fail(w.status()); return; }
    ApiContext ctx = ServerContext(**w);
    Result<json> out = serve::AnswerWithApply(ctx, args);
    if (!out.ok()) { state.exit_code = Fail(out.status()); return; }
    const json& doc = *out;
    if (state.globals.json) {
      PrintJson(doc);
      return;
    }
    PrintDecision(doc);
    if (doc.contains("apply") && doc["apply"].value("sent", false)) {
      std::cout << "    apply message: outbox " << doc["apply"].value("outbox_id", int64_t{0}) << ", "
                << (doc["apply"].value("delivered", false) ? "delivered" : JsonText(doc["apply"]["reason"])) << "\n";
    }
  });
}

void SetupDecisionOutcome(CLI::App* dec, State& state) {
  static struct { std::string id, result; } f;
  auto* sub = dec->add_subcommand("outcome", "record what came of an answered decision");
  AddCommonOptions(sub, state);
  sub->add_option("--id", f.id, "the decision's id")->required();
  sub->add_option("--result", f.result, "what came of it")->required();
  sub->callback([&state] {
    auto out = CallOnWorkflow(state, "decision.outcome", json{{"id", f.id}, {"result", f.result}});
    if (!out) return;
    if (state.globals.json) PrintJson(*out);
    else PrintDecision(*out);
  });
}

void SetupDecisionList(CLI::App* dec, State& state) {
  static struct { std::string status = "all"; } f;
  auto* sub = dec->add_subcommand("list", "decisions with recommendation, answer and outcome; outcomes_due");
  AddCommonOptions(sub, state);
  sub->add_option("--status", f.status, "pending|answered|dismissed|all (default all)");
  sub->callback([&state] {
    auto out = CallOnWorkflow(state, "decision.list", json{{"status", f.status}});
    if (!out) return;
    if (state.globals.json) {
      PrintJson(*out);
      return;
    }
    if ((*out)["decisions"].empty()) std::cout << "no decisions\n";
    for (const json& d : (*out)["decisions"]) PrintDecision(d);
    if (!(*out)["outcomes_due"].empty()) {
      std::cout << "outcomes due (answered over a day ago, no result yet):";
      for (const json& d : (*out)["outcomes_due"]) std::cout << " #" << d["id"];
      std::cout << "\n";
    }
  });
}

void SetupDecisionApplyDefaults(CLI::App* dec, State& state) {
  auto* sub = dec->add_subcommand("apply-defaults",
                                  "answer=act: apply safe defaults whose time passed with no owner answer (the scheduler does this each tick)");
  AddCommonOptions(sub, state);
  sub->callback([&state] {
    auto out = CallOnWorkflow(state, "decision.apply_due_defaults", json::object());
    if (!out) return;
    if (state.globals.json) {
      PrintJson(*out);
      return;
    }
    if ((*out).contains("reason")) std::cout << JsonText((*out)["reason"]) << "\n";
    for (const json& d : (*out)["applied"]) std::cout << "applied #" << d["id"] << ": " << JsonText(d["answer"]["chosen"]) << "\n";
    for (const json& s : (*out)["skipped"]) std::cout << "skipped #" << s["id"] << ": " << JsonText(s["reason"]) << "\n";
  });
}

void SetupDecision(CLI::App& app, State& state) {
  CLI::App* dec = app.add_subcommand("decision", "decision requests for the owner, Pulse's recommendations, the decision log");
  dec->require_subcommand(1);
  SetupDecisionCreate(dec, state);
  SetupDecisionRecommend(dec, state);
  SetupDecisionAnswer(dec, state);
  SetupDecisionOutcome(dec, state);
  SetupDecisionList(dec, state);
  SetupDecisionApplyDefaults(dec, state);
}

void PrintMemory(const json& m) {
  std::cout << JsonText(m["text"]);
  std::cout << "-- " << m["entry_count"] << " entries (limit " << m["limit"] << "; check and work turns are told to consolidate past "
            << m["consolidate_past"] << ")" << (m["consolidate_due"].get<bool>() ? "; consolidate due" : "")
            << "; soul.md wins on conflict\n";
}

void SetupMemory(CLI::App& app, State& state) {
  CLI::App* mem = app.add_subcommand("memory", "goal memory (memory/goal.md)");
  mem->require_subcommand(1);
  {
    auto* sub = mem->add_subcommand("show", "print goal memory");
    AddCommonOptions(sub, state);
    sub->callback([&state] {
      auto out = CallOnWorkflow(state, "memory.show", json::object());
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else PrintMemory(*out);
    });
  }
  {
    auto* sub = mem->add_subcommand("add", "add one entry");
    AddCommonOptions(sub, state);
    static struct { std::string section, source, text; } f;
    sub->add_option("--section", f.section, "owner|decisions|lessons|bets|waiting (or the section title)")->required();
    sub->add_option("--source", f.source, "owner_answer|result|pulse_inference|builder_answer")->required();
    sub->add_option("--text", f.text, "the entry, one line")->required();
    sub->callback([&state] {
      auto out = CallOnWorkflow(state, "memory.add", json{{"section", f.section}, {"source", f.source}, {"text", f.text}});
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else std::cout << "added; " << (*out)["entry_count"] << " entries" << ((*out)["consolidate_due"].get<bool>() ? " (consolidate due)" : "") << "\n";
    });
  }
  {
    auto* sub = mem->add_subcommand("consolidate", "drop duplicate and oldest Pulse entries down to 60");
    AddCommonOptions(sub, state);
    sub->callback([&state] {
      auto out = CallOnWorkflow(state, "memory.consolidate", json::object());
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else std::cout << "dropped " << (*out)["dropped"] << "; " << (*out)["entry_count"] << " entries\n";
    });
  }
  {
    auto* sub = mem->add_subcommand("save", "replace goal memory with a file's text (the owner's edit)");
    AddCommonOptions(sub, state);
    static struct { std::string file, base; } f;
    sub->add_option("--file", f.file, "the edited text")->required();
    sub->add_option("--base-hash", f.base, "the hash `memory show --json` printed before the edit")->required();
    sub->callback([&state] {
      Result<std::string> text = DefaultEnv()->ReadFile(f.file);
      if (!text.ok()) {
        state.exit_code = Fail(text.status());
        return;
      }
      auto out = CallOnWorkflow(state, "memory.save", json{{"text", *text}, {"base_hash", f.base}});
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else std::cout << "saved; hash " << JsonText((*out)["hash"]) << "\n";
    });
  }
}

}  // namespace
PULSE_REGISTER_COMMAND("decision", SetupDecision);
PULSE_REGISTER_COMMAND("memory", SetupMemory);
}  // namespace pulse::cli
