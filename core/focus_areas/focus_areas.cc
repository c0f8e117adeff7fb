#include "core/focus_areas/focus_areas.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cstdint>

#include "core/base/json_limits.h"
#include "core/base/one_line.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"
#include "core/workflow/workflow_edit.h"
#include "core/store/workspace.h"

namespace pulse {

using nlohmann::json;

namespace {

constexpr size_t kMaxTitle = 200;
constexpr size_t kMaxText = 2000;
constexpr size_t kMaxTracking = 400;  // a year of daily lines and then some

const char* kStatusNames[] = {"proposed", "active", "done", "expired", "dropped"};
const char* kActionNames[] = {"propose", "add", "confirm", "reject", "drop", "extend", "track", "close"};

std::string Today(int64_t now) { return FormatDate(now); }

bool IsDay(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return ParseTime(s + "T00:00:00Z").ok();
}

// A day on or after today; `what` names the input.
Status CheckEndDate(const std::string& date, int64_t now, const std::string& what) {
  if (!IsDay(date)) return Status::InvalidArgument(what + ": end date \"" + date + "\" is not a day (YYYY-MM-DD)");
  if (date < Today(now)) {
    return Status::InvalidArgument(what + ": end date " + date + " is in the past (today is " + Today(now) + ")");
  }
  return Status::OK();
}

// Text an owner or an agent wrote: one line, UTF-8, bounded.
Status CheckText(const std::string& text, const std::string& what, size_t max, bool required) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return required ? Status::InvalidArgument(what + " is empty") : Status::OK();
  }
  if (!IsValidUtf8(text)) return Status::InvalidArgument(what + " is not valid UTF-8 text");
  if (text.size() > max) return Status::InvalidArgument(what + " is longer than " + std::to_string(max) + " bytes");
  return Status::OK();
}

