#include "core/workflow_config.h"

#include "core/json_limits.h"
#include "core/time_util.h"

namespace pulse {

using nlohmann::json;

const char* LevelName(Level level) { return level == Level::kAuto ? "auto" : "ask"; }
const char* AnswerLevelName(AnswerLevel level) { return level == AnswerLevel::kAct ? "act" : "recommend"; }

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

Status ReadSchedule(const Reader& r, const json& item, const std::string& path, Schedule* s) {
  if (!item.is_object()) return r.Fail(path, "expected an object");
  PULSE_RETURN_IF_ERROR(r.String(item, "id", path + ".id", &s->id));
  if (s->id.empty()) return r.Fail(path + ".id", "missing: every schedule needs an id");
  PULSE_RETURN_IF_ERROR(r.String(item, "cron", path + ".cron", &s->cron));
  PULSE_RETURN_IF_ERROR(r.Bool(item, "enabled", path + ".enabled", &s->enabled));
  const json* after = nullptr;
  PULSE_RETURN_IF_ERROR(r.Object(item, "after_run", path + ".after_run", &after));
  if (after) {
    PULSE_RETURN_IF_ERROR(r.Bool(*after, "backup", path + ".after_run.backup", &s->after_run.backup));
    PULSE_RETURN_IF_ERROR(r.Bool(*after, "publish", path + ".after_run.publish", &s->after_run.publish));
    PULSE_RETURN_IF_ERROR(r.Bool(*after, "notify", path + ".after_run.notify", &s->after_run.notify));
  }
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
