// Reading shell and script text the way the autonomy guard needs: shell
// words, the Google CLI (gog) and what its subcommand does, calls to the
// session's own tool route, writes to soul.md and mentions of paths no
// guarded tool may touch. Text only: nothing is run, and what a program
// computes at run time (a path assembled from pieces, a decoded string) is
// beyond it; the kernel sandbox around runners covers that.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pulse {

// Shell-like words: quotes and backslashes honoured as bash does (inside
// double quotes a backslash escapes only $ ` " \; $'...' decodes its C
// escapes); ; | & ( ) ` and line breaks become separator words;
// redirections become their own words (">", ">>", ">|", "&>", "<", "<<",
// "<>"), a file-descriptor number in front of one dropped ("2>x" -> ">", "x").
std::vector<std::string> ShellWords(std::string_view s);
bool IsSeparatorWord(const std::string& w);

// ---- gog, the Google CLI ----

struct GogVerdict {
  bool read_only = false;
  std::string summary;  // "gmail send": the command, never its values
};
// `words`: gog's arguments (a leading "gog" is skipped). Read-only only with
// a known service followed by a read verb and no write verb anywhere
// (flags included: "--add-label"); anything unknown counts as a write.
GogVerdict ClassifyGog(std::vector<std::string> words);
// gog's arguments: {"args": [...]}, {"argv": [...]}, {"command": "..."},
// a bare array or string. Everything found is joined, so a write anywhere counts.
std::vector<std::string> GogWords(const nlohmann::json& args);
// "gog ..." invoked inside shell text: the words after it up to the next separator.
std::vector<std::vector<std::string>> GogInvocations(const std::string& text);

// ---- what a script reaches ----

// The session's own tool API scripted from inside a turn: /s/<id>/tools/...,
// /tools/custom/, the variables a runner gets ($PULSE_TOOL_URL,
// $MCP_API_URL, $MCP_API_TOKEN), also spelled in pieces
// ("'MCP_' + 'API_URL'", "${P}TOOL_URL" with PULSE_ in P), and /mcp with a
// bearer token.
bool CallsToolRoute(std::string_view text);

// Shell text that may write soul.md: a command mentioning it (any spelling
// PathSegments reads as soul.md, a glob that matches it, inside quotes or
// an interpreter's code; bash's $'\x73oul.md', brace expansion
// "{soul,x}.md" and parameter defaults "${X:-soul.md}" read as what they
// may become, and C escapes "\163oul.md" decoded) is a write unless its
// program only reads (cat, head, grep, ...) and soul.md is not a
// redirection's target. cp (and rsync) write only their destination: a
// source named soul.md is a write when the destination may be the folder
// soul.md is in ("cp pulse/work/soul.md ." replaces it), and copying folders
// there is one (a folder may hold a soul.md).
bool WritesSoulFromShell(std::string_view text);

// Shell text naming a protected path (IsProtectedPath) anywhere, read or
// write: "cat ../../.pulse/owner-token", "sqlite3 db/db.sqlite".
bool MentionsProtectedPath(std::string_view text);

}  // namespace pulse
