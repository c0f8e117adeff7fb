#include "core/workflow/workflow_config.h"

#include "core/base/json_limits.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

const char* LevelName(Level level) { return level == Level::kAuto ? "auto" : "ask"; }
const char* AnswerLevelName(AnswerLevel level) { return level == AnswerLevel::kAct ? "act" : "recommend"; }

AfterRun AfterRunForPulseMode(const std::string& pulse_mode) {
  if (pulse_mode == "off") return AfterRun{false, false, false};
  return AfterRun{true, true, true};
}

bool WorkflowConfig::AllSchedulesPaused() const {
  if (schedules.empty()) return false;
  for (const Schedule& s : schedules) {
    if (s.enabled) return false;
  }
  return true;
}

namespace {

// Small typed readers: each names the key path and what was expected.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Status Fail(const std::string& path, const std::string& problem) const {
    return Status::InvalidArgument(source_ + ": " + path + ": " + problem);
  }

  Status Object(const json& parent, const char* key, const std::string& path, const json** out) const {
    *out = nullptr;
    auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) return Status::OK();
    if (!it->is_object()) return Fail(path, "expected an object");
    *out = &*it;
    return Status::OK();
  }

  Status Bool(const json& parent, const char* key, const std::string& path, bool* out) const {
    auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) return Status::OK();
    if (!it->is_boolean()) return Fail(path, "expected true or false");
    *out = it->get<bool>();
    return Status::OK();
  }

  Status String(const json& parent, const char* key, const std::string& path, std::string* out) const {
    auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) return Status::OK();
    if (!it->is_string()) return Fail(path, "expected a string");
    *out = it->get<std::string>();
    return Status::OK();
  }

  Status Number(const json& parent, const char* key, const std::string& path, std::optional<double>* out) const {
    auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) return Status::OK();
    if (!it->is_number()) return Fail(path, "expected a number");
    *out = it->get<double>();
    return Status::OK();
  }

  Status PositiveInt(const json& parent, const char* key, const std::string& path, int* out) const {
    auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) return Status::OK();
    if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > 3650) {
      return Fail(path, "expected a whole number of days between 1 and 3650");
    }
    *out = it->get<int>();
    return Status::OK();
  }

  Status Time(const json& parent, const char* key, const std::string& path, std::optional<int64_t>* out) const {
    auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) return Status::OK();
    if (!it->is_string()) return Fail(path, "expected an RFC 3339 time string");
    Result<int64_t> t = ParseTime(it->get<std::string>());
    if (!t.ok()) return Fail(path, t.status().message());
    *out = *t;
    return Status::OK();
  }

  Status Level2(const json& parent, const char* key, const std::string& path, Level* out) const {
    std::string value;
    PULSE_RETURN_IF_ERROR(String(parent, key, path, &value));
    if (value.empty()) return Status::OK();
    if (value == "ask") *out = Level::kAsk;
    else if (value == "auto") *out = Level::kAuto;
    else return Fail(path, "expected \"ask\" or \"auto\", got \"" + value + "\"");
    return Status::OK();
  }

 private:
  std::string source_;
};

}  // namespace

