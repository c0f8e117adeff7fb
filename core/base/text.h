// Small text helpers every module uses: ASCII case folding, trimming, the
// first line of a message, replacing, and numbers as people read them. One
// copy each, so "a line" and "lower case" mean the same everywhere.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pulse {

// ASCII letters folded to lower case; every other byte (UTF-8 included) kept.
std::string Lower(std::string_view s);

// Without the leading and trailing bytes found in `chars` (by default ASCII
// white space: space, tab, CR, LF, VT, FF).
inline constexpr std::string_view kAsciiSpace = " \t\r\n\v\f";
std::string Trim(std::string_view s, std::string_view chars = kAsciiSpace);

// The text up to its first LF, cut to at most `cap` bytes on a character
// boundary with "…" appended when cut (cap 0: no cut).
std::string FirstLine(std::string_view s, size_t cap = 0);

// Every occurrence of `from` (not empty) replaced by `to`, left to right; the
// replacement text is never searched again.
std::string Replace(std::string s, std::string_view from, std::string_view to);

// A number as printf's "%g" writes it: 1000, 0.25, 1e+06.
std::string FormatNumber(double v);

}  // namespace pulse
