#include "core/review/workflow_review.h"

#include <algorithm>
#include <set>

#include "core/base/json_limits.h"
#include "core/base/sha256.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

json DueItem::ToJson() const { return json{{"kind", kind}, {"detail", detail}}; }
json BrokenStep::ToJson() const { return json{{"step", step}, {"reason", reason}}; }

namespace {

json List(const std::vector<DueItem>& v) {
  json out = json::array();
  for (const DueItem& d : v) out.push_back(d.ToJson());
  return out;
}

json List(const std::vector<BrokenStep>& v) {
  json out = json::array();
  for (const BrokenStep& b : v) out.push_back(b.ToJson());
  return out;
}

std::string Str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

// One record from the file; false when it is not a record (the file is then
// rebuilt: a record Pulse cannot read is not trusted).
bool ParseRecord(const json& o, ReviewRecord* r, std::string* why) {
  static const std::set<std::string> kOutcomes = {"running", "clean", "broken", "unfinished", "unrecorded"};
  if (!o.is_object()) return *why = "a review record is not an object", false;
  r->revision = Str(o, "revision");
  r->outcome = Str(o, "outcome");
  if (r->revision.size() != 64) return *why = "a review record has no revision hash", false;
  if (!kOutcomes.count(r->outcome)) return *why = "a review record's outcome \"" + r->outcome + "\" is unknown", false;
  Result<int64_t> started = ParseTime(Str(o, "started_at"));
  if (!started.ok()) return *why = "a review record's started_at: " + started.status().message(), false;
  r->started_at = *started;
  if (!Str(o, "finished_at").empty()) {
    Result<int64_t> finished = ParseTime(Str(o, "finished_at"));
    if (!finished.ok()) return *why = "a review record's finished_at: " + finished.status().message(), false;
    r->finished_at = *finished;
  }
  r->trigger = Str(o, "trigger");
  r->session = Str(o, "session");
  r->pulse_run_id = Str(o, "pulse_run_id");
  r->summary = Str(o, "summary");
  r->receipt_error = Str(o, "receipt_error");
  if (o.contains("notify") && o["notify"].is_array()) {
    for (const json& n : o["notify"]) if (n.is_string()) r->notify.push_back(n.get<std::string>());
  }
  if (o.contains("broken") && o["broken"].is_array()) {
    for (const json& b : o["broken"]) r->broken.push_back(BrokenStep{Str(b, "step"), Str(b, "reason")});
  }
  if (o.contains("due") && o["due"].is_array()) {
    for (const json& d : o["due"]) r->due.push_back(DueItem{Str(d, "kind"), Str(d, "detail")});
  }
  return true;
}

}  // namespace

json ReviewRecord::ToJson() const {
  json out{{"revision", revision},         {"outcome", outcome},   {"broken", List(broken)},
           {"due", List(due)},             {"trigger", trigger},   {"session", session},
           {"pulse_run_id", pulse_run_id}, {"summary", summary},   {"notify", notify},
           {"started_at", FormatTime(started_at)},
           {"finished_at", finished_at ? FormatTime(*finished_at) : std::string()}};
  if (!receipt_error.empty()) out["receipt_error"] = receipt_error;
  return out;
}

std::vector<BrokenStep> SummariseBreaks(const std::vector<BrokenStep>& broken) {
  std::vector<BrokenStep> out;
  auto cut = [](const std::string& s, size_t max) {
    if (s.size() <= max) return s;
    return std::string(Utf8Prefix(s, max - 3)) + "\xe2\x80\xa6";  // "…"
  };
  for (size_t i = 0; i < broken.size() && i < kMaxListedBreaks; ++i) {
    out.push_back({cut(broken[i].step, kMaxBreakStepBytes), cut(broken[i].reason, kMaxBreakReasonBytes)});
  }
  if (broken.size() > kMaxListedBreaks) {
    std::set<std::string> steps;
    for (const BrokenStep& b : broken) steps.insert(b.step);
    out.push_back({"plan.json", std::to_string(broken.size()) + " breaks in " + std::to_string(steps.size()) +
                                    (steps.size() == 1 ? " step" : " steps") + "; the first " +
                                    std::to_string(kMaxListedBreaks) +
                                    " are listed, and so many stop every run until the plan is fixed"});
  }
  return out;
}