namespace {

Status ReadAutonomy(const Reader& r, const json& autonomy, AutonomyLevels* a) {
  PULSE_RETURN_IF_ERROR(r.Level2(autonomy, "run", "pulse.autonomy.run", &a->run));
  PULSE_RETURN_IF_ERROR(r.Level2(autonomy, "outward", "pulse.autonomy.outward", &a->outward));
  PULSE_RETURN_IF_ERROR(r.Level2(autonomy, "change", "pulse.autonomy.change", &a->change));
  std::string answer;
  PULSE_RETURN_IF_ERROR(r.String(autonomy, "answer", "pulse.autonomy.answer", &answer));
  if (answer == "act") a->answer = AnswerLevel::kAct;
  else if (answer.empty() || answer == "recommend") a->answer = AnswerLevel::kRecommend;
  else return r.Fail("pulse.autonomy.answer", "expected \"recommend\" or \"act\", got \"" + answer + "\"");
  std::string unclassified;
  PULSE_RETURN_IF_ERROR(r.String(autonomy, "unclassified", "pulse.autonomy.unclassified", &unclassified));
  if (!unclassified.empty()) {
    if (unclassified != "ask" && unclassified != "allow") {
      return r.Fail("pulse.autonomy.unclassified", "expected \"ask\" or \"allow\", got \"" + unclassified + "\"");
    }
    a->unclassified = unclassified;
  }
  return Status::OK();
}

// "pulse": enabled, autonomy, goal_check.
Status ReadPulse(const Reader& r, const json& pulse, WorkflowConfig* config) {
  PULSE_RETURN_IF_ERROR(r.Bool(pulse, "enabled", "pulse.enabled", &config->pulse_enabled));
  const json* autonomy = nullptr;
  PULSE_RETURN_IF_ERROR(r.Object(pulse, "autonomy", "pulse.autonomy", &autonomy));
  if (autonomy) PULSE_RETURN_IF_ERROR(ReadAutonomy(r, *autonomy, &config->autonomy));
  const json* check = nullptr;
  PULSE_RETURN_IF_ERROR(r.Object(pulse, "goal_check", "pulse.goal_check", &check));
  if (check) {
    PULSE_RETURN_IF_ERROR(r.PositiveInt(*check, "not_measured_days", "pulse.goal_check.not_measured_days",
                                        &config->goal_check.not_measured_days));
    PULSE_RETURN_IF_ERROR(r.PositiveInt(*check, "no_run_days", "pulse.goal_check.no_run_days",
                                        &config->goal_check.no_run_days));
  }
  return Status::OK();
}

Status ReadPrimaryMetric(const Reader& r, const json& pm, PrimaryMetric* m) {
  PULSE_RETURN_IF_ERROR(r.String(pm, "name", "goal.primary_metric.name", &m->name));
  if (m->name.empty()) return r.Fail("goal.primary_metric.name", "missing: the metric needs a name");
  PULSE_RETURN_IF_ERROR(r.String(pm, "route", "goal.primary_metric.route", &m->route));
  std::string direction;
  PULSE_RETURN_IF_ERROR(r.String(pm, "direction", "goal.primary_metric.direction", &direction));
  if (direction == "decrease") m->increase = false;
  else if (direction.empty() || direction == "increase") m->increase = true;
  else return r.Fail("goal.primary_metric.direction", "expected \"increase\" or \"decrease\", got \"" + direction + "\"");
  PULSE_RETURN_IF_ERROR(r.Number(pm, "target", "goal.primary_metric.target", &m->target));
  PULSE_RETURN_IF_ERROR(r.Number(pm, "baseline", "goal.primary_metric.baseline", &m->baseline));
  PULSE_RETURN_IF_ERROR(r.Time(pm, "baseline_at", "goal.primary_metric.baseline_at", &m->baseline_at));
  PULSE_RETURN_IF_ERROR(r.Time(pm, "deadline", "goal.primary_metric.deadline", &m->deadline));
  return Status::OK();
}

Status ReadAfterRun(const Reader& r, const json& after, const std::string& path, AfterRun* out) {
  PULSE_RETURN_IF_ERROR(r.Bool(after, "backup", path + ".backup", &out->backup));
  PULSE_RETURN_IF_ERROR(r.Bool(after, "publish", path + ".publish", &out->publish));
  PULSE_RETURN_IF_ERROR(r.Bool(after, "notify", path + ".notify", &out->notify));
  return Status::OK();
}

Status ReadSchedule(const Reader& r, const json& item, const std::string& path, Schedule* s) {
  if (!item.is_object()) return r.Fail(path, "expected an object");
  PULSE_RETURN_IF_ERROR(r.String(item, "id", path + ".id", &s->id));
  if (s->id.empty()) return r.Fail(path + ".id", "missing: every schedule needs an id");
  PULSE_RETURN_IF_ERROR(r.String(item, "cron", path + ".cron", &s->cron));
  PULSE_RETURN_IF_ERROR(r.Bool(item, "enabled", path + ".enabled", &s->enabled));
  PULSE_RETURN_IF_ERROR(r.String(item, "pulse_mode", path + ".pulse_mode", &s->pulse_mode));
  if (!s->pulse_mode.empty() && s->pulse_mode != "basic" && s->pulse_mode != "full" && s->pulse_mode != "off") {
    return r.Fail(path + ".pulse_mode", "expected \"basic\", \"full\" or \"off\", got \"" + s->pulse_mode + "\"");
  }
  const json* after = nullptr;
  PULSE_RETURN_IF_ERROR(r.Object(item, "after_run", path + ".after_run", &after));
  s->after_run_set = after != nullptr;
  // Where after_run is absent the retired pulse_mode still says what the
  // owner chose (off: nothing after a run).
  if (!after) s->after_run = AfterRunForPulseMode(s->pulse_mode);
  if (after) PULSE_RETURN_IF_ERROR(ReadAfterRun(r, *after, path + ".after_run", &s->after_run));
  return Status::OK();
}

}  // namespace

Result<WorkflowConfig> ParseWorkflowConfig(const std::string& text, const std::string& source) {
  // Never json::parse: it throws (an abort in WASM) and takes 1e400 and any
  // nesting, which break every later copy or dump of the snapshot.
  PULSE_ASSIGN_OR_RETURN(json doc, ParseJsonBounded(text, source));
  if (!doc.is_object()) return Status::InvalidArgument(source + ": expected a JSON object at the top level");

  Reader r(source);
  WorkflowConfig config;
  config.raw = doc;

  const json* pulse = nullptr;
  PULSE_RETURN_IF_ERROR(r.Object(doc, "pulse", "pulse", &pulse));
  if (pulse) PULSE_RETURN_IF_ERROR(ReadPulse(r, *pulse, &config));

  const json* goal = nullptr;
  PULSE_RETURN_IF_ERROR(r.Object(doc, "goal", "goal", &goal));
  const json* pm = nullptr;
  if (goal) PULSE_RETURN_IF_ERROR(r.Object(*goal, "primary_metric", "goal.primary_metric", &pm));
  if (pm) {
    PrimaryMetric m;
    PULSE_RETURN_IF_ERROR(ReadPrimaryMetric(r, *pm, &m));
    config.primary_metric = m;
  }

  const json* manual = nullptr;
  PULSE_RETURN_IF_ERROR(r.Object(doc, "after_manual_run", "after_manual_run", &manual));
  if (manual) PULSE_RETURN_IF_ERROR(ReadAfterRun(r, *manual, "after_manual_run", &config.after_manual_run));
  auto cv = doc.find("contract_version");
  if (cv != doc.end() && !cv->is_null()) {
    if (!cv->is_number_integer() || cv->get<int64_t>() < 0 || cv->get<int64_t>() > 1000000) {
      return r.Fail("contract_version", "expected a whole number from 0 to 1000000");
    }
    config.contract_version = cv->get<int>();
  }

  auto schedules = doc.find("schedules");
  if (schedules != doc.end() && !schedules->is_null()) {
    if (!schedules->is_array()) return r.Fail("schedules", "expected an array");
    for (size_t i = 0; i < schedules->size(); ++i) {
      Schedule s;
      PULSE_RETURN_IF_ERROR(ReadSchedule(r, (*schedules)[i], "schedules[" + std::to_string(i) + "]", &s));
      config.schedules.push_back(std::move(s));
    }
  }
  return config;
}

}  // namespace pulse
