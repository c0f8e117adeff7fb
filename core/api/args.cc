#include "core/api/args.h"

#include <cmath>

#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {
const json& EmptyObject() {
  static const json kEmpty = json::object();
  return kEmpty;
}
}  // namespace

Args::Args(std::string where, const json& doc)
    : where_(std::move(where)), doc_(doc.is_object() ? doc : EmptyObject()) {}

const json* Args::Find(const char* key) const {
  auto it = doc_.find(key);
  if (it == doc_.end() || it->is_null()) return nullptr;
  return &*it;
}

Status Args::Error(const char* key, const std::string& problem) const {
  return Status::InvalidArgument(where_ + ": \"" + key + "\" " + problem);
}

Status Args::Fail(const std::string& problem) const { return Status::InvalidArgument(where_ + ": " + problem); }

Status Args::String(const char* key, std::string* out) const {
  const json* v = Find(key);
  if (!v) return Error(key, "is required");
  if (!v->is_string()) return Error(key, "must be a string");
  *out = v->get<std::string>();
  return Status::OK();
}

Status Args::Text(const char* key, std::string* out) const {
  PULSE_RETURN_IF_ERROR(String(key, out));
  if (out->find_first_not_of(" \t\r\n") == std::string::npos) return Error(key, "is empty");
  return Status::OK();
}

Status Args::OptString(const char* key, std::string* out) const {
  if (!Has(key)) return Status::OK();
  return String(key, out);
}

Status Args::OptString(const char* key, std::optional<std::string>* out) const {
  if (!Has(key)) return Status::OK();
  std::string s;
  PULSE_RETURN_IF_ERROR(String(key, &s));
  *out = std::move(s);
  return Status::OK();
}

Status Args::OptBool(const char* key, bool* out) const {
  const json* v = Find(key);
  if (!v) return Status::OK();
  if (!v->is_boolean()) return Error(key, "must be true or false");
  *out = v->get<bool>();
  return Status::OK();
}

Status Args::Int(const char* key, int64_t lo, int64_t hi, int64_t* out) const {
  const json* v = Find(key);
  if (!v) return Error(key, "is required");
  std::optional<int64_t> n;
  if (v->is_number_integer()) {
    n = v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX
                                                                                          : v->get<int64_t>();
  } else if (v->is_number_float()) {
    double d = v->get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e15) n = static_cast<int64_t>(d);
  }
  if (!n) return Error(key, "must be a whole number");
  if (*n < lo || *n > hi) {
    // The value as the caller wrote it: a number past int64 is held at its
    // end only to fail this check.
    return Error(key, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", not " + v->dump());
  }
  *out = *n;
  return Status::OK();
}

Status Args::OptInt(const char* key, int64_t lo, int64_t hi, std::optional<int64_t>* out) const {
  if (!Has(key)) return Status::OK();
  int64_t n = 0;
  PULSE_RETURN_IF_ERROR(Int(key, lo, hi, &n));
  *out = n;
  return Status::OK();
}

Status Args::OptInt(const char* key, int lo, int hi, int* out) const {
  if (!Has(key)) return Status::OK();
  int64_t n = 0;
  PULSE_RETURN_IF_ERROR(Int(key, lo, hi, &n));
  *out = static_cast<int>(n);
  return Status::OK();
}

Status Args::Number(const char* key, double* out) const {
  const json* v = Find(key);
  if (!v) return Error(key, "is required");
  if (!v->is_number() || !std::isfinite(v->get<double>())) return Error(key, "must be a number");
  *out = v->get<double>();
  return Status::OK();
}

Status Args::OptTime(const char* key, std::optional<int64_t>* out) const {
  std::string text;
  PULSE_RETURN_IF_ERROR(OptString(key, &text));
  if (text.empty()) return Status::OK();
  Result<int64_t> t = ParseTime(text);
  if (!t.ok()) return Error(key, "is not an RFC 3339 time in the format: 2026-10-07T09:00:00Z (got \"" + text + "\")");
  *out = *t;
  return Status::OK();
}

Status Args::Id(const char* key, int64_t* out) const {
  const json* v = Find(key);
  if (!v) return Error(key, "is required");
  // A decision id is a rowid, which starts at 1: zero and negatives name no decision.
  if (v->is_number_integer() && !v->is_number_unsigned() && v->get<int64_t>() >= 1) {
    *out = v->get<int64_t>();
    return Status::OK();
  }
  if (v->is_number_unsigned() && v->get<uint64_t>() >= 1 && v->get<uint64_t>() < static_cast<uint64_t>(INT64_MAX)) {
    *out = static_cast<int64_t>(v->get<uint64_t>());
    return Status::OK();
  }
  if (v->is_string()) {
    const std::string s = v->get<std::string>();
    if (!s.empty() && s.size() < 19 && s.find_first_not_of("0123456789") == std::string::npos &&
        s.find_first_not_of('0') != std::string::npos) {
      *out = std::stoll(s);
      return Status::OK();
    }
  }
  return Error(key, "must be a whole number from 1: " + v->dump() + " is not a decision id");
}

Status Args::OptStringList(const char* key, std::vector<std::string>* out) const {
  const json* v = Find(key);
  if (!v) return Status::OK();
  if (!v->is_array()) return Error(key, "must be a list of strings");
  std::vector<std::string> list;
  for (const json& s : *v) {
    if (!s.is_string()) return Error(key, "must be a list of strings");
    list.push_back(s.get<std::string>());
  }
  *out = std::move(list);
  return Status::OK();
}

Status Args::Object(const char* key, json* out) const {
  const json* v = Find(key);
  if (!v) return Error(key, "is required");
  if (!v->is_object()) return Error(key, "must be a JSON object");
  *out = *v;
  return Status::OK();
}

Status Args::OptObject(const char* key, json* out) const {
  if (!Has(key)) return Status::OK();
  return Object(key, out);
}

}  // namespace pulse