json PreRunVerdict::ToJson() const {
  json out = {{"go", go}};
  if (!reason.empty()) out["reason"] = reason;
  if (review_needed) out["review_needed"] = true;
  if (review_running) out["review_running"] = true;
  if (!stopping.empty()) out["broken"] = List(stopping);
  return out;
}

std::string PlanPath(const std::string& dir) { return dir + "/planning/plan.json"; }
std::string ReviewFilePath(const std::string& dir) { return dir + "/planning/workflow_review.json"; }

ReviewFile ReadReviewFile(Env& env, const std::string& path) {
  if (!env.FileExists(path)) return ReviewFile();
  Result<std::string> text = env.ReadFile(path);
  if (!text.ok()) {
    ReviewFile f;
    f.rebuilt_reason = path + ": " + text.status().message();
    return f;
  }
  return ParseReviewFile(*text, path);
}

ReviewFile ParseReviewFile(const std::string& text, const std::string& path) {
  ReviewFile f;
  f.text = text;
  Result<json> doc = ParseJsonBounded(text, path);
  std::string why;
  if (!doc.ok()) {
    why = doc.status().message();
  } else if (!doc->is_object() || !(*doc).contains("reviews") || !(*doc)["reviews"].is_array()) {
    why = path + ": expected {\"reviews\": [...]}";
  } else {
    for (const json& o : (*doc)["reviews"]) {
      ReviewRecord r;
      if (!ParseRecord(o, &r, &why)) {
        why = path + ": " + why;
        break;
      }
      f.reviews.push_back(std::move(r));
    }
  }
  if (!why.empty()) {
    f.reviews.clear();
    f.rebuilt_reason = why + "; rebuilt (its records are not trusted)";
  }
  return f;
}

std::string RenderReviewFile(const ReviewFile& file) {
  json reviews = json::array();
  size_t skip = file.reviews.size() > kMaxReviewRecords ? file.reviews.size() - kMaxReviewRecords : 0;
  for (size_t i = skip; i < file.reviews.size(); ++i) reviews.push_back(file.reviews[i].ToJson());
  return json{{"version", 1}, {"reviews", reviews}}.dump(2) + "\n";
}

