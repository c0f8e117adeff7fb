// decision.* and memory.* API methods (issue 6). Argument checking only; the
// rules are in decisions.cc and goal_memory.cc.
#include "core/api.h"
#include "core/decisions.h"
#include "core/goal_memory.h"

namespace pulse {
namespace {

using nlohmann::json;

std::string MemoryPath(const ApiContext& ctx) {
  return ctx.workflow_dir.empty() ? std::string() : ctx.workflow_dir + "/memory/goal.md";
}

Status Need(const ApiContext& ctx) {
  if (!ctx.db || !ctx.env) return Status::InvalidArgument("this method needs a workflow database");
  return Status::OK();
}

Result<std::optional<std::string>> OptString(const json& args, const char* method, const char* key) {
  if (!args.contains(key) || args[key].is_null()) return std::optional<std::string>();
  if (!args[key].is_string()) return Status::InvalidArgument(std::string(method) + ": " + key + " must be a string");
  return std::optional<std::string>(args[key].get<std::string>());
}

Result<std::string> String(const json& args, const char* method, const char* key, bool required) {
  PULSE_ASSIGN_OR_RETURN(std::optional<std::string> v, OptString(args, method, key));
  if (!v) {
    if (required) return Status::InvalidArgument(std::string(method) + ": " + key + " is required");
    return std::string();
  }
  return *v;
}

Result<bool> Flag(const json& args, const char* method, const char* key) {
  if (!args.contains(key) || args[key].is_null()) return false;
  if (!args[key].is_boolean()) return Status::InvalidArgument(std::string(method) + ": " + key + " must be true or false");
  return args[key].get<bool>();
}

Result<int64_t> Id(const json& args, const char* method) {
  if (!args.contains("id")) return Status::InvalidArgument(std::string(method) + ": id is required");
  const json& v = args["id"];
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (!s.empty() && s.size() < 19 && s.find_first_not_of("0123456789") == std::string::npos) return std::stoll(s);
  }
  return Status::InvalidArgument(std::string(method) + ": id " + v.dump() + " is not a decision id (a whole number)");
}

// Runs `fn` with a DecisionContext over this API context.
template <typename Fn>
Result<json> WithDecisions(ApiContext& ctx, Fn fn) {
  PULSE_RETURN_IF_ERROR(Need(ctx));
  GoalMemory memory(*ctx.db, *ctx.env, MemoryPath(ctx));
  DecisionContext dc{*ctx.db, *ctx.env, ctx.config.autonomy, memory};
  return fn(dc);
}

Result<json> Create(ApiContext& ctx, const json& args) {
  DecisionRequest req;
  PULSE_ASSIGN_OR_RETURN(req.question, String(args, "decision.create", "question", true));
  PULSE_ASSIGN_OR_RETURN(req.blocks, String(args, "decision.create", "blocks", false));
  PULSE_ASSIGN_OR_RETURN(req.raised_by, String(args, "decision.create", "raised_by", false));
  if (args.contains("options") && !args["options"].is_null()) {
    if (!args["options"].is_array()) return Status::InvalidArgument("decision.create: options must be a list of strings");
    for (const json& o : args["options"]) {
      if (!o.is_string()) return Status::InvalidArgument("decision.create: options must be a list of strings");
      req.options.push_back(o.get<std::string>());
    }
  }
  return WithDecisions(ctx, [&](DecisionContext& dc) -> Result<json> {
    PULSE_ASSIGN_OR_RETURN(int64_t id, CreateDecision(dc, req));
    return json{{"id", id}};
  });
}

Result<json> DoRecommend(ApiContext& ctx, const json& args) {
  const char* m = "decision.recommend";
  RecommendationInput in;
  PULSE_ASSIGN_OR_RETURN(in.decision_id, Id(args, m));
  PULSE_ASSIGN_OR_RETURN(in.option, OptString(args, m, "option"));
  PULSE_ASSIGN_OR_RETURN(in.text, OptString(args, m, "text"));
  PULSE_ASSIGN_OR_RETURN(in.why, String(args, m, "why", true));
  PULSE_ASSIGN_OR_RETURN(in.evidence, String(args, m, "evidence", false));
  PULSE_ASSIGN_OR_RETURN(in.confidence, String(args, m, "confidence", true));
  PULSE_ASSIGN_OR_RETURN(in.blocks, String(args, m, "blocks", false));
  PULSE_ASSIGN_OR_RETURN(in.safe_default_by, OptString(args, m, "safe_default_by"));
  PULSE_ASSIGN_OR_RETURN(in.needs, String(args, m, "needs", false));
  PULSE_ASSIGN_OR_RETURN(in.session, String(args, m, "session", false));
  return WithDecisions(ctx, [&](DecisionContext& dc) { return Recommend(dc, in); });
}

Result<json> DoAnswer(ApiContext& ctx, const json& args) {
  const char* m = "decision.answer";
  AnswerInput in;
  PULSE_ASSIGN_OR_RETURN(in.decision_id, Id(args, m));
  PULSE_ASSIGN_OR_RETURN(in.accept, Flag(args, m, "accept"));
  PULSE_ASSIGN_OR_RETURN(in.dismiss, Flag(args, m, "dismiss"));
  PULSE_ASSIGN_OR_RETURN(in.option, OptString(args, m, "option"));
  PULSE_ASSIGN_OR_RETURN(in.text, OptString(args, m, "text"));
  PULSE_ASSIGN_OR_RETURN(in.note, String(args, m, "note", false));
  PULSE_ASSIGN_OR_RETURN(in.session, String(args, m, "session", false));
  return WithDecisions(ctx, [&](DecisionContext& dc) { return Answer(dc, in); });
}

Result<json> DoOutcome(ApiContext& ctx, const json& args) {
  PULSE_ASSIGN_OR_RETURN(int64_t id, Id(args, "decision.outcome"));
  PULSE_ASSIGN_OR_RETURN(std::string result, String(args, "decision.outcome", "result", true));
  return WithDecisions(ctx, [&](DecisionContext& dc) { return RecordOutcome(dc, id, result); });
}

Result<json> DoList(ApiContext& ctx, const json& args) {
  PULSE_ASSIGN_OR_RETURN(std::string status, String(args, "decision.list", "status", false));
  return WithDecisions(ctx, [&](DecisionContext& dc) { return ListDecisions(dc, status); });
}

Result<json> DoApplyDefaults(ApiContext& ctx, const json&) {
  return WithDecisions(ctx, [&](DecisionContext& dc) { return ApplyDueDefaults(dc); });
}

// A memory write in its own transaction, answered with the new show document.
template <typename Fn>
Result<json> MemoryWriteCall(ApiContext& ctx, Fn fn) {
  PULSE_RETURN_IF_ERROR(Need(ctx));
  GoalMemory memory(*ctx.db, *ctx.env, MemoryPath(ctx));
  Transaction tx(*ctx.db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(MemoryWrite w, fn(memory));
  Status s = tx.Commit();
  if (!s.ok()) {
    memory.RestoreFile(w);
    return s;
  }
  PULSE_ASSIGN_OR_RETURN(json out, memory.Show());
  out["dropped"] = w.dropped;
  return out;
}

Result<json> MemoryShow(ApiContext& ctx, const json&) {
  PULSE_RETURN_IF_ERROR(Need(ctx));
  GoalMemory memory(*ctx.db, *ctx.env, MemoryPath(ctx));
  return memory.Show();
}

Result<json> MemoryAdd(ApiContext& ctx, const json& args) {
  PULSE_ASSIGN_OR_RETURN(std::string section_s, String(args, "memory.add", "section", true));
  PULSE_ASSIGN_OR_RETURN(std::string source_s, String(args, "memory.add", "source", true));
  PULSE_ASSIGN_OR_RETURN(std::string text, String(args, "memory.add", "text", true));
  PULSE_ASSIGN_OR_RETURN(MemorySection section, ParseMemorySection(section_s));
  PULSE_ASSIGN_OR_RETURN(MemorySource source, ParseMemorySource(source_s));
  return MemoryWriteCall(ctx, [&](GoalMemory& m) { return m.Add(section, source, text); });
}

Result<json> MemoryConsolidate(ApiContext& ctx, const json&) {
  return MemoryWriteCall(ctx, [&](GoalMemory& m) { return m.Consolidate(); });
}

Result<json> MemorySave(ApiContext& ctx, const json& args) {
  PULSE_ASSIGN_OR_RETURN(std::string text, String(args, "memory.save", "text", true));
  PULSE_ASSIGN_OR_RETURN(std::string base, String(args, "memory.save", "base_hash", true));
  return MemoryWriteCall(ctx, [&](GoalMemory& m) { return m.Save(text, base); });
}

}  // namespace

void AddDecisionsApi(ApiRegistry& r) {
  r.Add("decision.create", Create, "open a pending decision request for the owner {question, options?, blocks?, raised_by?}");
  r.Add("decision.recommend", DoRecommend,
        "attach Pulse's recommendation {id, option|text, why, evidence?, confidence, safe_default_by?, needs?, session?}");
  r.Add("decision.answer", DoAnswer,
        "the owner's answer {id, accept|option|text|dismiss, note?, session?}; refused for unattended sessions");
  r.Add("decision.outcome", DoOutcome, "record what came of an answered decision {id, result}");
  r.Add("decision.list", DoList, "decisions with recommendation, answer and outcome {status?}; plus outcomes_due");
  r.Add("decision.apply_due_defaults", DoApplyDefaults,
        "answer=act: apply recommendations whose safe_default_by passed with no owner answer");
  r.Add("memory.show", MemoryShow, "goal memory (memory/goal.md): text, hash, entries, sections, consolidate_due");
  r.Add("memory.add", MemoryAdd, "add one goal memory entry {section, source, text}");
  r.Add("memory.consolidate", MemoryConsolidate, "drop duplicate and oldest Pulse entries down to 60");
  r.Add("memory.save", MemorySave, "the owner's edit of goal memory {text, base_hash}; refused when base_hash is stale");
}

}  // namespace pulse
