// `pulse decision create|recommend|answer|outcome|list|apply-defaults` and
// `pulse memory show|add|consolidate|save` (CONTRACT.md). Each calls the same
// API method the server and the browser use; no rule lives here.
#include <iostream>
#include <optional>

#include "core/api.h"
#include "core/env.h"
#include "server-shim/cli.h"

namespace pulse::cli {
namespace {

using nlohmann::json;

// Opens the workflow and calls `method`; on failure prints the reason and
// sets the exit status.
std::optional<json> Call(State& state, const char* method, const json& args) {
  Result<OpenedWorkflow> w = OpenFromFlags(state);
  if (!w.ok()) {
    state.exit_code = Fail(w.status());
    return std::nullopt;
  }
  ApiContext ctx{w->db.get(), state.env.get(), w->paths.name, w->config, w->paths.dir};
  Result<json> out = CallApi(ctx, method, args);
  if (!out.ok()) {
    state.exit_code = Fail(out.status());
    return std::nullopt;
  }
  return *out;
}

std::string Str(const json& v) { return v.is_string() ? v.get<std::string>() : (v.is_null() ? "" : v.dump()); }

void PrintDecision(const json& d) {
  std::cout << "#" << d["id"] << " [" << Str(d["status"]) << "] " << Str(d["question"]) << "\n";
  if (!d["options"].empty()) {
    std::cout << "    options:";
    for (const json& o : d["options"]) std::cout << " \"" << Str(o) << "\"";
    std::cout << "\n";
  }
  if (!Str(d["blocks"]).empty()) std::cout << "    blocks: " << Str(d["blocks"]) << "\n";
  if (d.contains("waited_seconds")) {
    int64_t s = d["waited_seconds"].get<int64_t>();
    std::cout << "    waiting " << s / 86400 << "d " << (s % 86400) / 3600 << "h (since " << Str(d["created_at"]) << ")\n";
  }
  const json& r = d["recommendation"];
  if (!r.is_null()) {
    std::cout << "    Pulse recommends: " << (r["option"].is_null() ? Str(r["text"]) : Str(r["option"])) << " ("
              << Str(r["confidence"]) << " confidence, " << Str(r["status"]) << ") because " << Str(r["why"]) << "\n";
    if (!Str(r["evidence"]).empty()) std::cout << "    evidence: " << Str(r["evidence"]) << "\n";
    if (!r["safe_default_by"].is_null()) std::cout << "    safe default by: " << Str(r["safe_default_by"]) << "\n";
  }
  const json& a = d["answer"];
  if (!a.is_null()) {
    std::cout << "    answer: " << (Str(a["kind"]) == "dismissed" ? "dismissed" : Str(a["chosen"])) << " by "
              << Str(a["by"]) << " (" << Str(a["kind"]) << ") at " << Str(a["answered_at"]);
    if (!Str(a["note"]).empty()) std::cout << "; note: " << Str(a["note"]);
    if (a["overruled_pulse"].get<bool>()) std::cout << "; overruled Pulse";
    std::cout << "\n";
  }
  if (!d["outcome"].is_null()) std::cout << "    result: " << Str(d["outcome"]["result"]) << "\n";
}

// Flag values live in function-local statics (CLI11 binds to them by
// reference, and each Setup runs once per process).
void SetupDecision(CLI::App& app, State& state) {
  CLI::App* dec = app.add_subcommand("decision", "decision requests for the owner, Pulse's recommendations, the decision log");
  dec->require_subcommand(1);

  {
    auto* sub = dec->add_subcommand("create", "open a pending decision request (prints its id)");
    AddCommonOptions(sub, state);
    static std::string question_v; auto* question = &question_v;
    static std::vector<std::string> options_v; auto* options = &options_v;
    static std::string blocks_v; auto* blocks = &blocks_v;
    static std::string raised_by_v; auto* raised_by = &raised_by_v;
    sub->add_option("--question", *question, "the question for the owner")->required();
    sub->add_option("--option", *options, "an option (repeat for each); none: a free-text answer");
    sub->add_option("--blocks", *blocks, "what waits on the answer");
    sub->add_option("--raised-by", *raised_by, "who raised it (a session or a name)");
    sub->callback([&state, question, options, blocks, raised_by] {
      json args{{"question", *question}, {"options", *options}, {"blocks", *blocks}, {"raised_by", *raised_by}};
      auto out = Call(state, "decision.create", args);
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else std::cout << (*out)["id"].get<int64_t>() << "\n";
    });
  }
  {
    auto* sub = dec->add_subcommand("recommend", "attach Pulse's recommendation to a pending decision");
    AddCommonOptions(sub, state);
    static std::string id_v; auto* id = &id_v;
    static std::string option_v; auto* option = &option_v;
    static std::string text_v; auto* text = &text_v;
    static std::string why_v; auto* why = &why_v;
    static std::string evidence_v; auto* evidence = &evidence_v;
    static std::string confidence_v; auto* confidence = &confidence_v;
    static std::string safe_by_v; auto* safe_by = &safe_by_v;
    static std::string needs_v; auto* needs = &needs_v;
    static std::string session_v; auto* session = &session_v;
    sub->add_option("--id", *id, "the decision's id")->required();
    auto* o = sub->add_option("--option", *option, "the recommended option");
    auto* t = sub->add_option("--text", *text, "the recommended free-text answer (decisions without options)");
    o->excludes(t);
    sub->add_option("--why", *why, "why")->required();
    sub->add_option("--evidence", *evidence, "the evidence");
    sub->add_option("--confidence", *confidence, "low|medium|high")->required();
    sub->add_option("--safe-default-by", *safe_by, "when Pulse may apply it with no owner answer (high confidence only)");
    sub->add_option("--needs", *needs, "what applying it needs: none|run|outward|change (default change)");
    sub->add_option("--session", *session, "the recommending session");
    sub->callback([&state, id, option, text, why, evidence, confidence, safe_by, needs, session, o, t] {
      json args{{"id", *id}, {"why", *why}, {"evidence", *evidence}, {"confidence", *confidence},
                {"needs", *needs}, {"session", *session}};
      if (o->count()) args["option"] = *option;
      if (t->count()) args["text"] = *text;
      if (!safe_by->empty()) args["safe_default_by"] = *safe_by;
      auto out = Call(state, "decision.recommend", args);
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else PrintDecision(*out);
    });
  }
  {
    auto* sub = dec->add_subcommand("answer", "the owner's answer (refused for Pulse, scheduled and background sessions)");
    AddCommonOptions(sub, state);
    static std::string id_v; auto* id = &id_v;
    static bool accept_v = false; auto* accept = &accept_v;
    static std::string option_v; auto* option = &option_v;
    static std::string text_v; auto* text = &text_v;
    static bool dismiss_v = false; auto* dismiss = &dismiss_v;
    static std::string note_v; auto* note = &note_v;
    static std::string session_v; auto* session = &session_v;
    sub->add_option("--id", *id, "the decision's id")->required();
    auto* a = sub->add_flag("--accept", *accept, "accept Pulse's recommendation");
    auto* o = sub->add_option("--option", *option, "answer with this option");
    auto* t = sub->add_option("--text", *text, "answer in words");
    auto* d = sub->add_flag("--dismiss", *dismiss, "close it without an answer");
    a->excludes(o)->excludes(t)->excludes(d);
    o->excludes(t)->excludes(d);
    t->excludes(d);
    sub->add_option("--note", *note, "a note kept with the answer and in goal memory");
    sub->add_option("--session", *session, "the answering session (empty: the owner)");
    sub->callback([&state, id, accept, option, text, dismiss, note, session, o, t] {
      json args{{"id", *id}, {"accept", *accept}, {"dismiss", *dismiss}, {"note", *note}, {"session", *session}};
      if (o->count()) args["option"] = *option;
      if (t->count()) args["text"] = *text;
      if (!*accept && !*dismiss && !o->count() && !t->count()) {
        state.exit_code = Fail(Status::InvalidArgument("decision answer: give one of --accept, --option, --text, --dismiss"));
        return;
      }
      auto out = Call(state, "decision.answer", args);
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else PrintDecision(*out);
    });
  }
  {
    auto* sub = dec->add_subcommand("outcome", "record what came of an answered decision");
    AddCommonOptions(sub, state);
    static std::string id_v; auto* id = &id_v;
    static std::string result_v; auto* result = &result_v;
    sub->add_option("--id", *id, "the decision's id")->required();
    sub->add_option("--result", *result, "what came of it")->required();
    sub->callback([&state, id, result] {
      auto out = Call(state, "decision.outcome", json{{"id", *id}, {"result", *result}});
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else PrintDecision(*out);
    });
  }
  {
    auto* sub = dec->add_subcommand("list", "decisions with recommendation, answer and outcome; outcomes_due");
    AddCommonOptions(sub, state);
    static std::string status_v("all"); auto* status = &status_v;
    sub->add_option("--status", *status, "pending|answered|dismissed|all (default all)");
    sub->callback([&state, status] {
      auto out = Call(state, "decision.list", json{{"status", *status}});
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
  {
    auto* sub = dec->add_subcommand("apply-defaults",
                                    "answer=act: apply safe defaults whose time passed with no owner answer (the scheduler does this each tick)");
    AddCommonOptions(sub, state);
    sub->callback([&state] {
      auto out = Call(state, "decision.apply_due_defaults", json::object());
      if (!out) return;
      if (state.globals.json) {
        PrintJson(*out);
        return;
      }
      if ((*out).contains("reason")) std::cout << Str((*out)["reason"]) << "\n";
      for (const json& d : (*out)["applied"]) std::cout << "applied #" << d["id"] << ": " << Str(d["answer"]["chosen"]) << "\n";
      for (const json& s : (*out)["skipped"]) std::cout << "skipped #" << s["id"] << ": " << Str(s["reason"]) << "\n";
    });
  }
}

void PrintMemory(const json& m) {
  std::cout << Str(m["text"]);
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
      auto out = Call(state, "memory.show", json::object());
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else PrintMemory(*out);
    });
  }
  {
    auto* sub = mem->add_subcommand("add", "add one entry");
    AddCommonOptions(sub, state);
    static std::string section_v; auto* section = &section_v;
    static std::string source_v; auto* source = &source_v;
    static std::string text_v; auto* text = &text_v;
    sub->add_option("--section", *section, "owner|decisions|lessons|bets|waiting (or the section title)")->required();
    sub->add_option("--source", *source, "owner_answer|result|pulse_inference|builder_answer")->required();
    sub->add_option("--text", *text, "the entry, one line")->required();
    sub->callback([&state, section, source, text] {
      auto out = Call(state, "memory.add", json{{"section", *section}, {"source", *source}, {"text", *text}});
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else std::cout << "added; " << (*out)["entry_count"] << " entries" << ((*out)["consolidate_due"].get<bool>() ? " (consolidate due)" : "") << "\n";
    });
  }
  {
    auto* sub = mem->add_subcommand("consolidate", "drop duplicate and oldest Pulse entries down to 60");
    AddCommonOptions(sub, state);
    sub->callback([&state] {
      auto out = Call(state, "memory.consolidate", json::object());
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else std::cout << "dropped " << (*out)["dropped"] << "; " << (*out)["entry_count"] << " entries\n";
    });
  }
  {
    auto* sub = mem->add_subcommand("save", "replace goal memory with a file's text (the owner's edit)");
    AddCommonOptions(sub, state);
    static std::string file_v; auto* file = &file_v;
    static std::string base_v; auto* base = &base_v;
    sub->add_option("--file", *file, "the edited text")->required();
    sub->add_option("--base-hash", *base, "the hash `memory show --json` printed before the edit")->required();
    sub->callback([&state, file, base] {
      Result<std::string> text = DefaultEnv()->ReadFile(*file);
      if (!text.ok()) {
        state.exit_code = Fail(text.status());
        return;
      }
      auto out = Call(state, "memory.save", json{{"text", *text}, {"base_hash", *base}});
      if (!out) return;
      if (state.globals.json) PrintJson(*out);
      else std::cout << "saved; hash " << Str((*out)["hash"]) << "\n";
    });
  }
}

}  // namespace
PULSE_REGISTER_COMMAND("decision", SetupDecision);
PULSE_REGISTER_COMMAND("memory", SetupMemory);
}  // namespace pulse::cli
