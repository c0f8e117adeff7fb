#ifndef PULSE_CORE_UTF8_H_
#define PULSE_CORE_UTF8_H_

// UTF-8 validation and repair for every text that reaches the database or a
// JSON document. A runner's output, a file in the workspace or a command-line
// argument may carry any bytes; a single stray byte stored in a row would make
// every later JSON rendering of that row fail. So texts are repaired on the
// way in (Statement binds) and on the way out (Statement reads), and cut only
// on character boundaries.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace pulse {

// The byte offset of the first byte that is not part of a well-formed UTF-8
// sequence (overlong forms, surrogates and code points above U+10FFFF are not
// well formed), or std::string_view::npos when the whole text is valid.
size_t FirstInvalidUtf8(std::string_view text);

inline bool IsValidUtf8(std::string_view text) { return FirstInvalidUtf8(text) == std::string_view::npos; }

// The text with each maximal ill-formed subsequence replaced by U+FFFD (the
// Unicode "best practice" substitution, as browsers decode). Valid text comes
// back unchanged, so repairing twice is the same as repairing once.
std::string RepairUtf8(std::string_view text);

// OK for valid UTF-8; otherwise InvalidArgument "<what>: not valid UTF-8 (byte N)".
[[nodiscard]] Status RequireUtf8(std::string_view text, std::string_view what);

// The longest prefix of at most max_bytes bytes that does not end inside a
// character. Bytes that are not UTF-8 at all count as one character each.
std::string_view Utf8Prefix(std::string_view text, size_t max_bytes);

// The shortest suffix of at most max_bytes bytes that does not start inside a
// character (the tail of a log, cut the same way).
std::string_view Utf8Suffix(std::string_view text, size_t max_bytes);

}  // namespace pulse

#endif  // PULSE_CORE_UTF8_H_
