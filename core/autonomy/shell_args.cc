#include "core/autonomy/shell_args.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/autonomy/shell_expand.h"
#include "core/autonomy/tool_args.h"

namespace pulse {

using nlohmann::json;

namespace {

std::string Basename(const std::string& path) {
  size_t cut = path.find_last_of('/');
  return cut == std::string::npos ? path : path.substr(cut + 1);
}

std::string Lower(std::string_view s) { return AsciiLower(s); }

}  // namespace

std::vector<std::string> ShellWords(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  auto flush = [&] {
    if (have) out.push_back(cur);
    cur.clear();
    have = false;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < s.size()) {
        // Inside double quotes a backslash escapes only $ ` " \ and a line
        // break; before anything else it stays ("\163" is four characters).
        char n = s[i + 1];
        if (n == '$' || n == '`' || n == '"' || n == '\\') cur.push_back(s[++i]);
        else if (n == '\n') ++i;
        else cur.push_back(c);
      } else {
        cur.push_back(c);
      }
      continue;
    }
    if (c == '$' && i + 1 < s.size() && s[i + 1] == '\'') {
      // ANSI-C quoting: $'\x73oul.md', $'\163oul.md', $'\u0073oul.md'.
      have = true;
      for (i += 2; i < s.size() && s[i] != '\'';) {
        if (s[i] == '\\') i = DecodeCEscape(s, i, &cur);
        else cur.push_back(s[i++]);
      }
      continue;
    }
    if (c == '$' && i + 1 < s.size() && s[i + 1] == '"') continue;  // $"...": a translated string, read as "..."
    if (c == '\'' || c == '"') {
      quote = c;
      have = true;
    } else if (c == '\\' && i + 1 < s.size()) {
      cur.push_back(s[++i]);
      have = true;
    } else if (c == '>' || c == '<') {
      // "2>x", "&>x": the descriptor is part of the operator.
      if (have && std::all_of(cur.begin(), cur.end(), [](char d) { return std::isdigit(static_cast<unsigned char>(d)); })) {
        cur.clear();
        have = false;
      }
      flush();
      std::string op(1, c);
      while (i + 1 < s.size() && (s[i + 1] == '>' || s[i + 1] == '<' || s[i + 1] == '|' || s[i + 1] == '&')) op.push_back(s[++i]);
      out.push_back(op);
    } else if (c == '&' && i + 1 < s.size() && s[i + 1] == '>') {
      flush();
      out.push_back("&>");
      ++i;
      if (i + 1 < s.size() && s[i + 1] == '>') ++i;
    } else if (c == '\n' || c == '\r' || c == ';' || c == '|' || c == '&' || c == '(' || c == ')' || c == '`') {
      flush();
      out.push_back(std::string(1, c == '\n' || c == '\r' ? ';' : c));
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      flush();
    } else {
      cur.push_back(c);
      have = true;
    }
  }
  flush();
  return out;
}

bool IsSeparatorWord(const std::string& w) {
  return w == ";" || w == "|" || w == "&" || w == "(" || w == ")" || w == "`";
}

// ------------------------------------------------------------------- gog

namespace {

std::vector<std::string> SplitParts(const std::string& w) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : w) {
    if (c == '-' || c == '_' || c == '=' || c == '.') {
      if (!cur.empty()) parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  return parts;
}

}  // namespace

