#include "core/goal/schedule_runs_text.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/base/json_limits.h"
#include "core/base/time_util.h"

namespace pulse {

namespace {

using nlohmann::json;

// The fields of one run object ParseScheduleRuns reads, in the order it
// checks them; any other key is skipped with its value.
enum Field { kRunId, kScheduleId, kStartedAt, kFinishedAt, kStatus, kRoute, kFields };
constexpr const char* kNames[kFields] = {"run_id", "schedule_id", "started_at", "finished_at", "status", "route"};

int FieldOf(const std::string& key) {
  for (int f = 0; f < kFields; ++f) {
    if (key == kNames[f]) return f;
  }
  return -1;
}

// A field's value as the tree would hold it: absent, null, a string, or
// anything else (a number, a boolean, an object, an array). A key given twice
// keeps its last value, as json's object does.
struct Slot {
  enum Kind { kMissing, kNull, kString, kOther } kind = kMissing;
  std::string text;
};

// nlohmann's SAX interface. `depth_` counts the open arrays and objects;
// the runs are the top array's elements (depth 1), their fields the keys at
// depth 2, and everything deeper is only counted. The first problem of a run
// is kept and reading goes on, so a malformed document is reported as
// malformed, as the tree parser would (it never gets to the runs).
class RunsSax {
 public:
  explicit RunsSax(const std::string& source) : source_(source) {}

  bool null() { return Value(Slot::kNull, nullptr); }
  bool boolean(bool) { return Value(Slot::kOther, nullptr); }
  bool number_integer(json::number_integer_t) { return Value(Slot::kOther, nullptr); }
  bool number_unsigned(json::number_unsigned_t) { return Value(Slot::kOther, nullptr); }
  bool number_float(json::number_float_t v, const json::string_t&) {
    if (!std::isfinite(v)) {
      reason_ = "number out of range";
      return false;
    }
    return Value(Slot::kOther, nullptr);
  }
  bool string(json::string_t& v) { return Value(Slot::kString, &v); }
  bool binary(json::binary_t&) { return Value(Slot::kOther, nullptr); }
  bool start_object(std::size_t) { return Open(true); }
  bool start_array(std::size_t) { return Open(false); }
  bool key(json::string_t& k) {
    if (depth_ == 2 && in_run_) field_ = FieldOf(k);
    return true;
  }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  template <typename Exception>
  bool parse_error(std::size_t position, const std::string&, const Exception& ex) {
    reason_ = JsonParserReason(ex.what());
    byte_ = position > 0 ? position - 1 : 0;
    return false;
  }

  const std::string& reason() const { return reason_; }
  size_t byte() const { return byte_; }
  Status error() const { return error_; }
  std::vector<RunRecord>& runs() { return runs_; }

 private:
  void Fail(const std::string& message) {
    if (error_.ok()) error_ = Status::InvalidArgument(message);
  }
  std::string Where() const { return source_ + ": [" + std::to_string(index_) + "]"; }

  bool Value(Slot::Kind kind, json::string_t* text) {
    if (depth_ == 0) {
      Fail(source_ + ": expected a JSON array of runs");
    } else if (depth_ == 1 && top_array_) {
      Fail(Where() + ": expected an object");
      ++index_;
    } else if (depth_ == 2 && in_run_ && field_ >= 0) {
      Slot& s = slots_[field_];
      s.kind = kind;
      if (text) s.text = std::move(*text); else s.text.clear();
    }
    return true;
  }

  bool Open(bool object) {
    if (depth_ == 0) {
      top_array_ = !object;
      if (object) Fail(source_ + ": expected a JSON array of runs");
    } else if (depth_ == 1 && top_array_) {
      if (object && error_.ok()) {
        in_run_ = true;
        for (Slot& s : slots_) s = Slot();
      } else {
        Fail(Where() + ": expected an object");
      }
    } else if (depth_ == 2 && in_run_ && field_ >= 0) {
      slots_[field_] = Slot{Slot::kOther, {}};
    }
    if (depth_ == 2) field_ = -1;
    ++depth_;
    return true;
  }

  bool Close() {
    --depth_;
    if (depth_ == 1 && top_array_) {
      if (in_run_) EndRun();
      in_run_ = false;
      ++index_;
    }
    return true;
  }

  // ReadString's rules: absent or null is "missing" when required, anything
  // but a string is refused, and a required one may not be empty.
  Status Read(Field f, const std::string& where, bool required, std::string* out) {
    const Slot& s = slots_[f];
    const std::string name = where + "." + kNames[f];
    if (s.kind == Slot::kMissing || s.kind == Slot::kNull) {
      return required ? Status::InvalidArgument(name + ": missing") : Status::OK();
    }
    if (s.kind == Slot::kOther) return Status::InvalidArgument(name + ": expected a string");
    *out = s.text;
    if (required && out->empty()) return Status::InvalidArgument(name + ": empty");
    return Status::OK();
  }

  Status ReadTime(Field f, const std::string& where, int64_t* out) {
    std::string text;
    PULSE_RETURN_IF_ERROR(Read(f, where, true, &text));
    Result<int64_t> t = ParseTime(text);
    if (!t.ok()) return Status::InvalidArgument(where + "." + kNames[f] + ": " + t.status().message());
    *out = *t;
    return Status::OK();
  }

  Status Run(RunRecord* run) {
    const std::string where = Where();
    PULSE_RETURN_IF_ERROR(Read(kRunId, where, true, &run->run_id));
    PULSE_RETURN_IF_ERROR(Read(kScheduleId, where, false, &run->schedule_id));
    PULSE_RETURN_IF_ERROR(ReadTime(kStartedAt, where, &run->started_at));
    PULSE_RETURN_IF_ERROR(ReadTime(kFinishedAt, where, &run->finished_at));
    PULSE_RETURN_IF_ERROR(Read(kStatus, where, true, &run->status));
    PULSE_RETURN_IF_ERROR(Read(kRoute, where, false, &run->route));
    if (!run->schedule_id.empty()) run->trigger = "schedule:" + run->schedule_id;
    return ValidateRunRecord(*run, where);
  }

  void EndRun() {
    if (!error_.ok()) return;
    RunRecord run;
    Status st = Run(&run);
    if (st.ok()) runs_.push_back(std::move(run));
    else error_ = st;
  }

  const std::string& source_;
  int depth_ = 0;
  bool top_array_ = false;
  bool in_run_ = false;
  int field_ = -1;
  size_t index_ = 0;
  Slot slots_[kFields];
  std::vector<RunRecord> runs_;
  Status error_;
  std::string reason_;
  size_t byte_ = 0;
};

}  // namespace

Result<std::vector<RunRecord>> ParseScheduleRunsText(std::string_view text, const std::string& source) {
  PULSE_RETURN_IF_ERROR(CheckJsonDepth(text, source));
  RunsSax sax(source);
  bool ok = json::sax_parse(text.begin(), text.end(), &sax, json::input_format_t::json, /*strict=*/true);
  if (!ok || !sax.reason().empty()) {
    return Status::InvalidArgument(source + ": malformed JSON at byte " + std::to_string(sax.byte()) + ": " +
                                   (sax.reason().empty() ? "not JSON" : sax.reason()));
  }
  PULSE_RETURN_IF_ERROR(sax.error());
  return std::move(sax.runs());
}

}  // namespace pulse