namespace {

struct PlanFiles {
  bool plan = false, config = false, changelog = false;
  std::string plan_text, config_text, changelog_text;
};

Result<PlanFiles> ReadPlanFiles(Env& env, const std::string& dir) {
  PlanFiles f;
  auto read = [&](const std::string& path, bool* exists, std::string* text) -> Status {
    *exists = env.FileExists(path);
    if (!*exists) return Status::OK();
    PULSE_ASSIGN_OR_RETURN(*text, env.ReadFile(path));
    return Status::OK();
  };
  PULSE_RETURN_IF_ERROR(read(PlanPath(dir), &f.plan, &f.plan_text));
  PULSE_RETURN_IF_ERROR(read(dir + "/planning/step_config.json", &f.config, &f.config_text));
  PULSE_RETURN_IF_ERROR(read(dir + "/planning/changelog.jsonl", &f.changelog, &f.changelog_text));
  return f;
}

// A step is an id or an object with an "id" (and maybe depends_on).
void AddStep(const json& step, bool top_level, PlanState* s) {
  std::string id = step.is_string() ? step.get<std::string>() : Str(step, "id");
  if (step.is_object()) s->step_objects.push_back(step);
  if (top_level) s->top_level_ids.push_back(id);
  if (std::find(s->steps.begin(), s->steps.end(), id) == s->steps.end()) s->steps.push_back(id);
}

// plan.json: {"steps": [...]} and/or {"routes": {"<route>": {"steps": [...]}}}
// (or a list of routes with "id"); anything else is the reason.
void ReadPlan(const PlanFiles& f, PlanState* s) {
  if (!f.plan) return;
  Result<json> doc = ParseJsonBounded(f.plan_text, "planning/plan.json");
  if (!doc.ok()) {
    s->plan_error = "planning/plan.json is not JSON: " + doc.status().message();
    return;
  }
  s->plan = *doc;
  const json* steps = doc->is_object() && doc->contains("steps") ? &(*doc)["steps"] : nullptr;
  const json* routes = doc->is_object() && doc->contains("routes") ? &(*doc)["routes"] : nullptr;
  if ((!steps || !steps->is_array()) && (!routes || !(routes->is_object() || routes->is_array()))) {
    s->plan_error = "planning/plan.json has neither a \"steps\" list nor \"routes\"";
    return;
  }
  if (steps && steps->is_array()) {
    for (const json& step : *steps) AddStep(step, true, s);
  }
  if (routes && (routes->is_object() || routes->is_array())) {
    for (const json& r : *routes) {
      if (!r.is_object() || !r.contains("steps") || !r["steps"].is_array()) continue;
      for (const json& step : r["steps"]) AddStep(step, false, s);
    }
  }
}

// The changelog's entries after `since` (0: all); each line a JSON object.
void ReadChanges(const PlanFiles& f, int64_t since, PlanState* s) {
  size_t start = 0;
  const std::string& t = f.changelog_text;
  while (start < t.size()) {
    size_t end = t.find('\n', start);
    std::string line = t.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? t.size() : end + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Result<json> entry = ParseJsonBounded(line, "planning/changelog.jsonl");
    if (!entry.ok() || !entry->is_object()) continue;  // a line Pulse cannot read still counts in the revision
    Result<int64_t> at = ParseTime(Str(*entry, "at"));
    int64_t when = at.ok() ? *at : 0;
    s->last_change_at = std::max(s->last_change_at, when);
    if (when > since || since == 0) s->changes_since.push_back(*entry);
  }
}

std::string ChangeLine(const json& c) {
  std::string steps;
  if (c.contains("steps") && c["steps"].is_array()) {
    for (const json& x : c["steps"]) if (x.is_string()) steps += (steps.empty() ? "" : ", ") + x.get<std::string>();
  }
  return Str(c, "tool") + (steps.empty() ? "" : " (" + steps + ")") +
         (Str(c, "who").empty() ? "" : " by " + Str(c, "who")) +
         (Str(c, "reason").empty() ? "" : ": " + Str(c, "reason"));
}

const ReviewRecord* LastFinished(const ReviewFile& file) {
  for (auto it = file.reviews.rbegin(); it != file.reviews.rend(); ++it) {
    if (it->outcome != "running") return &*it;
  }
  return nullptr;
}

void CollectDue(const WorkflowConfig& config, const ReviewFile& file, PlanState* s) {
  const ReviewRecord* last = LastFinished(file);
  if (!s->plan_error.empty()) s->due.push_back({"plan_not_json", s->plan_error});
  if (config.contract_version > 0 && config.contract_version < kPulseContractVersion) {
    s->due.push_back({"contract_version", "contract_version " + std::to_string(config.contract_version) +
                                              " is older than Pulse's " + std::to_string(kPulseContractVersion)});
  }
  for (const json& c : s->changes_since) s->due.push_back({"plan_edit", "plan edited: " + ChangeLine(c)});
  if (last && s->changes_since.empty() && last->revision != s->revision) {
    s->due.push_back({"unreceipted_change", "the plan files changed since the last review with no changelog entry"});
  }
  if (!last) s->due.insert(s->due.begin(), DueItem{"no_review", "the plan has never been reviewed"});
  else if (s->due.empty()) s->due.push_back({"no_review", "no review for this plan revision"});
}

}  // namespace