GogVerdict ClassifyGog(std::vector<std::string> words) {
  static const std::set<std::string> services = {
      "gmail", "mail",  "calendar", "cal",   "drive",  "docs",  "doc",       "sheets", "sheet", "slides",
      "contacts", "people", "tasks", "chat", "keep",   "forms", "groups",    "classroom", "meet", "youtube",
      "photos", "auth",  "config",   "admin", "script", "appscript"};
  static const std::set<std::string> write_verbs = {
      "send",   "create", "new",     "add",    "insert",  "update", "modify", "edit",   "patch",   "write",
      "append", "delete", "del",     "rm",     "remove",  "trash",  "untrash", "archive", "unarchive", "mark",
      "move",   "mv",     "copy",    "cp",     "rename",  "share",  "unshare", "upload", "put",     "post",
      "reply",  "forward", "draft",  "clear",  "import",  "publish", "respond", "accept", "decline", "invite",
      "set",    "enable", "disable", "apply",  "label",   "unlabel", "mkdir",  "complete", "uncomplete",
      "restore", "batchmodify", "batchdelete", "batchupdate", "merge", "sort", "format", "login", "logout",
      "revoke", "grant",  "transfer", "subscribe", "unsubscribe", "star", "unstar", "read-mark", "snooze",
      "quickadd", "import", "watch", "stop", "run", "exec", "deploy"};
  static const std::set<std::string> read_verbs = {
      "list",   "ls",     "get",     "search", "show",     "read",  "cat",      "view",  "info",
      "status", "find",   "query",   "export", "download", "freebusy", "whoami", "help", "version",
      "metadata", "stat", "tree",    "history", "thread",  "threads", "events", "calendars", "labels",
      "messages", "drafts", "agenda", "today",  "week",    "month",  "colors",   "about", "count"};
  // Global flags that take a value as the next word ("--account me gmail send").
  static const std::set<std::string> value_flags = {"--account", "-a", "--client", "--format", "--output", "-o",
                                                    "--timeout", "--color", "--profile", "--config", "--user"};
  GogVerdict v;
  if (!words.empty() && Basename(Lower(words[0])) == "gog") words.erase(words.begin());
  std::vector<std::string> positionals;
  bool write = false;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string w = Lower(words[i]);
    if (w.empty()) continue;
    if (w[0] == '-') {
      // A write spelled as a flag ("--add-label", "--send", "--delete").
      std::string name = w.substr(0, w.find('='));
      for (const std::string& part : SplitParts(name)) {
        if (write_verbs.count(part)) write = true;
      }
      if (w.find('=') == std::string::npos && value_flags.count(w)) ++i;
      continue;
    }
    positionals.push_back(w);
  }
  for (const std::string& p : positionals) {
    if (write_verbs.count(p)) write = true;
    for (const std::string& part : SplitParts(p)) {
      if (write_verbs.count(part)) write = true;
    }
  }
  size_t service = positionals.size();
  for (size_t i = 0; i < positionals.size(); ++i) {
    if (services.count(positionals[i])) {
      service = i;
      break;
    }
  }
  // The summary names the command, never its values (addresses, queries),
  // since reasons are stored.
  auto word_like = [](const std::string& w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '-' || ch == '_'; });
  };
  size_t from = service < positionals.size() ? service : 0;
  for (size_t i = from; i < positionals.size() && i <= from + 2; ++i) {
    if (!word_like(positionals[i])) break;
    v.summary += (v.summary.empty() ? "" : " ") + positionals[i];
  }
  if (write || service >= positionals.size()) return v;  // unknown service: treated as a write
  for (size_t i = service + 1; i < positionals.size() && i <= service + 2; ++i) {
    if (read_verbs.count(positionals[i])) {
      v.read_only = true;
      return v;
    }
  }
  return v;  // no read verb: treated as a write
}

// gog's arguments: {"args": [...]}, {"argv": [...]}, {"command": "gmail send ..."},
// a bare array or string. Everything found is joined, so a write anywhere counts.
std::vector<std::string> GogWords(const json& args) {
  std::vector<std::string> words;
  auto take = [&](const json& v) {
    json holder;
    const json* p = ParsedIfEncoded(v, &holder);
    if (p->is_array()) {
      for (const json& item : *p) {
        if (item.is_string()) words.push_back(item.get<std::string>());
        else if (item.is_number() || item.is_boolean()) words.push_back(item.dump());
      }
    } else if (p->is_string()) {
      for (std::string& w : ShellWords(p->get<std::string>())) {
        if (!IsSeparatorWord(w)) words.push_back(std::move(w));
      }
    }
  };
  if (args.is_object()) {
    for (const char* key : {"args", "argv", "arguments", "command", "cmd", "subcommand", "input"}) {
      for (auto it = args.begin(); it != args.end(); ++it) {
        if (KeyCanon(it.key()) == KeyCanon(key)) take(it.value());
      }
    }
  } else {
    take(args);
  }
  return words;
}


std::vector<std::vector<std::string>> GogInvocations(const std::string& text) {
  std::vector<std::vector<std::string>> calls;
  std::vector<std::string> words = ShellWords(text);
  for (size_t i = 0; i < words.size(); ++i) {
    std::string w = Lower(words[i]);
    while (!w.empty() && (w[0] == '$' || w[0] == '(')) w.erase(w.begin());
    if (Basename(w) != "gog") continue;
    std::vector<std::string> call;
    for (size_t j = i + 1; j < words.size() && !IsSeparatorWord(words[j]); ++j) call.push_back(words[j]);
    calls.push_back(std::move(call));
  }
  return calls;
}

// ------------------------------------------------------- the tool route

