// The one argument reader of the API edge. Every method reads its JSON
// arguments through an Args, so every caller sees the same wording:
//   <method>: "<key>" is required
//   <method>: "<key>" must be a string        (true or false, a whole number, ...)
//   <method>: "<key>" is not an RFC 3339 time in the format: 2026-10-07T09:00:00Z (got "<text>")
// A key that is absent or null counts as absent; readers of optional keys
// leave the output untouched then.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/status.h"

namespace pulse {

class Args {
 public:
  // `where` names the call in errors: a method ("goal.observe") or a part of
  // one ("agent_log.record: events[2]"). A null `doc` reads as {}.
  Args(std::string where, const nlohmann::json& doc);

  const std::string& where() const { return where_; }
  const nlohmann::json& doc() const { return doc_; }

  // The value at `key`; null when absent or null.
  const nlohmann::json* Find(const char* key) const;
  bool Has(const char* key) const { return Find(key) != nullptr; }

  // InvalidArgument `<where>: "<key>" <problem>`.
  Status Error(const char* key, const std::string& problem) const;
  // InvalidArgument `<where>: <problem>` (for a rule across keys).
  Status Fail(const std::string& problem) const;

  // Required string, possibly empty.
  Status String(const char* key, std::string* out) const;
  // Required string with something other than blanks in it.
  Status Text(const char* key, std::string* out) const;
  Status OptString(const char* key, std::string* out) const;
  Status OptString(const char* key, std::optional<std::string>* out) const;
  Status OptBool(const char* key, bool* out) const;
  // A whole number in [lo, hi].
  Status Int(const char* key, int64_t lo, int64_t hi, int64_t* out) const;
  Status OptInt(const char* key, int64_t lo, int64_t hi, std::optional<int64_t>* out) const;
  Status OptInt(const char* key, int lo, int hi, int* out) const;
  Status Number(const char* key, double* out) const;
  // RFC 3339, as Unix seconds.
  Status OptTime(const char* key, std::optional<int64_t>* out) const;
  // A decision id: a whole number, or its digits as a string.
  Status Id(const char* key, int64_t* out) const;
  Status OptStringList(const char* key, std::vector<std::string>* out) const;
  // Required JSON object (a missing one is an error); OptObject leaves *out.
  Status Object(const char* key, nlohmann::json* out) const;
  Status OptObject(const char* key, nlohmann::json* out) const;

 private:
  std::string where_;
  const nlohmann::json& doc_;
};

}  // namespace pulse