Result<PlanState> ReadPlanState(Env& env, const std::string& dir, const WorkflowConfig& config,
                                const ReviewFile& file, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(PlanFiles f, ReadPlanFiles(env, dir));
  PlanState s;
  s.has_plan = f.plan || f.config || f.changelog;
  ReadPlan(f, &s);
  if (f.config) {
    Result<json> cfg = ParseJsonBounded(f.config_text, "planning/step_config.json");
    if (cfg.ok()) s.step_config = *cfg;
  }
  size_t lines = static_cast<size_t>(std::count(f.changelog_text.begin(), f.changelog_text.end(), '\n'));
  s.revision = Sha256Hex("plan.json\n" + std::to_string(f.plan_text.size()) + "\n" + f.plan_text + "\nstep_config.json\n" +
                         std::to_string(f.config_text.size()) + "\n" + f.config_text + "\nchangelog " +
                         std::to_string(lines) + "\ncontract " + std::to_string(config.contract_version));
  for (const ReviewRecord& r : file.reviews) {
    if (r.revision == s.revision) s.current = &r;
  }
  if (!s.has_plan) return s;  // nothing to review
  const ReviewRecord* last = LastFinished(file);
  ReadChanges(f, last ? last->started_at : 0, &s);
  if (!s.current) CollectDue(config, file, &s);
  (void)now;
  return s;
}

const ReviewRecord* RunningReview(const ReviewFile& file, int64_t now) {
  for (const ReviewRecord& r : file.reviews) {
    if (r.outcome == "running" && now - r.started_at < kReviewLeaseSeconds) return &r;
  }
  return nullptr;
}

PreRunVerdict DecidePreRun(const PlanState& plan, const std::string& step, int64_t now) {
  PreRunVerdict v;
  if (!plan.has_plan) return v;
  const ReviewRecord* r = plan.current;
  if (!r) {
    v.go = false;
    v.review_needed = true;
    v.reason = kReviewingMessage;
    return v;
  }
  if (r->outcome == "running") {
    if (now - r->started_at < kReviewLeaseSeconds) {
      v.go = false;
      v.review_running = true;
      v.reason = kReviewingMessage;
      return v;
    }
    v.reason = "the Workflow Review of this plan revision did not finish; the run goes";
    return v;
  }
  if (r->outcome == "unfinished") {
    v.reason = "the Workflow Review of this plan revision did not finish (" + r->summary + "); the run goes";
    return v;
  }
  if (r->outcome == "unrecorded") {
    // It reached a result and could not record it: not a pass.
    v.go = false;
    const bool retry = r->finished_at && now - *r->finished_at >= kReviewLeaseSeconds;
    v.review_needed = retry;
    v.reason = "the Workflow Review of this plan revision could not record its result (" + r->summary +
               "); runs stop until a review is recorded" +
               (retry ? " (reviewing again)" : " (it is tried again " + std::to_string(kReviewLeaseSeconds / 60) +
                                                   " minutes after the last try)");
    return v;
  }
  for (const BrokenStep& b : r->broken) {
    // A break in the plan as a whole ("plan.json") stops every run.
    bool whole = std::find(plan.steps.begin(), plan.steps.end(), b.step) == plan.steps.end();
    if (step.empty() || b.step == step || whole) v.stopping.push_back(b);
  }
  if (!v.stopping.empty()) {
    v.go = false;
    std::string what;
    for (const BrokenStep& b : v.stopping) what += (what.empty() ? "" : "; ") + b.step + ": " + b.reason;
    v.reason = "Workflow Review found a break this run touches — " + what;
  }
  return v;
}