std::string Clean(const std::string& text) {
  std::string s = FlattenLineBreaks(text);
  size_t b = s.find_first_not_of(' ');
  size_t e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string NextId(const std::vector<FocusArea>& areas) {
  int64_t max = 0;
  for (const FocusArea& a : areas) {
    if (a.id.rfind("fa-", 0) != 0) continue;
    // Stored ids are read back from workflow files anyone can edit; no
    // exception may escape (the WebAssembly build cannot catch one), so a
    // malformed or oversized number is simply not counted.
    int64_t n = 0;
    const char* first = a.id.data() + 3;
    const char* last = a.id.data() + a.id.size();
    auto [end, ec] = std::from_chars(first, last, n);
    if (ec == std::errc() && end == last && n < INT64_MAX) max = std::max(max, n);
  }
  return "fa-" + std::to_string(max + 1);
}

std::string Str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

Result<FocusArea> ReadOne(const json& d, size_t i) {
  const std::string where = "pulse.focus_area_details[" + std::to_string(i) + "]";
  if (!d.is_object()) return Status::InvalidArgument(where + " is not an object");
  FocusArea a;
  a.id = Str(d, "id");
  a.title = Str(d, "title");
  if (a.id.empty()) return Status::InvalidArgument(where + ": \"id\" is missing");
  Result<FocusStatus> st = ParseFocusStatus(Str(d, "status").empty() ? "active" : Str(d, "status"));
  if (!st.ok()) return st.status().WithContext(where);
  a.status = *st;
  a.end_date = Str(d, "end_date");
  a.check = Str(d, "check");
  a.lesson = Str(d, "lesson");
  a.proposed_by = Str(d, "proposed_by");
  a.created_at = Str(d, "created_at");
  a.updated_at = Str(d, "updated_at");
  auto t = d.find("tracking");
  if (t != d.end() && t->is_array()) {
    for (const json& line : *t) {
      if (line.is_object()) a.tracking.push_back({Str(line, "date"), Str(line, "note")});
    }
  }
  return a;
}

FocusArea* Find(std::vector<FocusArea>& areas, const std::string& id) {
  for (FocusArea& a : areas) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

std::string OpenIds(const std::vector<FocusArea>& areas) {
  std::string ids;
  for (const FocusArea& a : areas) {
    if (a.open()) ids += (ids.empty() ? "" : ", ") + a.id + " (" + FocusStatusName(a.status) + ")";
  }
  return ids;
}

// The new area of a propose or an add.
Result<std::string> Create(std::vector<FocusArea>& areas, const FocusChange& c, int64_t now) {
  const std::string what = std::string("focus ") + FocusActionName(c.action);
  PULSE_RETURN_IF_ERROR(CheckText(c.title, what + ": title", kMaxTitle, true));
  PULSE_RETURN_IF_ERROR(CheckText(c.check, what + ": check", kMaxText, false));
  std::string end = c.end_date.empty() ? Today(now + int64_t{kDefaultFocusDays} * 86400) : c.end_date;
  PULSE_RETURN_IF_ERROR(CheckEndDate(end, now, what));
  int open = static_cast<int>(std::count_if(areas.begin(), areas.end(), [](const FocusArea& a) { return a.open(); }));
  if (open >= kMaxOpenFocusAreas) {
    return Status::Conflict(what + ": at most " + std::to_string(kMaxOpenFocusAreas) +
                            " focus areas are open (proposed + active): " + OpenIds(areas) +
                            "; close, drop or reject one first");
  }
  std::string title = Clean(c.title);
  for (const FocusArea& a : areas) {
    if (a.open() && a.title == title) return Status::Conflict(what + ": \"" + title + "\" is already open as " + a.id);
  }
  FocusArea a;
  a.id = NextId(areas);
  a.title = title;
  a.status = c.action == FocusAction::kAdd ? FocusStatus::kActive : FocusStatus::kProposed;
  a.end_date = end;
  a.check = Clean(c.check);
  a.proposed_by = c.action == FocusAction::kAdd ? "owner" : "pulse";
  a.created_at = a.updated_at = FormatTime(now);
  areas.push_back(a);
  return a.id;
}

// The state an action needs, or Conflict naming what the area is.
Status NeedStatus(const FocusArea& a, const FocusChange& c, std::initializer_list<FocusStatus> allowed,
                  const char* needed) {
  for (FocusStatus s : allowed) {
    if (a.status == s) return Status::OK();
  }
  return Status::Conflict(std::string("focus ") + FocusActionName(c.action) + ": focus area " + a.id + " is " +
                          FocusStatusName(a.status) + "; only " + needed + " area can be " +
                          (c.action == FocusAction::kConfirm   ? "confirmed"
                           : c.action == FocusAction::kReject  ? "rejected"
                           : c.action == FocusAction::kDrop    ? "dropped"
                           : c.action == FocusAction::kExtend  ? "extended"
                           : c.action == FocusAction::kTrack   ? "tracked"
                                                               : "closed"));
}

Status Track(FocusArea& a, const FocusChange& c, int64_t now) {
  const std::string today = Today(now);
  if (!a.tracking.empty() && a.tracking.back().date == today) {
    a.tracking.back().note = Clean(c.note);  // one line a day: the day's latest word
    return Status::OK();
  }
  if (a.tracking.size() >= kMaxTracking) a.tracking.erase(a.tracking.begin());
  a.tracking.push_back({today, Clean(c.note)});
  return Status::OK();
}

Status Change(FocusArea& a, const FocusChange& c, int64_t now) {
  using S = FocusStatus;
  switch (c.action) {
    case FocusAction::kConfirm:
      PULSE_RETURN_IF_ERROR(NeedStatus(a, c, {S::kProposed}, "a proposed"));
      a.status = S::kActive;
      break;
    case FocusAction::kReject:
      PULSE_RETURN_IF_ERROR(NeedStatus(a, c, {S::kProposed}, "a proposed"));
      a.status = S::kDropped;
      break;
    case FocusAction::kDrop:
      PULSE_RETURN_IF_ERROR(NeedStatus(a, c, {S::kProposed, S::kActive}, "an open (proposed or active)"));
      a.status = S::kDropped;
      break;
    case FocusAction::kExtend:
      if (c.end_date.empty()) return Status::InvalidArgument("focus extend: " + a.id + ": an end date is required");
      PULSE_RETURN_IF_ERROR(CheckEndDate(c.end_date, now, "focus extend: " + a.id));
      PULSE_RETURN_IF_ERROR(NeedStatus(a, c, {S::kProposed, S::kActive}, "an open (proposed or active)"));
      a.end_date = c.end_date;
      break;
    case FocusAction::kTrack:
      PULSE_RETURN_IF_ERROR(CheckText(c.note, "focus track: " + a.id + ": note", kMaxText, true));
      PULSE_RETURN_IF_ERROR(NeedStatus(a, c, {S::kActive}, "an active"));
      PULSE_RETURN_IF_ERROR(Track(a, c, now));
      break;
    case FocusAction::kClose:
      PULSE_RETURN_IF_ERROR(CheckText(c.lesson, "focus close: " + a.id + ": lesson", kMaxText, true));
      PULSE_RETURN_IF_ERROR(NeedStatus(a, c, {S::kActive}, "an active"));
      a.status = S::kDone;
      a.lesson = Clean(c.lesson);
      break;
    default:
      return Status::Internal("focus: unexpected action");
  }
  a.updated_at = FormatTime(now);
  return Status::OK();
}

}  // namespace

const char* FocusStatusName(FocusStatus s) { return kStatusNames[static_cast<int>(s)]; }

Result<FocusStatus> ParseFocusStatus(const std::string& text) {
  for (int i = 0; i < 5; ++i) {
    if (text == kStatusNames[i]) return static_cast<FocusStatus>(i);
  }
  return Status::InvalidArgument("focus area status \"" + text + "\" is not proposed, active, done, expired or dropped");
}

const char* FocusActionName(FocusAction a) { return kActionNames[static_cast<int>(a)]; }

Result<FocusAction> ParseFocusAction(const std::string& text) {
  for (int i = 0; i < 8; ++i) {
    if (text == kActionNames[i]) return static_cast<FocusAction>(i);
  }
  return Status::InvalidArgument("focus action \"" + text +
                                 "\" is not propose, add, confirm, reject, drop, extend, track or close");
}

json FocusArea::ToJson() const {
  json lines = json::array();
  for (const FocusTrack& t : tracking) lines.push_back({{"date", t.date}, {"note", t.note}});
  return json{{"id", id},         {"title", title},           {"status", FocusStatusName(status)},
              {"end_date", end_date}, {"check", check},       {"lesson", lesson},
              {"proposed_by", proposed_by}, {"created_at", created_at}, {"updated_at", updated_at},
              {"tracking", lines}};
}

Result<std::vector<FocusArea>> ReadFocusAreas(const json& doc) {
  std::vector<FocusArea> areas;
  if (!doc.is_object() || !doc.contains("pulse") || !doc["pulse"].is_object()) return areas;
  const json& pulse = doc["pulse"];
  if (pulse.contains("focus_area_details") && !pulse["focus_area_details"].is_null()) {
    const json& details = pulse["focus_area_details"];
    if (!details.is_array()) return Status::InvalidArgument("pulse.focus_area_details is not a list");
    for (size_t i = 0; i < details.size(); ++i) {
      PULSE_ASSIGN_OR_RETURN(FocusArea a, ReadOne(details[i], i));
      areas.push_back(std::move(a));
    }
  }
  if (pulse.contains("focus_areas") && !pulse["focus_areas"].is_null()) {
    const json& titles = pulse["focus_areas"];
    if (!titles.is_array()) return Status::InvalidArgument("pulse.focus_areas is not a list");
    for (const json& t : titles) {
      if (!t.is_string()) return Status::InvalidArgument("pulse.focus_areas holds something other than a title");
      bool known = std::any_of(areas.begin(), areas.end(), [&](const FocusArea& a) { return a.title == t; });
      if (known) continue;
      FocusArea a;
      a.id = NextId(areas);
      a.title = t.get<std::string>();
      a.status = FocusStatus::kActive;
      a.proposed_by = "owner";
      areas.push_back(a);
    }
  }
  return areas;
}

void WriteFocusAreas(json& doc, const std::vector<FocusArea>& areas) {
  if (!doc.contains("pulse") || !doc["pulse"].is_object()) doc["pulse"] = json::object();
  json titles = json::array();
  json details = json::array();
  for (const FocusArea& a : areas) {
    if (a.status == FocusStatus::kActive) titles.push_back(a.title);
    details.push_back(a.ToJson());
  }
  doc["pulse"]["focus_areas"] = titles;
  doc["pulse"]["focus_area_details"] = details;
}

Result<std::string> ApplyFocusChange(std::vector<FocusArea>& areas, const FocusChange& c, int64_t now) {
  if (c.action == FocusAction::kPropose || c.action == FocusAction::kAdd) return Create(areas, c, now);
  const std::string what = std::string("focus ") + FocusActionName(c.action);
  if (c.id.empty()) return Status::InvalidArgument(what + ": the focus area's id is required");
  FocusArea* a = Find(areas, c.id);
  if (!a) return Status::NotFound(what + ": no focus area \"" + c.id + "\"");
  PULSE_RETURN_IF_ERROR(Change(*a, c, now));
  return a->id;
}

std::vector<std::string> ExpireFocusAreas(std::vector<FocusArea>& areas, int64_t now) {
  std::vector<std::string> ids;
  const std::string today = Today(now);
  for (FocusArea& a : areas) {
    if (!a.open() || a.end_date.empty() || a.end_date >= today) continue;
    a.status = FocusStatus::kExpired;
    a.updated_at = FormatTime(now);
    ids.push_back(a.id);
  }
  return ids;
}

json FocusOutcome::ToJson() const {
  json list = json::array();
  for (const FocusArea& a : areas) list.push_back(a.ToJson());
  json out = {{"id", id}, {"action", FocusActionName(action)}, {"focus_areas", list}, {"attempts", attempts}};
  for (const FocusArea& a : areas) {
    if (a.id == id) out["focus_area"] = a.ToJson();
  }
  if (action == FocusAction::kClose) {
    out["lesson_in_memory"] = lesson_in_memory;
    if (!memory_error.empty()) out["memory_error"] = memory_error;
  }
  return out;
}

FocusAreas::FocusAreas(Db& db, Env& env, std::string workflow, std::string workflow_json, GoalMemory* memory)
    : db_(db), env_(env), workflow_(std::move(workflow)), path_(std::move(workflow_json)), memory_(memory) {}

Result<std::vector<FocusArea>> FocusAreas::List() {
  std::string text;
  std::string source = path_;
  if (!path_.empty()) {
    PULSE_ASSIGN_OR_RETURN(text, ReadWorkflowJson(env_, path_));
  } else {
    Result<ConfigSnapshot> snap = LoadConfigSnapshot(db_);
    if (!snap.ok()) {
      if (snap.status().code() == Code::kNotFound) return std::vector<FocusArea>();
      return snap.status();
    }
    text = snap->config_json;
    source = "stored workflow.json snapshot";
  }
  PULSE_ASSIGN_OR_RETURN(json doc, ParseJsonBounded(text, source));
  Result<std::vector<FocusArea>> areas = ReadFocusAreas(doc);
  if (!areas.ok()) return areas.status().WithContext(source);
  return areas;
}

Result<std::vector<FocusArea>> FocusAreas::Open() {
  PULSE_ASSIGN_OR_RETURN(std::vector<FocusArea> all, List());
  std::vector<FocusArea> open;
  for (FocusArea& a : all) {
    if (a.open()) open.push_back(std::move(a));
  }
  return open;
}

Status FocusAreas::RefreshSnapshot(const std::string& text) {
  std::string soul;
  Result<ConfigSnapshot> snap = LoadConfigSnapshot(db_);
  if (snap.ok()) soul = snap->soul_md;
  return StoreConfigSnapshot(db_, workflow_, text, soul, env_.NowSeconds());
}

Result<FocusOutcome> FocusAreas::Apply(const FocusChange& change) {
  const std::string what = std::string("focus ") + FocusActionName(change.action);
  if (path_.empty()) {
    return Status::Refused(what + ": focus areas are edited in workflow.json, which this copy of the database "
                                  "does not have (use the server or the command line)");
  }
  const int64_t now = env_.NowSeconds();
  FocusOutcome out;
  out.action = change.action;
  Result<WorkflowEditResult> edit = EditWorkflowJson(env_, path_, what, [&](json& doc) -> Status {
    Result<std::vector<FocusArea>> areas = ReadFocusAreas(doc);
    if (!areas.ok()) return areas.status().WithContext(what + ": " + path_ + ": refused, the file is left as it is");
    PULSE_ASSIGN_OR_RETURN(out.id, ApplyFocusChange(*areas, change, now));
    WriteFocusAreas(doc, *areas);
    out.areas = std::move(*areas);
    return Status::OK();
  });
  if (!edit.ok()) return edit.status();
  out.attempts = edit->attempts;
  Status snap = RefreshSnapshot(edit->text);
  if (!snap.ok()) env_.Log(LogLevel::kWarn, what + ": workflow.json written; database snapshot not: " + snap.message());
  if (change.action == FocusAction::kClose && memory_) {
    const FocusArea* a = Find(out.areas, out.id);
    std::string line = "Focus area \"" + (a ? a->title : out.id) + "\" (" + out.id + ") closed: " + Clean(change.lesson);
    Transaction tx(db_);
    Status s = tx.Begin();
    Result<MemoryWrite> w = s.ok() ? memory_->Add(MemorySection::kLessons, MemorySource::kResult, line)
                                   : Result<MemoryWrite>(s);
    if (w.ok()) {
      s = tx.Commit();
      if (!s.ok()) memory_->RestoreFile(*w);
    } else {
      s = w.status();
    }
    out.lesson_in_memory = s.ok();
    if (!s.ok()) out.memory_error = s.message();
  }
  return out;
}

Result<std::vector<std::string>> FocusAreas::Expire() {
  if (path_.empty()) return std::vector<std::string>();
  const int64_t now = env_.NowSeconds();
  std::vector<std::string> ids;
  Result<WorkflowEditResult> edit = EditWorkflowJson(env_, path_, "focus expire", [&](json& doc) -> Status {
    PULSE_ASSIGN_OR_RETURN(std::vector<FocusArea> areas, ReadFocusAreas(doc));
    ids = ExpireFocusAreas(areas, now);
    if (!ids.empty()) WriteFocusAreas(doc, areas);
    return Status::OK();
  });
  if (!edit.ok()) return edit.status();
  if (edit->changed) PULSE_RETURN_IF_ERROR(RefreshSnapshot(edit->text));
  return ids;
}

}  // namespace pulse
