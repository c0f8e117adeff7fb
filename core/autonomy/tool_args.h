// Reading a tool call's JSON arguments the way the autonomy guard needs:
// every string wherever it sits (nested, in arrays, inside JSON passed
// pre-encoded as a string), every string that can be a path, the paths a
// patch names, recipient-like keys and calls a dispatch wrapper carries.
// Pure functions: no database, no file system (paths are compared as text
// and never opened). Shell text has its own scanner (shell_args.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pulse {

std::string AsciiLower(std::string_view s);

// One C escape at s[i] ('\\'), as C, git's quoted names and bash's $'...'
// read it: \a \b \e \f \n \r \t \v \\ \' \" \?, \ooo (up to three octal
// digits), \xHH, \uHHHH, \UHHHHHHHH (UTF-8), \cX; an unknown escape is kept
// as written. Appends the bytes to `out`; returns the index after it.
size_t DecodeCEscape(std::string_view s, size_t i, std::string* out);
// Every escape of `s` decoded.
std::string DecodeCEscapes(std::string_view s);
// A code point as UTF-8.
void AppendUtf8(uint32_t cp, std::string* out);

// "email_cc", "Email-CC", "emailCc", "ｅmail_cc" -> "emailcc": look-alikes
// folded, then letters and digits only, lowercased.
std::string KeyCanon(std::string_view key);
// "mail_to" -> {mail, to}; "emailTo" -> {email, to}; "EMAIL-CC" -> {email, cc}.
std::vector<std::string> KeyWords(std::string_view key);

// A string that holds a JSON object or array is read as that value (an
// argument passed pre-encoded must not hide what is inside it); anything
// else is returned as is. `holder` keeps the parsed value alive.
const nlohmann::json* ParsedIfEncoded(const nlohmann::json& v, nlohmann::json* holder);

struct ArgString {
  std::string key;    // KeyCanon of the key it sat under ("" at the top)
  std::string value;
};
// Every string anywhere in `args`, 32 levels deep at most.
std::vector<ArgString> CollectStrings(const nlohmann::json& args);

// Set to something: a non-blank string, a non-empty array or object, true,
// any number.
bool NonEmpty(const nlohmann::json& v);

// ---- paths ----

// A path as the file system that receives it would read it, as lowercased
// segments: percent-encoding decoded (three rounds, so "%2573" is 's'), cut
// at the first NUL (C file APIs stop there: "soul.md\0.txt" and
// "soul.md%00.txt" name soul.md), '\' as '/', "file://" and surrounding
// quotes dropped, trailing dots and spaces of a segment dropped (Windows
// drops them), an NTFS stream suffix dropped ("soul.md::$DATA"), "." and
// ".." resolved (a ".." above the start is dropped, since the start is
// unknown: "../../.pulse/x" -> [".pulse", "x"]).
std::vector<std::string> PathSegments(std::string_view raw);

// The owner's goal: a last segment "soul.md".
bool IsSoulPath(const std::vector<std::string>& segments);
// Files a typed Change tool would edit (plan.json, step_config.json,
// workflow.json, anything under planning/).
bool IsPlanPath(const std::vector<std::string>& segments);
// What no guarded tool may touch at all, read or write: the workspace's
// .pulse/ (the owner token), a db/ folder or db.sqlite* file (the workflow
// database) and memory/goal.md (written only through the memory tools).
// ".pulse/x", "db/x", "db.sqlite-wal", "memory/goal.md", "owner-token"
// anywhere; a bare "db" or "memory" is not (the words are common), see
// IsProtectedDir.
bool IsProtectedPath(const std::vector<std::string>& segments);
// The folders themselves ("db", "memory", ".pulse" as the last segment):
// what a file tool that moves or deletes must not name.
bool IsProtectedDir(const std::vector<std::string>& segments);

// The paths a patch names: unified and git headers ("--- a/x", "+++ b/x",
// "diff --git a/x b/y", "rename from/to", "copy from/to", "Index: x") and
// the apply_patch format ("*** Update File: x", "*** Move to: y", ...).
// Headers are matched case-insensitively after leading blanks; lines end at
// LF or CR.
std::vector<std::string> PatchPaths(std::string_view text);

// Every string argument that can be a path: any value under a path-like key
// (path, file, dst, src, target, name, to, from, dir, url, ...), any other
// single-token value (no blank, no line break) that is not a URL, and every
// path in a multi-line value read as a patch.
std::vector<std::string> ArgumentPaths(const nlohmann::json& args);

// ---- recipients ----

// A key that can name who or where a message goes: any of its KeyWords is
// to, cc, bcc, recipient(s), address(es), target(s), email(s), mail, phone,
// sms, channel(s), dest(ination), webhook, user(s), member(s), contact(s),
// group, team, audience, number, or starts with recipient / email / mail /
// phone / address / dest / channel / webhook / sendto / notify.
bool IsRecipientKey(std::string_view key);
// The first recipient-like key set anywhere in `args` (as spelled), also a
// key mentioning mail that holds an address; "" when none.
std::string FindRecipientKey(const nlohmann::json& args);
// The first key set anywhere in `args` (as spelled) that is not one of a
// notification's own: message, msg, text, title, subject, body, summary,
// content, detail(s), description, priority, severity, urgency, level,
// importance, kind, type, category (look-alikes folded, any case or
// separators). Any other key may say where a message goes ("dm",
// "distribution", "options": {...}); "" when none.
std::string FindNonMessageKey(const nlohmann::json& args);

// ---- dispatch wrappers ----

struct DispatchedCall {
  std::string name;       // as written; the key when name_type is set
  nlohmann::json args;    // its arguments object (parsed when pre-encoded)
  // "" when the name is a string; else what a name-only key (tool, name,
  // function, method, ...) holds instead ("an array", "a number", "a
  // boolean"): a name the guard cannot read, which it refuses.
  std::string name_type;
};
// Calls a wrapper carries anywhere in its arguments: an object with a
// tool-naming key (tool, tool_name, name, function, method, action, call, op,
// command, ...) holding a string, with its arguments under a sibling
// (arguments, args, input, parameters, params, kwargs, payload, body, data)
// or, when there is none, the object itself; a name-only key holding anything
// but a string, an object (a nested call description) or null, pre-encoded
// or not; and every array whose first item is a string, read as a positional
// call (["delete_step", {...}]). Every such call is returned (the caller
// decides which names matter).
std::vector<DispatchedCall> DispatchedCalls(const nlohmann::json& args);

}  // namespace pulse