namespace {

// Read, change, swap; again when another writer got there first.
template <typename Change>
Result<ReviewRecord> EditReviewFile(Env& env, const std::string& dir, Change change) {
  const std::string path = ReviewFilePath(dir);
  PULSE_RETURN_IF_ERROR(env.CreateDirs(dir + "/planning"));
  for (int attempt = 0; attempt < 100; ++attempt) {
    ReviewFile f = ReadReviewFile(env, path);
    if (!f.rebuilt_reason.empty()) env.Log(LogLevel::kWarn, f.rebuilt_reason);
    PULSE_ASSIGN_OR_RETURN(ReviewRecord out, change(f));
    std::string next = RenderReviewFile(f);
    Status s = env.FileExists(path) ? env.SwapFile(path, f.text, next) : env.WriteFileAtomic(path, next);
    if (s.ok()) return out;
    if (s.code() != Code::kConflict) return s;
  }
  return Status::Conflict(path + ": kept changing under 100 attempts; nothing written");
}

}  // namespace

Result<ReviewRecord> ClaimReview(Env& env, const std::string& dir, const std::string& revision,
                                 const std::vector<DueItem>& due, const std::string& trigger,
                                 const std::string& session, const std::string& pulse_run_id, int64_t now) {
  return EditReviewFile(env, dir, [&](ReviewFile& f) -> Result<ReviewRecord> {
    if (const ReviewRecord* running = RunningReview(f, now)) {
      return Status::Busy("a Workflow Review is already running (" + running->pulse_run_id + ")");
    }
    for (auto it = f.reviews.begin(); it != f.reviews.end(); ++it) {
      if (it->revision != revision) continue;
      // An unrecorded review is tried again once its lease has passed.
      if (it->outcome == "unrecorded" && it->finished_at && now - *it->finished_at >= kReviewLeaseSeconds) {
        f.reviews.erase(it);
        break;
      }
      return Status::Refused("this plan revision was already reviewed (" + it->outcome + ")");
    }
    ReviewRecord r;
    r.revision = revision;
    r.outcome = "running";
    r.due = due;
    r.trigger = trigger;
    r.session = session;
    r.pulse_run_id = pulse_run_id;
    r.started_at = now;
    f.reviews.push_back(r);
    return r;
  });
}

namespace {

ReviewRecord* RunningOf(ReviewFile& f, const std::string& session) {
  for (ReviewRecord& r : f.reviews) {
    if (r.session == session && r.outcome == "running") return &r;
  }
  return nullptr;
}

}  // namespace

Result<ReviewRecord> RecordReviewReceipt(Env& env, const std::string& dir, const std::string& session,
                                         const std::string& outcome, const std::vector<BrokenStep>& broken,
                                         const std::string& summary, int64_t now) {
  if (outcome != "clean" && outcome != "broken") {
    return Status::InvalidArgument("result: expected clean or broken, got \"" + outcome + "\"");
  }
  if (outcome == "clean" && !broken.empty()) return Status::InvalidArgument("broken: a clean review lists no broken steps");
  if (outcome == "broken" && broken.empty()) return Status::InvalidArgument("broken: a broken review names each broken step");
  for (const BrokenStep& b : broken) {
    if (b.step.empty() || b.reason.empty()) return Status::InvalidArgument("broken: every entry needs a step and a reason");
  }
  return EditReviewFile(env, dir, [&](ReviewFile& f) -> Result<ReviewRecord> {
    ReviewRecord* r = RunningOf(f, session);
    if (!r) return Status::Refused("no Workflow Review is running in session " + session + "; nothing recorded");
    r->outcome = outcome;
    r->broken = SummariseBreaks(broken);
    r->summary = std::string(Utf8Prefix(summary, 4000));
    r->receipt_error.clear();
    r->finished_at = now;
    return *r;
  });
}

Status NoteReceiptError(Env& env, const std::string& dir, const std::string& session, const std::string& why,
                        int64_t now) {
  (void)now;
  return EditReviewFile(env, dir, [&](ReviewFile& f) -> Result<ReviewRecord> {
    ReviewRecord* r = RunningOf(f, session);
    if (!r) return ReviewRecord{};
    std::string line = why;
    for (char& c : line) if (c == '\n' || c == '\r') c = ' ';
    r->receipt_error = std::string(Utf8Prefix(line, 1000));
    return *r;
  }).status();
}

