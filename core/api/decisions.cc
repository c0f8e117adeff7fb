// decision.* and memory.* API methods. Argument reading only; the rules are
// in decisions.cc and goal_memory.cc.
#include "core/api/decisions.h"

#include <map>

#include "core/base/json_limits.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

std::string GoalMemoryPath(const ApiContext& ctx) {
  return ctx.workflow_dir.empty() ? std::string() : ctx.workflow_dir + "/memory/goal.md";
}

ContextDecisions::ContextDecisions(ApiContext& ctx)
    : memory_(*ctx.db, *ctx.env, GoalMemoryPath(ctx)), dc_{*ctx.db, *ctx.env, ctx.config.autonomy, memory_} {}

namespace {

// A memory write in its own transaction, answered with the new show document.
template <typename Fn>
Result<json> MemoryWriteCall(ApiContext& ctx, Fn fn) {
  GoalMemory memory(*ctx.db, *ctx.env, GoalMemoryPath(ctx));
  Transaction tx(*ctx.db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(MemoryWrite w, fn(memory));
  Status s = tx.Commit();
  if (!s.ok()) {
    memory.RestoreFile(w);
    return s;
  }
  PULSE_ASSIGN_OR_RETURN(json out, GoalMemoryJson(memory));
  out["dropped"] = w.dropped;
  return out;
}

}  // namespace

Result<json> GoalMemoryJson(GoalMemory& memory) {
  PULSE_ASSIGN_OR_RETURN(MemoryView v, memory.View());
  json entries = json::array();
  std::map<std::string, int> counts;
  for (const MemoryEntry& e : v.entries) {
    counts[e.section]++;
    entries.push_back({{"section", e.section}, {"date", e.date}, {"source", e.source}, {"text", e.text},
                       {"hand_written", e.hand_written}});
  }
  json sections = json::array();
  for (MemorySection s : AllMemorySections()) {
    sections.push_back({{"title", MemorySectionTitle(s)}, {"key", MemorySectionKey(s)},
                        {"entries", counts[MemorySectionTitle(s)]}});
  }
  int n = static_cast<int>(v.entries.size());
  json conflict = nullptr;
  if (v.split_database_text) {
    conflict = {{"message",
                 "goal.md and the database copy were both edited since they last matched; Pulse will not write "
                 "until the owner saves the version to keep (memory.save with either hash)"},
                {"database_text", *v.split_database_text},
                {"database_hash", MemoryHash(*v.split_database_text)}};
  }
  return json{{"text", v.text},
              {"hash", MemoryHash(v.text)},
              {"entries", entries},
              {"entry_count", n},
              {"sections", sections},
              {"unparsed_lines", v.unparsed_lines},
              {"limit", kGoalMemoryMaxEntries},
              {"consolidate_past", kGoalMemoryConsolidatePast},
              {"consolidate_due", n > kGoalMemoryConsolidatePast},
              {"over_limit", n > kGoalMemoryMaxEntries},
              {"storage", v.from_file ? "file" : "database"},
              {"conflict", conflict},
              {"rules",
               "at most 60 entries; check and work turns are told to consolidate past 45; hand edits and lines "
               "Pulse cannot parse are kept; soul.md wins on conflict"}};
}

Result<json> MemoryShowJson(ApiContext& ctx) {
  GoalMemory memory(*ctx.db, *ctx.env, GoalMemoryPath(ctx));
  return GoalMemoryJson(memory);
}

Result<json> AddGoalMemoryEntry(ApiContext& ctx, MemorySection section, MemorySource source, const std::string& text) {
  return MemoryWriteCall(ctx, [&](GoalMemory& m) { return m.Add(section, source, text); });
}

Result<json> ConsolidateGoalMemory(ApiContext& ctx) {
  return MemoryWriteCall(ctx, [&](GoalMemory& m) { return m.Consolidate(); });
}

namespace {

json OptJson(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }
json OptTimeJson(const std::optional<int64_t>& t) { return t ? json(FormatTime(*t)) : json(nullptr); }

json RecommendationJson(const Recommendation& r) {
  return json{{"id", r.id},
              {"option", OptJson(r.option)},
              {"text", OptJson(r.text)},
              {"why", r.why},
              {"evidence", r.evidence},
              {"confidence", ConfidenceName(r.confidence)},
              {"blocks", r.blocks},
              {"safe_default_by", OptTimeJson(r.safe_default_by)},
              {"needs", r.needs},
              {"session", r.session},
              {"recommended_at", FormatTime(r.recommended_at)},
              {"status", r.status},
              {"resolved_at", OptTimeJson(r.resolved_at)}};
}

json AnswerJson(const Decision& d) {
  return json{{"option", OptJson(d.answer_option)},
              {"text", OptJson(d.answer_text)},
              {"chosen", d.Chosen()},
              {"note", d.answer_note},
              {"by", OptJson(d.answered_by)},
              {"kind", OptJson(d.answer_kind)},
              {"session", d.answer_session},
              {"answered_at", FormatTime(*d.answered_at)},
              {"applied_by_pulse", d.answered_by && *d.answered_by == "pulse"},
              {"overruled_pulse", d.overruled_pulse}};
}

json ViewsJson(const std::vector<DecisionView>& views) {
  json out = json::array();
  for (const DecisionView& v : views) out.push_back(DecisionViewJson(v));
  return out;
}

}  // namespace

json DecisionViewJson(const DecisionView& v) {
  const Decision& d = v.decision;
  json out{{"id", d.id},
           {"question", d.question},
           {"options", d.options},
           {"blocks", d.blocks},
           {"raised_by", d.raised_by},
           {"status", DecisionStatusName(d.status)},
           {"created_at", FormatTime(d.created_at)},
           {"recommendation", v.recommendation ? RecommendationJson(*v.recommendation) : json(nullptr)},
           {"answer", d.answered_at ? AnswerJson(d) : json(nullptr)},
           {"outcome", nullptr}};
  if (v.waited_seconds) out["waited_seconds"] = *v.waited_seconds;
  if (d.outcome) out["outcome"] = json{{"result", *d.outcome}, {"recorded_at", OptTimeJson(d.outcome_at)}};
  json events = json::array();
  for (const DecisionEvent& e : v.events) {
    json detail = ParseJsonOrDiscarded(e.detail);
    if (detail.is_discarded()) detail = json::object();
    // What the decision stands in for lives in its creation event: lifted
    // out so the owner reads it with the question.
    if (e.kind == "created" && detail.is_object()) {
      if (detail.contains("why")) out["why"] = detail["why"];
      if (detail.contains("refused_call")) out["context"] = {{"refused_call", detail["refused_call"]}};
    }
    events.push_back({{"at", FormatTime(e.at)}, {"kind", e.kind}, {"actor", e.actor}, {"detail", detail}});
  }
  out["events"] = events;
  return out;
}

json DecisionListJson(const DecisionList& list) {
  return json{{"decisions", ViewsJson(list.decisions)}, {"outcomes_due", ViewsJson(list.outcomes_due)}};
}

Result<json> ListDecisionsJson(DecisionContext& dc, const std::string& status) {
  PULSE_ASSIGN_OR_RETURN(DecisionList list, ListDecisions(dc, status));
  return DecisionListJson(list);
}

json DefaultsAppliedJson(const DefaultsApplied& done) {
  json skipped = json::array();
  for (const DefaultsApplied::Skipped& s : done.skipped) skipped.push_back({{"id", s.id}, {"reason", s.reason}});
  json out{{"answer", done.act ? "act" : "recommend"}, {"applied", ViewsJson(done.applied)}, {"skipped", skipped}};
  if (!done.act) out["reason"] = "pulse.autonomy.answer is recommend: Pulse never applies a default; the owner answers";
  return out;
}

namespace {

// Runs `fn` with a DecisionContext over this API context and turns its typed
// answer into JSON with `to_json`.
template <typename Fn, typename ToJson>
Result<json> WithDecisions(ApiContext& ctx, const Args& a, Fn fn, ToJson to_json) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  ContextDecisions dc(ctx);
  auto typed = fn(dc.get());
  if (!typed.ok()) return typed.status();
  return to_json(*typed);
}

Result<json> Create(ApiContext& ctx, const Args& a) {
  DecisionRequest req;
  PULSE_RETURN_IF_ERROR(a.String("question", &req.question));
  PULSE_RETURN_IF_ERROR(a.OptString("blocks", &req.blocks));
  PULSE_RETURN_IF_ERROR(a.OptString("raised_by", &req.raised_by));
  PULSE_RETURN_IF_ERROR(a.OptStringList("options", &req.options));
  return WithDecisions(
      ctx, a, [&](DecisionContext& dc) { return CreateDecision(dc, req); }, [](int64_t id) { return json{{"id", id}}; });
}

Result<json> DoRecommend(ApiContext& ctx, const Args& a) {
  RecommendationInput in;
  PULSE_RETURN_IF_ERROR(a.Id("id", &in.decision_id));
  PULSE_RETURN_IF_ERROR(a.OptString("option", &in.option));
  PULSE_RETURN_IF_ERROR(a.OptString("text", &in.text));
  PULSE_RETURN_IF_ERROR(a.String("why", &in.why));
  PULSE_RETURN_IF_ERROR(a.OptString("evidence", &in.evidence));
  std::string confidence;
  PULSE_RETURN_IF_ERROR(a.String("confidence", &confidence));
  PULSE_ASSIGN_OR_RETURN(in.confidence, ParseConfidence(confidence, "decision " + std::to_string(in.decision_id)));
  PULSE_RETURN_IF_ERROR(a.OptString("blocks", &in.blocks));
  PULSE_RETURN_IF_ERROR(a.OptTime("safe_default_by", &in.safe_default_by));
  PULSE_RETURN_IF_ERROR(a.OptString("needs", &in.needs));
  PULSE_RETURN_IF_ERROR(a.OptString("session", &in.session));
  return WithDecisions(ctx, a, [&](DecisionContext& dc) { return Recommend(dc, in); }, DecisionViewJson);
}

Result<json> DoAnswer(ApiContext& ctx, const Args& a) {
  AnswerInput in;
  PULSE_RETURN_IF_ERROR(a.Id("id", &in.decision_id));
  PULSE_RETURN_IF_ERROR(a.OptBool("accept", &in.accept));
  PULSE_RETURN_IF_ERROR(a.OptBool("dismiss", &in.dismiss));
  PULSE_RETURN_IF_ERROR(a.OptString("option", &in.option));
  PULSE_RETURN_IF_ERROR(a.OptString("text", &in.text));
  PULSE_RETURN_IF_ERROR(a.OptString("note", &in.note));
  PULSE_RETURN_IF_ERROR(a.OptString("session", &in.session));
  return WithDecisions(ctx, a, [&](DecisionContext& dc) { return Answer(dc, in); }, DecisionViewJson);
}

Result<json> DoOutcome(ApiContext& ctx, const Args& a) {
  int64_t id = 0;
  std::string result;
  PULSE_RETURN_IF_ERROR(a.Id("id", &id));
  PULSE_RETURN_IF_ERROR(a.String("result", &result));
  return WithDecisions(ctx, a, [&](DecisionContext& dc) { return RecordDecisionOutcome(dc, id, result); },
                       DecisionViewJson);
}

Result<json> DoList(ApiContext& ctx, const Args& a) {
  std::string status;
  PULSE_RETURN_IF_ERROR(a.OptString("status", &status));
  return WithDecisions(ctx, a, [&](DecisionContext& dc) { return ListDecisions(dc, status); }, DecisionListJson);
}

Result<json> DoApplyDefaults(ApiContext& ctx, const Args& a) {
  return WithDecisions(ctx, a, [&](DecisionContext& dc) { return ApplyDueDefaults(dc); }, DefaultsAppliedJson);
}

Result<json> MemoryShow(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  return MemoryShowJson(ctx);
}

Result<json> MemoryAdd(ApiContext& ctx, const Args& a) {
  std::string section_s, source_s, text;
  PULSE_RETURN_IF_ERROR(a.String("section", &section_s));
  PULSE_RETURN_IF_ERROR(a.String("source", &source_s));
  PULSE_RETURN_IF_ERROR(a.String("text", &text));
  PULSE_ASSIGN_OR_RETURN(MemorySection section, ParseMemorySection(section_s));
  PULSE_ASSIGN_OR_RETURN(MemorySource source, ParseMemorySource(source_s));
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  return AddGoalMemoryEntry(ctx, section, source, text);
}

Result<json> MemoryConsolidate(ApiContext& ctx, const Args& a) {
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  return ConsolidateGoalMemory(ctx);
}

Result<json> MemorySave(ApiContext& ctx, const Args& a) {
  std::string text, base;
  PULSE_RETURN_IF_ERROR(a.String("text", &text));
  PULSE_RETURN_IF_ERROR(a.String("base_hash", &base));
  PULSE_RETURN_IF_ERROR(NeedDb(ctx, a));
  return MemoryWriteCall(ctx, [&](GoalMemory& m) { return m.Save(text, base); });
}

}  // namespace