bool CallsToolRoute(std::string_view text) {
  std::string s = Lower(text);
  if (s.find("/tools/custom/") != std::string::npos) return true;
  size_t at = s.find("/s/");
  while (at != std::string::npos) {
    size_t next_slash = s.find('/', at + 3);
    if (next_slash != std::string::npos && s.compare(next_slash, 7, "/tools/") == 0) return true;
    at = s.find("/s/", at + 3);
  }
  if (s.find("/mcp") != std::string::npos && s.find("bearer") != std::string::npos) return true;
  // The runner's variables, also assembled from pieces: with everything but
  // letters and digits squeezed out, "'MCP_' + 'API_URL'" reads "mcpapiurl"
  // and "P=PULSE_TOOL; echo ${P}_URL" holds "pulsetool".
  std::string squeezed;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) squeezed.push_back(c);
  }
  for (const char* name : {"mcpapi", "pulsetool", "toolscustom"}) {
    if (squeezed.find(name) != std::string::npos) return true;
  }
  return false;
}

// ------------------------------------------------------------ paths in text

namespace {

// Glob match of one pattern segment against a name: * ? [...] as the shell
// reads them (a leading '.' is matched only literally).
bool GlobMatch(std::string_view p, std::string_view n) {
  if (p.empty()) return n.empty();
  if (p[0] == '*') {
    for (size_t k = 0; k <= n.size(); ++k) {
      if (GlobMatch(p.substr(1), n.substr(k))) return true;
    }
    return false;
  }
  if (n.empty()) return false;
  if (p[0] == '?') return GlobMatch(p.substr(1), n.substr(1));
  if (p[0] == '[') {
    size_t close = p.find(']', 2);
    if (close != std::string_view::npos) {
      std::string_view set = p.substr(1, close - 1);
      bool negate = !set.empty() && (set[0] == '!' || set[0] == '^');
      if (negate) set.remove_prefix(1);
      bool in = false;
      for (size_t k = 0; k < set.size(); ++k) {
        if (k + 2 < set.size() && set[k + 1] == '-') {
          in = in || (n[0] >= set[k] && n[0] <= set[k + 2]);
          k += 2;
        } else {
          in = in || n[0] == set[k];
        }
      }
      return in != negate && GlobMatch(p.substr(close + 1), n.substr(1));
    }
  }
  return p[0] == n[0] && GlobMatch(p.substr(1), n.substr(1));
}

bool HasGlob(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// The segments a token may name: itself, and for a glob the names it would
// match among those the guard cares about.
std::vector<std::string> ExpandSegments(std::vector<std::string> segs) {
  static const char* const kNames[] = {"soul.md", ".pulse", "db", "db.sqlite", "memory", "goal.md", "owner-token"};
  for (std::string& seg : segs) {
    if (!HasGlob(seg) || seg.size() > 64) continue;
    for (const char* name : kNames) {
      if ((seg[0] == '.') == (name[0] == '.') && GlobMatch(seg, name)) {
        seg = name;
        break;
      }
    }
  }
  return segs;
}

// Path-like tokens of a shell word: split where a path cannot continue
// (quotes, parentheses, commas, '=', redirections, blanks), so that
// "of=soul.md", "open('soul.md','w')" and "x>soul.md" yield "soul.md".
std::vector<std::string> PathTokens(std::string_view word) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  for (char c : word) {
    unsigned char u = static_cast<unsigned char>(c);
    bool keep = std::isalnum(u) || u >= 0x80 || std::string_view("._-/\\%~+@:*?[]!^$").find(c) != std::string_view::npos;
    if (keep) cur.push_back(c);
    else flush();
  }
  flush();
  return out;
}

bool WordNames(std::string_view word, bool (*test)(const std::vector<std::string>&)) {
  bool complete = true;
  std::vector<std::string> variants = WordVariants(std::string(word), &complete);
  if (!complete) return true;
  for (const std::string& variant : variants) {
    for (const std::string& t : PathTokens(variant)) {
      if (test(ExpandSegments(PathSegments(t)))) return true;
    }
  }
  return false;
}

bool IsRedirectOut(const std::string& w) { return !w.empty() && (w.find('>') != std::string::npos); }

// Programs that only read the files they are given.
bool IsReader(std::string program) {
  static const std::set<std::string> readers = {
      "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "wc", "diff", "cmp", "ls",
      "stat", "file", "md5sum", "sha1sum", "sha256sum", "nl", "od", "hexdump", "strings", "bat", "echo", "printf"};
  return readers.count(Basename(Lower(program))) > 0;
}

// The program of a command: the first word after variable assignments and
// wrappers that run the next word.
std::string ProgramOf(const std::vector<std::string>& cmd) {
  static const std::set<std::string> wrappers = {"sudo", "env", "command", "exec", "nice", "nohup", "time", "builtin"};
  for (const std::string& w : cmd) {
    if (IsRedirectOut(w) || w == "<") continue;
    if (w.find('=') != std::string::npos && w[0] != '=' && w[0] != '-') continue;
    if (wrappers.count(Basename(Lower(w)))) continue;
    if (!w.empty() && w[0] == '-') continue;
    return w;
  }
  return "";
}

}  // namespace

