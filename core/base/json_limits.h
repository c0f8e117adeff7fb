// Bounded JSON parsing: every document that comes from outside (HTTP bodies,
// files in the workspace, the WASM facade's arguments, MCP messages) goes
// through ParseJsonBounded, never straight to json::parse. nlohmann's parser
// itself is iterative, but copying, comparing and dumping a document recurse
// once per nesting level, so a body of 100,000 '[' parses fine and then
// overflows the stack of whoever touches it. The depth is checked before
// anything is built.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/base/status.h"

namespace pulse {

// Deep enough for every document Pulse reads or writes (workflow.json nests
// about 5 levels), shallow enough that recursion over it is harmless.
inline constexpr int kMaxJsonDepth = 64;

// InvalidArgument "<what>: JSON nested deeper than <max_depth> levels (at
// byte N)" when arrays/objects nest deeper than `max_depth`; OK otherwise
// (also for text that is not JSON at all: the parser reports that).
[[nodiscard]] Status CheckJsonDepth(std::string_view text, const std::string& what, int max_depth = kMaxJsonDepth);

// Parses `text` after CheckJsonDepth. A malformed document gives
// InvalidArgument "<what>: malformed JSON at byte N: <parser's reason>"; the
// reason never quotes the input (an error must not echo a hostile body back).
[[nodiscard]] Result<nlohmann::json> ParseJsonBounded(std::string_view text, const std::string& what,
                                                      int max_depth = kMaxJsonDepth);

// The parser's complaint (an exception's what()) as ParseJsonBounded words it:
// without nlohmann's prefix and without the tail that quotes the input.
std::string JsonParserReason(const std::string& exception_what);

// json::parse(text, nullptr, false) for text Pulse wrote itself (a stored
// column, a span of a checked document): the discarded value when it is not
// JSON. It goes through the same parser as ParseJsonBounded, so the WASM
// module carries one JSON parser, not one per kind of input.
nlohmann::json ParseJsonOrDiscarded(std::string_view text);

}  // namespace pulse