void AddDecisionsApi(ApiRegistry& r) {
  r.Add("decision.create", Create, Access::kOwner, "open a pending decision request for the owner {question, options?, blocks?, raised_by?}");
  r.Add("decision.recommend", DoRecommend, Access::kOwner,
        "attach Pulse's recommendation {id, option|text, why, evidence?, confidence, safe_default_by?, needs?, session?}");
  r.Add("decision.answer", DoAnswer, Access::kOwner,
        "the owner's answer {id, accept|option|text|dismiss, note?, session?}; refused for unattended sessions");
  r.Add("decision.outcome", DoOutcome, Access::kOwner, "record what came of an answered decision {id, result}");
  r.Add("decision.list", DoList, Access::kRead, "decisions with recommendation, answer and outcome {status?}; plus outcomes_due");
  r.Add("decision.apply_due_defaults", DoApplyDefaults, Access::kOwner,
        "answer=act: apply recommendations whose safe_default_by passed with no owner answer");
  r.Add("memory.show", MemoryShow, Access::kRead, "goal memory (memory/goal.md): text, hash, entries, sections, consolidate_due");
  r.Add("memory.add", MemoryAdd, Access::kOwner, "add one goal memory entry {section, source, text}");
  r.Add("memory.consolidate", MemoryConsolidate, Access::kOwner, "drop duplicate and oldest Pulse entries down to 60");
  r.Add("memory.save", MemorySave, Access::kOwner, "the owner's edit of goal memory {text, base_hash}; refused when base_hash is stale");
}

}  // namespace pulse
