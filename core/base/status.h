// Status and Result<T>: how every fallible core function reports failure.
// No exception crosses a public core function; callers test ok() and pass the
// Status on (`PULSE_RETURN_IF_ERROR`). The message is one line that names the
// input and the problem, ready to print.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace pulse {

enum class Code {
  kOk = 0,
  kInvalidArgument,  // bad input: a flag, a malformed file, an unknown option (CLI exit 2)
  kNotFound,         // a named thing does not exist (CLI exit 2)
  kRefused,          // a rule refused the action (autonomy, owner-only answers; CLI exit 1)
  kConflict,         // the state changed under us (already answered, concurrent edit; CLI exit 1)
  kIoError,          // the file system failed
  kCorruption,       // a file is not what it should be (not SQLite, truncated)
  kBusy,             // the database is locked past the busy timeout
  kInternal,         // a bug
  kUnauthenticated,  // a credential (session token) is missing or wrong (HTTP 401; CLI exit 2)
};

const char* CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Refused(std::string msg) { return Status(Code::kRefused, std::move(msg)); }
  static Status Conflict(std::string msg) { return Status(Code::kConflict, std::move(msg)); }
  static Status IoError(std::string msg) { return Status(Code::kIoError, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status Busy(std::string msg) { return Status(Code::kBusy, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Code::kInternal, std::move(msg)); }
  static Status Unauthenticated(std::string msg) { return Status(Code::kUnauthenticated, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // Prefixes the message with context ("workflow.json: " + message).
  Status WithContext(const std::string& context) const {
    return ok() ? *this : Status(code_, context + ": " + message_);
  }

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}               // NOLINT: implicit on purpose
  Result(Status status) : status_(std::move(status)) {         // NOLINT
    if (status_.ok()) status_ = Status::Internal("Result constructed from OK status without a value");
  }
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace pulse

#define PULSE_CONCAT_INNER_(a, b) a##b
#define PULSE_CONCAT_(a, b) PULSE_CONCAT_INNER_(a, b)

#define PULSE_RETURN_IF_ERROR(expr)              \
  do {                                           \
    ::pulse::Status pulse_status_ = (expr);      \
    if (!pulse_status_.ok()) return pulse_status_; \
  } while (0)

#define PULSE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#define PULSE_ASSIGN_OR_RETURN(lhs, expr) \
  PULSE_ASSIGN_OR_RETURN_IMPL_(PULSE_CONCAT_(pulse_result_, __LINE__), lhs, expr)