namespace {

// A word holding a command of its own ("bash -c 'echo x > soul.md'",
// "ssh h \"...\""): read again as shell text, a few levels deep.
bool MayBeScript(const std::string& w) { return w.find_first_of(" \t'\"><;|&") != std::string::npos; }

// cp's destination: the folder after -t (--target-directory), else its last
// operand (options, redirections and their targets aside); "" when none.
std::string CopyDestination(const std::vector<std::string>& cmd) {
  std::string last;
  for (size_t i = 0; i < cmd.size(); ++i) {
    const std::string& w = cmd[i];
    if (w == "-t" || w == "--target-directory") return i + 1 < cmd.size() ? cmd[i + 1] : "";
    if (w.rfind("--target-directory=", 0) == 0) return w.substr(19);
    if (w.size() > 2 && w[0] == '-' && w[1] == 't') return w.substr(2);
    if (IsRedirectOut(w) || w == "<" || w == "<<" || w == "<<<" || w == "<>") {
      ++i;
      continue;
    }
    if (!w.empty() && w[0] == '-') continue;
    last = w;
  }
  return last;
}

// A destination that may be the folder soul.md lives in (the working
// folder, where a turn runs): ".", "./", "x/..", anything above it or
// elsewhere ("..", "/abs", "~", "$VAR", a glob, a brace). Only a path that
// stays strictly below the working folder cannot be.
bool MayBeWorkflowFolder(const std::string& dest) {
  if (dest.empty() || dest.find_first_of("$~`*?[{") != std::string::npos) return true;
  std::string d = dest;
  std::replace(d.begin(), d.end(), '\\', '/');
  if (d[0] == '/') return true;
  int depth = 0;
  size_t start = 0;
  while (start <= d.size()) {
    size_t end = std::min(d.find('/', start), d.size());
    std::string seg = d.substr(start, end - start);
    start = end + 1;
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (--depth < 0) return true;
    } else {
      ++depth;
    }
  }
  return depth <= 0;
}

// A copy that takes folders along (cp -r/-R/-a, rsync): one of them may
// hold a soul.md of its own.
bool CopiesFolders(const std::string& program, const std::vector<std::string>& cmd) {
  if (program == "rsync") return true;
  for (const std::string& w : cmd) {
    if (w == "--recursive" || w == "--archive") return true;
    if (w.size() > 1 && w[0] == '-' && w[1] != '-' && w.find_first_of("rRa") != std::string::npos) return true;
  }
  return false;
}

bool SoulWrite(std::string_view text, int depth) {
  std::vector<std::string> words = ShellWords(text);
  std::vector<std::vector<std::string>> commands(1);
  for (std::string& w : words) {
    if (IsSeparatorWord(w)) commands.emplace_back();
    else commands.back().push_back(std::move(w));
  }
  for (const std::vector<std::string>& cmd : commands) {
    std::string program = Basename(Lower(ProgramOf(cmd)));
    bool reader = IsReader(program);
    bool copy = program == "cp" || program == "rsync";
    // cp's (and rsync's) destination is the one thing it writes: soul.md
    // itself, or the folder holding it ("cp pulse/work/soul.md .").
    std::string dest = copy ? CopyDestination(cmd) : "";
    bool into_workflow_folder = copy && MayBeWorkflowFolder(dest);
    if (into_workflow_folder && CopiesFolders(program, cmd)) return true;
    for (size_t i = 0; i < cmd.size(); ++i) {
      if (depth < 3 && MayBeScript(cmd[i]) && SoulWrite(cmd[i], depth + 1)) return true;
      if (!WordNames(cmd[i], IsSoulPath)) continue;
      bool redirected = (i > 0 && IsRedirectOut(cmd[i - 1])) || IsRedirectOut(cmd[i]);
      if (redirected) return true;
      if (reader) continue;
      if (copy && cmd[i] != dest && !into_workflow_folder) continue;  // a source, copied somewhere else
      return true;
    }
  }
  return false;
}

bool ProtectedMention(std::string_view text, int depth) {
  for (const std::string& w : ShellWords(text)) {
    if (WordNames(w, IsProtectedPath)) return true;
    if (depth < 3 && MayBeScript(w) && ProtectedMention(w, depth + 1)) return true;
  }
  return false;
}

}  // namespace

bool WritesSoulFromShell(std::string_view text) { return SoulWrite(text, 0); }

bool MentionsProtectedPath(std::string_view text) { return ProtectedMention(text, 0); }

}  // namespace pulse
