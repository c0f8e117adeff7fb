// What a shell word may become before bash hands it to a program: the
// spellings the autonomy guard checks a word under (shell_args.h). Text
// only: nothing is run, and a variable's value is unknown, so a parameter
// expansion is read both as the word it may yield and as nothing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pulse {

// At most this many spellings of one word.
constexpr size_t kMaxVariants = 128;
// A longer word is read as itself and decoded, not expanded.
constexpr size_t kMaxExpandedWord = 4096;

// The word itself first, then: brace expansion ("{soul,x}.md",
// "so{u..u}l.md"; only in a word without blanks, as bash expands braces only
// outside quotes), a parameter expansion read as the word it may yield and
// as nothing ("${X:-soul.md}", "${X=so}ul.md", "${X:+...}", "${X?...}",
// "${X/a/soul.md}"), and the word with C escapes decoded (an interpreter's
// string literal: '\\163oul.md'). `*complete` is false when a word has more
// than kMaxVariants spellings: a checker then takes it as naming what it
// looks for (it does not stop reading where an attacker's spellings go on).
std::vector<std::string> WordVariants(const std::string& word, bool* complete);

}  // namespace pulse
