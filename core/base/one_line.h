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

// The byte offset of the first control character a reader may take for
// structure: every C0 control (U+0000..U+001F, tab included), DEL, every C1
// control (U+0080..U+009F) and U+2028/U+2029. Python's splitlines() alone
// breaks lines at \x1c, \x1d and \x1e as well as at the breaks above.
// npos when there is none. `*code_point` (when given) is the character.
size_t FirstControl(std::string_view text, unsigned* code_point = nullptr);

// "U+001C".
std::string CodePointName(unsigned code_point);

// Each of those characters (line breaks, tabs and every other control
// FirstControl finds) as one space.
std::string FlattenLineBreaks(std::string_view text);

// A refusal's reason as a reply or an error line carries it: a reason names
// the input, it does not carry it back, so one that quotes a long value is
// cut at kMaxReasonBytes (at a character boundary) and says how much was cut.
constexpr size_t kMaxReasonBytes = 1000;
std::string BoundedReason(std::string_view reason);

}  // namespace pulse