Status FinishUnreceipted(Env& env, const std::string& dir, const std::string& session, const std::string& why,
                         int64_t now) {
  Result<ReviewRecord> r = EditReviewFile(env, dir, [&](ReviewFile& f) -> Result<ReviewRecord> {
    ReviewRecord* running = RunningOf(f, session);
    if (!running) return ReviewRecord{};
    if (!running->receipt_error.empty()) {
      running->outcome = "unrecorded";
      running->summary = "its receipt was not recorded: " + running->receipt_error;
    } else {
      running->outcome = "unfinished";
      running->summary = why;
    }
    running->finished_at = now;
    return *running;
  });
  return r.status();
}

Status AddReviewWaiter(Env& env, const std::string& dir, const std::string& revision, const std::string& chat,
                       int64_t now) {
  return EditReviewFile(env, dir, [&](ReviewFile& f) -> Result<ReviewRecord> {
    for (ReviewRecord& r : f.reviews) {
      if (r.revision != revision || r.outcome != "running") continue;
      if (std::find(r.notify.begin(), r.notify.end(), chat) == r.notify.end() && r.notify.size() < 50) {
        r.notify.push_back(chat);
      }
      return r;
    }
    return Status::Refused("no Workflow Review of this plan revision is running");
  }).status();
}

Result<ReviewRecord> FindReviewBySession(Env& env, const std::string& dir, const std::string& session) {
  ReviewFile f = ReadReviewFile(env, ReviewFilePath(dir));
  for (auto it = f.reviews.rbegin(); it != f.reviews.rend(); ++it) {
    if (it->session == session) return *it;
  }
  return Status::NotFound("no Workflow Review was recorded for session " + session);
}

std::vector<BrokenStep> RulesReview(const PlanState& plan) {
  std::vector<BrokenStep> out;
  if (!plan.plan_error.empty()) {
    out.push_back({"plan.json", plan.plan_error});
    return out;
  }
  std::set<std::string> ids(plan.steps.begin(), plan.steps.end());
  std::set<std::string> seen;
  for (const std::string& id : plan.top_level_ids) {
    if (id.empty()) out.push_back({"plan.json", "a step has no id"});
    else if (!seen.insert(id).second) out.push_back({id, "two steps share the id \"" + id + "\""});
  }
  for (const json& step : plan.step_objects) {
    if (!step.contains("depends_on") || !step["depends_on"].is_array()) continue;
    for (const json& dep : step["depends_on"]) {
      std::string d = dep.is_string() ? dep.get<std::string>() : dep.dump();
      if (!ids.count(d)) out.push_back({Str(step, "id"), "depends on \"" + d + "\", which is not a step of the plan"});
    }
  }
  if (plan.step_config.is_object()) {
    for (auto it = plan.step_config.begin(); it != plan.step_config.end(); ++it) {
      if (!ids.count(it.key())) {
        out.push_back({it.key(), "step_config.json configures \"" + it.key() + "\", which is not a step of the plan"});
      }
    }
  }
  return out;
}

bool ReviewAheadDue(const WorkflowConfig& config, const PlanState& plan, int64_t now) {
  bool enabled = false;
  for (const Schedule& s : config.schedules) enabled = enabled || s.enabled;
  if (!enabled || !plan.has_plan || plan.current || plan.due.empty()) return false;
  return now - plan.last_change_at >= kPlanQuietSeconds;
}

json ReviewStateJson(const PlanState& plan, const ReviewFile& file) {
  json out = {{"has_plan", plan.has_plan}, {"revision", plan.revision}, {"due", List(plan.due)}};
  out["current"] = plan.current ? plan.current->ToJson() : json();
  out["latest"] = file.reviews.empty() ? json() : file.reviews.back().ToJson();
  if (!file.rebuilt_reason.empty()) out["rebuilt_reason"] = file.rebuilt_reason;
  return out;
}

}  // namespace pulse
