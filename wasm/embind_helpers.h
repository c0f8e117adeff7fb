// The only place where the facade's C++ values become JS values and back
// (the bindings in pulse_bindings.cc stay declarations). JSON documents cross
// as one string each way (JSON.parse / JSON.stringify on the JS side), which
// is one boundary crossing however large the document; errors cross as a JS
// Error carrying .code (a Status code name), never as a thrown C++ exception
// or a bare number.
#pragma once

#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/base/status.h"

namespace pulse::wasm {

// A JS Error(message) with .code = CodeName(code).
inline emscripten::val ErrorToVal(const Status& status) {
  emscripten::val err = emscripten::val::global("Error").new_(status.message());
  err.set("code", std::string(CodeName(status.code())));
  return err;
}

// Text that is not valid UTF-8 (bytes stored before validation existed) is
// shown repaired with U+FFFD rather than failing the whole answer.
inline emscripten::val JsonToVal(const nlohmann::json& doc) {
  const std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return emscripten::val::global("JSON").call<emscripten::val>("parse", text);
}

template <typename T>
emscripten::val ResultToVal(const Result<T>& result) {
  if (!result.ok()) return ErrorToVal(result.status());
  return emscripten::val(*result);
}

// JS numbers of seconds <-> the core's optional time: NaN means "not given".
inline double OptionalTimeToJs(const std::optional<int64_t>& t) {
  return t ? static_cast<double>(*t) : std::nan("");
}
inline std::optional<int64_t> OptionalTimeFromJs(double seconds) {
  if (!std::isfinite(seconds)) return std::nullopt;
  return static_cast<int64_t>(std::floor(seconds));
}

// The `at` field of an agent-log event (AgentStart, AgentCompletion).
template <typename Event>
double EventAtToJs(const Event& e) {
  return OptionalTimeToJs(e.at);
}
template <typename Event>
void EventAtFromJs(Event& e, double seconds) {
  e.at = OptionalTimeFromJs(seconds);
}

}  // namespace pulse::wasm
