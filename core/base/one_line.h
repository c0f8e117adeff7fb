// One-line text: memory entries and decision text that reaches goal memory
// are one line each, and "a line" must mean the same to every reader.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pulse {

// Every line break a reader may honour, not only LF: CR (alone or in CRLF),
// VT, FF, NEL (U+0085), LINE SEPARATOR (U+2028), PARAGRAPH SEPARATOR
// (U+2029). Any of them would let a text start a line of its own
// ("- 2026-01-01 [owner answer] ...").
bool HasLineBreak(std::string_view text);
// Each of those breaks (and a tab) as one space.
std::string FlattenLineBreaks(std::string_view text);

// A refusal's reason as a reply or an error line carries it: a reason names
// the input, it does not carry it back, so one that quotes a long value is
// cut at kMaxReasonBytes (at a character boundary) and says how much was cut.
constexpr size_t kMaxReasonBytes = 1000;
std::string BoundedReason(std::string_view reason);

}  // namespace pulse
