// Folding of look-alike spellings, so that a tool name written with
// invisible or borrowed characters ("dеlete_step" with a Cyrillic 'е',
// "delete\u00adstep", "ｄｅｌｅｔｅ_ｓｔｅｐ") reaches the guard as the name
// it imitates and keeps that name's class.
//
// A small table in core rather than ICU's uspoof: the same core compiles to
// WebAssembly, where ICU would not fit the module's size budget. The table
// covers what can pass for Latin letters, digits and name punctuation:
// - removed: zero-width and invisible format characters (U+200B..U+200F,
//   U+202A..U+202E, U+2060..U+2064, U+FEFF, U+00AD soft hyphen, U+034F,
//   U+180E, variation selectors U+FE00..U+FE0F);
// - to ' ': no-break and typographic spaces (U+00A0, U+2000..U+200A,
//   U+202F, U+205F, U+3000);
// - to '-': hyphens and dashes (U+2010..U+2015, U+2212, U+FE58, U+FE63);
// - to ASCII: fullwidth forms (U+FF01..U+FF5E), mathematical alphanumerics
//   (U+1D400..U+1D6A3, U+1D7CE..U+1D7FF), and the Cyrillic, Greek and
//   Latin-extended letters that look like Latin ones (a table below).
// Anything else passes unchanged; invalid UTF-8 bytes pass unchanged too
// (callers treat non-ASCII bytes as separators).
#pragma once

#include <string>
#include <string_view>

namespace pulse {

std::string FoldConfusables(std::string_view utf8);

}  // namespace pulse
