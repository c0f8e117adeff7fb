#include "core/autonomy.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <random>
#include <set>

#include "core/schema.h"
#include "core/sha256.h"
#include "core/time_util.h"

namespace pulse {

using nlohmann::json;

// ---------------------------------------------------------------- turn kinds

const char* TurnKindName(TurnKind kind) {
  switch (kind) {
    case TurnKind::kGoalCheck: return "goal_check";
    case TurnKind::kGoalWork: return "goal_work";
    case TurnKind::kGoalWorkReceipt: return "goal_work_receipt";
    case TurnKind::kAskPulse: return "ask_pulse";
    case TurnKind::kRunFailed: return "run_failed";
    case TurnKind::kBuilderQuestion: return "builder_question";
    case TurnKind::kBuilderFix: return "builder_fix";
    case TurnKind::kWorkflowStep: return "workflow_step";
  }
  return "unknown";
}

const std::vector<TurnKind>& AllTurnKinds() {
  static const std::vector<TurnKind> kinds = {
      TurnKind::kGoalCheck, TurnKind::kGoalWork,        TurnKind::kGoalWorkReceipt, TurnKind::kAskPulse,
      TurnKind::kRunFailed, TurnKind::kBuilderQuestion, TurnKind::kBuilderFix,      TurnKind::kWorkflowStep};
  return kinds;
}

Result<TurnKind> ParseTurnKind(const std::string& text) {
  std::string t;
  for (char c : text) {
    if (c == '-' || c == ' ') c = '_';
    t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (t == "strategic_review") return TurnKind::kGoalWork;  // the seed's name for the Goal Work turn
  for (TurnKind k : AllTurnKinds()) {
    if (t == TurnKindName(k)) return k;
  }
  std::string list;
  for (TurnKind k : AllTurnKinds()) list += std::string(list.empty() ? "" : ", ") + TurnKindName(k);
  return Status::InvalidArgument("turn: unknown turn kind \"" + text + "\" (expected one of " + list + ")");
}

bool IsGuardedTurn(TurnKind kind) { return kind != TurnKind::kWorkflowStep; }

bool IsPulseTurn(TurnKind kind) {
  return kind == TurnKind::kGoalCheck || kind == TurnKind::kGoalWork || kind == TurnKind::kGoalWorkReceipt ||
         kind == TurnKind::kAskPulse || kind == TurnKind::kRunFailed;
}

HeldLevels LevelsForTurn(TurnKind turn, const AutonomyLevels& levels, bool schedules_paused) {
  HeldLevels h;
  h.run = levels.run;
  h.outward = levels.outward;
  h.change = levels.change;
  h.unclassified_allowed = levels.unclassified == "allow";
  auto hold = [](Level* level, std::string* by, const std::string& why) {
    if (*level == Level::kAuto) *by = why;
    *level = Level::kAsk;
  };
  if (schedules_paused && IsGuardedTurn(turn)) {
    const std::string why = "the workflow's schedules are all paused: report-only, Run, Outward and Change held";
    hold(&h.run, &h.run_held_by, why);
    hold(&h.outward, &h.outward_held_by, why);
    hold(&h.change, &h.change_held_by, why);
    return h;
  }
  switch (turn) {
    case TurnKind::kRunFailed: {
      const std::string why = "a run_failed turn holds Run, Outward and Change";
      hold(&h.run, &h.run_held_by, why);
      hold(&h.outward, &h.outward_held_by, why);
      hold(&h.change, &h.change_held_by, why);
      break;
    }
    case TurnKind::kBuilderQuestion: {
      const std::string why = "a builder_question turn changes, runs and sends nothing";
      hold(&h.run, &h.run_held_by, why);
      hold(&h.outward, &h.outward_held_by, why);
      hold(&h.change, &h.change_held_by, why);
      break;
    }
    case TurnKind::kBuilderFix: {
      // Change only, and only as far as the workflow grants it: the fix was
      // sent under pulse.autonomy.change=auto, and lowering it revokes it.
      const std::string why = "a builder_fix turn may change, never run or send";
      hold(&h.run, &h.run_held_by, why);
      hold(&h.outward, &h.outward_held_by, why);
      break;
    }
    default:
      break;
  }
  return h;
}

json DecisionToJson(const GuardDecision& d) {
  json out = {{"allowed", d.allowed}, {"reason", d.reason}, {"rule", d.rule},
              {"tool", d.tool},       {"class", d.tool_class}};
  if (!d.level.empty()) out["level"] = d.level;
  return out;
}

// ------------------------------------------------------------ argument scans

namespace {

const char kInstead[] = "; create a decision request instead (create_decision_request)";

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "email_cc", "Email-CC", "emailCc" -> "emailcc"
std::string KeyCanon(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

// Strings that hold a JSON object or array are read as such: an argument
// passed pre-encoded must not hide what is inside it.
const json* MaybeParsed(const json& v, json* holder) {
  if (!v.is_string()) return &v;
  const std::string& s = v.get_ref<const std::string&>();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  if (i < s.size() && (s[i] == '{' || s[i] == '[')) {
    json parsed = json::parse(s, nullptr, false);
    if (!parsed.is_discarded()) {
      *holder = std::move(parsed);
      return holder;
    }
  }
  return &v;
}

// Every string anywhere in `v` (keys' values, array items, nested, and
// inside pre-encoded JSON strings), with the canonical key it sat under.
void CollectStrings(const json& v, const std::string& key, int depth,
                    std::vector<std::pair<std::string, std::string>>* out) {
  if (depth > 16) return;
  json holder;
  const json* p = MaybeParsed(v, &holder);
  if (p->is_string()) {
    out->push_back({key, p->get<std::string>()});
  } else if (p->is_object()) {
    for (auto it = p->begin(); it != p->end(); ++it) CollectStrings(it.value(), KeyCanon(it.key()), depth + 1, out);
  } else if (p->is_array()) {
    for (const json& item : *p) CollectStrings(item, key, depth + 1, out);
  }
}

bool NonEmpty(const json& v) {
  if (v.is_null()) return false;
  if (v.is_string()) {
    for (char c : v.get_ref<const std::string&>()) {
      if (!std::isspace(static_cast<unsigned char>(c))) return true;
    }
    return false;
  }
  if (v.is_array() || v.is_object()) return !v.empty();
  if (v.is_boolean()) return v.get<bool>();
  return true;
}

// The first email-recipient key set anywhere in the arguments ("" if none).
std::string FindEmailRecipientKey(const json& v, int depth) {
  if (depth > 16) return "";
  static const std::set<std::string> keys = {"emailto", "emailcc", "emailbcc", "emails", "email",
                                             "cc",      "bcc",     "recipients"};
  json holder;
  const json* p = MaybeParsed(v, &holder);
  if (p->is_object()) {
    for (auto it = p->begin(); it != p->end(); ++it) {
      std::string k = KeyCanon(it.key());
      if (keys.count(k) && NonEmpty(it.value())) return it.key();
      // "to_email", "ccEmailAddresses": a key about email holding an address.
      if (k.find("email") != std::string::npos && it.value().dump().find('@') != std::string::npos) return it.key();
    }
    for (auto it = p->begin(); it != p->end(); ++it) {
      std::string k = FindEmailRecipientKey(it.value(), depth + 1);
      if (!k.empty()) return k;
    }
  } else if (p->is_array()) {
    for (const json& item : *p) {
      std::string k = FindEmailRecipientKey(item, depth + 1);
      if (!k.empty()) return k;
    }
  }
  return "";
}

// Shell-like words: quotes and backslashes honoured; ; | & ( ) ` and newlines
// become separate "separator" words.
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
        cur.push_back(s[++i]);
      } else {
        cur.push_back(c);
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      have = true;
    } else if (c == '\\' && i + 1 < s.size()) {
      cur.push_back(s[++i]);
      have = true;
    } else if (std::isspace(static_cast<unsigned char>(c)) && c != '\n') {
      flush();
    } else if (c == ';' || c == '|' || c == '&' || c == '(' || c == ')' || c == '`' || c == '\n') {
      flush();
      out.push_back(std::string(1, c == '\n' ? ';' : c));
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

std::string Basename(const std::string& path) {
  size_t cut = path.find_last_of('/');
  return cut == std::string::npos ? path : path.substr(cut + 1);
}

// ---- gog, the Google CLI ----

struct GogVerdict {
  bool read_only = false;
  std::string summary;  // "gmail send"
};

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
    const json* p = MaybeParsed(v, &holder);
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

// ---- paths ----

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// "./Soul.md", "x/../soul.md", "%73oul.md", "C:\\w\\SOUL.MD " -> segments with
// "soul.md" last. Lowercased: file systems that ignore case would write it.
std::vector<std::string> PathSegments(std::string_view raw) {
  std::string s;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '%' && i + 2 < raw.size() && HexValue(raw[i + 1]) >= 0 && HexValue(raw[i + 2]) >= 0) {
      s.push_back(static_cast<char>(HexValue(raw[i + 1]) * 16 + HexValue(raw[i + 2])));
      i += 2;
    } else {
      s.push_back(raw[i] == '\\' ? '/' : raw[i]);
    }
  }
  s = Lower(s);
  // Surrounding whitespace, quotes and "file://".
  auto strip = [](std::string& t) {
    while (!t.empty() && (std::isspace(static_cast<unsigned char>(t.back())) || t.back() == '"' || t.back() == '\'')) t.pop_back();
    size_t b = 0;
    while (b < t.size() && (std::isspace(static_cast<unsigned char>(t[b])) || t[b] == '"' || t[b] == '\'')) ++b;
    t = t.substr(b);
  };
  strip(s);
  if (s.rfind("file://", 0) == 0) s = s.substr(7);
  std::vector<std::string> segs;
  std::string cur;
  auto push = [&] {
    std::string seg = cur;
    cur.clear();
    strip(seg);
    if (seg.empty() || seg == ".") return;
    if (seg == "..") {
      if (!segs.empty()) segs.pop_back();
      return;
    }
    segs.push_back(seg);
  };
  for (char c : s) {
    if (c == '/') push();
    else cur.push_back(c);
  }
  push();
  return segs;
}

bool IsSoulPath(std::string_view raw) {
  std::vector<std::string> segs = PathSegments(raw);
  return !segs.empty() && segs.back() == "soul.md";
}

// Files a typed Change tool would edit; writing them through a file tool is
// a Change too.
bool IsPlanPath(std::string_view raw) {
  std::vector<std::string> segs = PathSegments(raw);
  if (segs.empty()) return false;
  const std::string& base = segs.back();
  if (base == "plan.json" || base == "step_config.json" || base == "workflow.json") return true;
  return std::find(segs.begin(), segs.end(), "planning") != segs.end();
}

bool IsPathKey(const std::string& key) {
  static const std::set<std::string> exact = {"target", "destination", "dest", "to", "from", "source", "src",
                                              "name",   "filename",    "uri",  "url", "location"};
  return exact.count(key) || key.find("path") != std::string::npos || key.find("file") != std::string::npos;
}

// Paths a file-write tool names: path-like keys anywhere, and the file
// headers of a patch ("+++ b/soul.md", "*** Update File: soul.md").
std::vector<std::string> FileWritePaths(const json& args) {
  std::vector<std::pair<std::string, std::string>> strings;
  CollectStrings(args, "", 0, &strings);
  std::vector<std::string> paths;
  for (const auto& [key, value] : strings) {
    if (IsPathKey(key) && value.find('\n') == std::string::npos) paths.push_back(value);
    size_t start = 0;
    while (start <= value.size()) {
      size_t end = value.find('\n', start);
      if (end == std::string::npos) end = value.size();
      std::string line = value.substr(start, end - start);
      for (const char* prefix : {"+++ ", "--- ", "*** Update File:", "*** Add File:", "*** Delete File:",
                                 "*** Move to:", "diff --git "}) {
        if (line.rfind(prefix, 0) == 0) {
          for (std::string& w : ShellWords(line.substr(std::strlen(prefix)))) paths.push_back(w);
        }
      }
      start = end + 1;
    }
  }
  return paths;
}

// ---- shell ----

// The seed's incident: a shell scripted update_step against the session's
// own HTTP tool route with $MCP_API_TOKEN. Any such call is refused.
bool CallsToolRoute(const std::string& text) {
  std::string s = Lower(text);
  if (s.find("/tools/custom/") != std::string::npos) return true;
  if (s.find("mcp_api_") != std::string::npos) return true;  // MCP_API_URL / MCP_API_TOKEN, even split up
  size_t at = s.find("/s/");
  while (at != std::string::npos) {
    size_t next_slash = s.find('/', at + 3);
    if (next_slash != std::string::npos && s.compare(next_slash, 7, "/tools/") == 0) return true;
    at = s.find("/s/", at + 3);
  }
  if (s.find("/mcp") != std::string::npos && s.find("bearer") != std::string::npos) return true;
  return false;
}

bool WritesSoulFromShell(const std::string& text) {
  std::vector<std::string> words = ShellWords(text);
  bool soul = false;
  for (const std::string& w : words) {
    std::string t = w;
    while (!t.empty() && (t[0] == '>' || t[0] == '<')) t.erase(t.begin());
    if (!t.empty() && IsSoulPath(t)) soul = true;
  }
  if (!soul) return false;
  std::string s = Lower(text);
  for (const char* marker : {">", "tee", "sed -i", "mv ", "cp ", "rm ", "truncate", "dd ", "write", "open(",
                             "install ", "ln ", "perl -i", "patch", "rsync"}) {
    if (s.find(marker) != std::string::npos) return true;
  }
  return false;
}

// "gog ..." invoked inside a shell command: the words after it up to the next
// separator.
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

// ---- decisions ----

struct Ctx {
  TurnKind turn;
  HeldLevels held;
  std::string tool_display;
};

std::string TurnPhrase(const Ctx& c) { return std::string("in this ") + TurnKindName(c.turn) + " turn"; }

GuardDecision Make(const Ctx& c, bool allowed, std::string rule, std::string reason, std::string level = "") {
  GuardDecision d;
  d.allowed = allowed;
  d.rule = std::move(rule);
  d.reason = std::move(reason);
  d.level = std::move(level);
  return d;
}

// `which`: "run", "outward", "change"; `what`: "update_step is a Change tool".
GuardDecision ByLevel(const Ctx& c, const std::string& which, const std::string& what) {
  Level level = which == "run" ? c.held.run : which == "outward" ? c.held.outward : c.held.change;
  const std::string& held_by =
      which == "run" ? c.held.run_held_by : which == "outward" ? c.held.outward_held_by : c.held.change_held_by;
  bool allowed = level == Level::kAuto;
  std::string setting = "pulse.autonomy." + which;
  std::string phrase = held_by.empty() ? setting + " is " + LevelName(level) + " " + TurnPhrase(c)
                                       : setting + " is held at ask " + TurnPhrase(c) + " (" + held_by + ")";
  return Make(c, allowed, which + "_level",
              std::string(allowed ? "allowed: " : "refused: ") + what + " and " + phrase + (allowed ? "" : kInstead),
              which);
}

GuardDecision Unclassified(const Ctx& c, const std::string& what) {
  if (c.held.unclassified_allowed) {
    return Make(c, true, "unclassified",
                "allowed: " + what + " and pulse.autonomy.unclassified is allow " + TurnPhrase(c), "unclassified");
  }
  return Make(c, false, "unclassified",
              "refused: " + what + " and pulse.autonomy.unclassified is ask " + TurnPhrase(c) + kInstead,
              "unclassified");
}

// Checks shared by shell tools and tools the catalog does not know: their
// arguments may carry a command.
std::optional<GuardDecision> CommandChecks(const Ctx& c, const json& args) {
  std::vector<std::pair<std::string, std::string>> strings;
  CollectStrings(args, "", 0, &strings);
  for (const auto& kv : strings) {
    if (CallsToolRoute(kv.second)) {
      return Make(c, false, "shell_tool_route",
                  "refused: " + c.tool_display +
                      " calls the session's tool API (/s/<session>/tools/custom/, MCP_API_URL, MCP_API_TOKEN) "
                      "from a script, which no guarded turn may do; call the tool directly, where it is held "
                      "like every call" + kInstead);
    }
  }
  for (const auto& kv : strings) {
    if (WritesSoulFromShell(kv.second)) {
      return Make(c, false, "soul_md",
                  "refused: " + c.tool_display + " writes soul.md (the owner's goal), which " +
                      std::string(TurnPhrase(c)).substr(3) + " never writes" + kInstead);
    }
  }
  for (const auto& kv : strings) {
    for (const std::vector<std::string>& call : GogInvocations(kv.second)) {
      GogVerdict g = ClassifyGog(call);
      if (!g.read_only) {
        GuardDecision d = ByLevel(c, "outward", c.tool_display + " runs gog " + g.summary + ", a Google write (Outward)");
        if (!d.allowed) return d;
      }
    }
  }
  return std::nullopt;
}

std::string AllText(const json& args) {
  std::vector<std::pair<std::string, std::string>> strings;
  CollectStrings(args, "", 0, &strings);
  std::string all;
  for (const auto& kv : strings) all += Lower(kv.second) + "\n";
  return all;
}

GuardDecision DecideByClass(const Ctx& c, const ToolEntry* entry, const json& args) {
  const std::string& t = c.tool_display;
  if (!entry) {
    if (auto d = CommandChecks(c, args)) return *d;
    // A generic dispatcher ("call_tool", "invoke") naming a catalogued tool
    // is held as that tool too, so it cannot carry update_step past Change.
    if (args.is_object()) {
      for (auto it = args.begin(); it != args.end(); ++it) {
        std::string k = KeyCanon(it.key());
        if (!it.value().is_string()) continue;
        if (k != "tool" && k != "toolname" && k != "name" && k != "function" && k != "functionname" && k != "method") continue;
        ToolLookup inner = LookupTool(it.value().get<std::string>());
        if (!inner.entry || inner.normalized == c.tool_display) continue;
        json inner_args = json::object();
        for (const char* ak : {"arguments", "args", "input", "parameters", "params"}) {
          auto a = args.find(ak);
          if (a != args.end() && a->is_object()) inner_args = *a;
        }
        Ctx ic = c;
        ic.tool_display = inner.normalized;
        GuardDecision d = DecideByClass(ic, inner.entry, inner_args);
        if (!d.allowed) {
          d.reason = "refused: " + c.tool_display + " dispatches " + d.reason.substr(std::strlen("refused: "));
          return d;
        }
      }
    }
    return Unclassified(c, t + " is not in the tool catalog");
  }
  switch (entry->cls) {
    case ToolClass::kRun:
      return ByLevel(c, "run", t + " is a Run tool");
    case ToolClass::kChange:
      return ByLevel(c, "change", t + " is a Change tool");
    case ToolClass::kOutward: {
      if (entry->check == ArgCheck::kGoogleCli) {
        GogVerdict g = ClassifyGog(GogWords(args));
        std::string sub = g.summary.empty() ? std::string("with no subcommand") : g.summary;
        if (g.read_only) {
          return Make(c, true, "gog_read_only", "allowed: gog " + sub + " is a read-only Google command");
        }
        return ByLevel(c, "outward", "gog " + sub + " is a Google write (Outward; only read-only gog subcommands run without it)");
      }
      if (entry->check == ArgCheck::kEmailRecipients) {
        std::string key = FindEmailRecipientKey(args, 0);
        if (key.empty()) {
          return Make(c, true, "notify_owner", "allowed: " + t + " without email recipients notifies the owner in the app");
        }
        return ByLevel(c, "outward", t + " with " + key + " sends email (Outward)");
      }
      return ByLevel(c, "outward", t + " is an Outward tool");
    }
    case ToolClass::kAlwaysRefused:
      return Make(c, false, "always_refused",
                  "refused: " + t + " is never allowed " + TurnPhrase(c) +
                      " (deleting steps or schedules, replacing the plan, migrations and contract-version changes "
                      "are the owner's, whatever pulse.autonomy says)" + kInstead);
    case ToolClass::kReadOnly:
      return Make(c, true, "read_only", "allowed: " + t + " is read-only");
    case ToolClass::kPulseRecord:
      return Make(c, true, "pulse_record", "allowed: " + t + " is one of Pulse's own records");
    case ToolClass::kFileWrite: {
      std::vector<std::string> paths = FileWritePaths(args);
      for (const std::string& p : paths) {
        if (IsSoulPath(p)) {
          return Make(c, false, "soul_md",
                      "refused: " + t + " targets soul.md (the owner's goal), which " + TurnPhrase(c).substr(3) +
                          " never writes; propose the edit to the owner" + kInstead);
        }
      }
      for (const std::string& p : paths) {
        if (IsPlanPath(p)) return ByLevel(c, "change", t + " on " + p + " edits the plan or configuration (Change)");
      }
      if (paths.empty()) return ByLevel(c, "change", t + " with no path the guard can read is treated as a Change");
      return Make(c, true, "file_write", "allowed: " + t + " on " + paths.front() + " writes no plan, configuration or soul.md");
    }
    case ToolClass::kShell:
      if (auto d = CommandChecks(c, args)) return *d;
      return Unclassified(c, t + " runs commands the catalog cannot classify");
    case ToolClass::kPulseAsk: {
      bool builder_turn = c.turn == TurnKind::kBuilderQuestion || c.turn == TurnKind::kBuilderFix;
      if (std::strcmp(entry->name, "ask_pulse") == 0) {
        if (builder_turn) {
          return Make(c, false, "no_ping_pong",
                      "refused: " + t + " " + TurnPhrase(c) + " would ask back the Pulse that asked (no ping-pong)" + kInstead);
        }
        return Make(c, false, "no_self_ask", "refused: " + t + " " + TurnPhrase(c) + " would ask Pulse itself" + kInstead);
      }
      // ask_builder
      if (builder_turn) {
        return Make(c, false, "no_ping_pong",
                    "refused: " + t + " " + TurnPhrase(c) + " would ask a Builder chat from the Builder chat Pulse asked (no ping-pong)" + kInstead);
      }
      std::string mode;
      bool has_question = false;
      if (args.is_object()) {
        for (auto it = args.begin(); it != args.end(); ++it) {
          std::string k = KeyCanon(it.key());
          if ((k == "mode" || k == "kind" || k == "type") && it.value().is_string()) mode = Lower(it.value().get<std::string>());
          if (k == "question") has_question = true;
        }
      }
      if (mode == "question" || (mode.empty() && has_question)) {
        return Make(c, true, "ask_builder_question", "allowed: " + t + " question asks the Builder chat, which then changes, runs and sends nothing");
      }
      std::string text = AllText(args);
      for (const char* word : {"soul.md", "delet", "migrat", "contract version", "contract_version", "create_plan",
                               "replace the plan", "replace_plan"}) {
        if (text.find(word) != std::string::npos) {
          return Make(c, false, "ask_builder_fix_forbidden",
                      "refused: " + t + " fix touches soul.md, a deletion or a contract migration, which stay the owner's" + kInstead);
        }
      }
      if (c.turn == TurnKind::kRunFailed) {
        return Make(c, false, "ask_builder_fix_run_failed",
                    "refused: " + t + " fix from a run_failed turn (questions only there; pulse.autonomy.change is held at ask)" + kInstead,
                    "change");
      }
      return ByLevel(c, "change", t + " fix asks the Builder chat to change the workflow (Change)");
    }
    case ToolClass::kOwnerAnswer:
      return Make(c, false, "owner_only",
                  "refused: " + t + " answers for the owner, which " + TurnPhrase(c).substr(3) +
                      " (an unattended session) never does; attach record_pulse_recommendation to the decision, or" +
                      std::string(kInstead).substr(1));
  }
  return Unclassified(c, t + " is not in the tool catalog");
}

}  // namespace

GuardDecision DecideToolCall(TurnKind turn, const AutonomyLevels& levels, bool schedules_paused,
                             const std::string& tool, const json& args) {
  ToolLookup lk = LookupTool(tool);
  Ctx c{turn, LevelsForTurn(turn, levels, schedules_paused), lk.normalized.empty() ? std::string("(no name)") : lk.normalized};
  GuardDecision d;
  if (!IsGuardedTurn(turn)) {
    d = Make(c, true, "workflow_step",
             "allowed: a workflow_step session is not a Pulse turn; it keeps the platform's normal tools");
  } else {
    d = DecideByClass(c, lk.entry, args);
    if (lk.entry && !lk.name_space.empty() && d.allowed) {
      // A catalog name under someone else's MCP server is that server's tool:
      // it must pass both its name's class and the unclassified rule.
      GuardDecision u = Unclassified(c, lk.normalized + " from the " + lk.name_space + " namespace is not the platform's own tool");
      if (!u.allowed) d = u;
    }
  }
  d.tool = lk.normalized;
  d.tool_class = lk.entry ? ToolClassName(lk.entry->cls) : "unclassified";
  return d;
}

// ------------------------------------------------------------------ storage

Status EnsureAutonomySchema(Db& db) {
  return ApplyMigrations(db, "autonomy", {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_tool_sessions ("
       " session_id TEXT PRIMARY KEY,"
       " token_sha256 TEXT NOT NULL UNIQUE,"  // never the token itself
       " turn TEXT NOT NULL,"
       " parent TEXT NOT NULL DEFAULT '',"
       " root TEXT NOT NULL,"
       " seq INTEGER NOT NULL,"
       " opened_at TEXT NOT NULL,"
       " closed_at TEXT NOT NULL DEFAULT '');"
       "CREATE INDEX IF NOT EXISTS pulse_tool_sessions_parent ON pulse_tool_sessions(parent);"
       "CREATE TABLE IF NOT EXISTS pulse_guard_decisions ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " session TEXT NOT NULL DEFAULT '',"
       " turn TEXT NOT NULL,"
       " tool TEXT NOT NULL,"
       " tool_normalized TEXT NOT NULL,"
       " tool_class TEXT NOT NULL,"
       " args_sha256 TEXT NOT NULL,"
       " allowed INTEGER NOT NULL,"
       " rule TEXT NOT NULL,"
       " level TEXT NOT NULL DEFAULT '',"
       " reason TEXT NOT NULL,"
       " at TEXT NOT NULL);"
       "CREATE INDEX IF NOT EXISTS pulse_guard_decisions_session ON pulse_guard_decisions(session, id);"},
  });
}

Result<std::string> NewSessionToken() {
  unsigned char bytes[32];
  if (::getentropy(bytes, sizeof bytes) != 0) {
    // getentropy is in glibc and Emscripten; random_device is the fallback
    // (it reads the same system source on both).
    try {
      std::random_device rd;
      for (unsigned char& b : bytes) b = static_cast<unsigned char>(rd());
    } catch (...) {
      return Status::IoError("session token: no system randomness available");
    }
  }
  return HexEncode(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

namespace {

Result<ToolSession> ReadSession(Statement& st) {
  ToolSession s;
  s.id = st.Text(0);
  PULSE_ASSIGN_OR_RETURN(s.turn, ParseTurnKind(st.Text(1)));
  s.parent = st.Text(2);
  s.root = st.Text(3);
  s.opened_at = st.Text(4);
  s.closed_at = st.Text(5);
  return s;
}

const char kSessionColumns[] = "session_id, turn, parent, root, opened_at, closed_at";

Status RecordDecision(Db& db, const std::string& session, TurnKind turn, const std::string& tool_as_called,
                      const json& args, const GuardDecision& d, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "INSERT INTO pulse_guard_decisions(session, turn, tool, tool_normalized, tool_class, args_sha256, allowed,"
      " rule, level, reason, at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  st.Bind(1, session).Bind(2, TurnKindName(turn)).Bind(3, tool_as_called).Bind(4, d.tool).Bind(5, d.tool_class)
      .Bind(6, Sha256Hex(args.dump())).Bind(7, int64_t{d.allowed ? 1 : 0}).Bind(8, d.rule).Bind(9, d.level)
      .Bind(10, d.reason).Bind(11, FormatTime(now));
  return st.Run();
}

}  // namespace

bool SessionBelongsToWorkflow(const std::string& session_id, const std::string& workflow) {
  std::string hash = "--" + Sha256Hex(workflow).substr(0, 16) + "-";
  for (const char* kind : {"schedule-goallead", "schedule-builder", "schedule-step"}) {
    std::string prefix = kind + hash;
    if (session_id.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

Result<ToolSession> LoadToolSession(Db& db, const std::string& session_id) {
  PULSE_RETURN_IF_ERROR(EnsureAutonomySchema(db));
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(std::string("SELECT ") + kSessionColumns +
                                                  " FROM pulse_tool_sessions WHERE session_id = ?"));
  st.Bind(1, session_id);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("session \"" + session_id + "\": no such session");
  return ReadSession(st);
}

Result<ToolSession> ResolveSessionToken(Db& db, const std::string& token) {
  PULSE_RETURN_IF_ERROR(EnsureAutonomySchema(db));
  if (token.empty()) return Status::InvalidArgument("token: missing");
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(std::string("SELECT ") + kSessionColumns +
                                                  " FROM pulse_tool_sessions WHERE token_sha256 = ?"));
  st.Bind(1, Sha256Hex(token));
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound("token: no session has this token");
  return ReadSession(st);
}

Result<OpenedSession> OpenToolSession(Db& db, const std::string& workflow, TurnKind turn, const std::string& parent,
                                      int64_t now) {
  PULSE_RETURN_IF_ERROR(EnsureAutonomySchema(db));
  PULSE_ASSIGN_OR_RETURN(std::string token, NewSessionToken());
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  OpenedSession out;
  out.token = token;
  ToolSession& s = out.session;
  s.opened_at = FormatTime(now);
  std::string hash = Sha256Hex(workflow).substr(0, 16);
  int64_t seq = 0;
  if (!parent.empty()) {
    Result<ToolSession> p = LoadToolSession(db, parent);
    if (!p.ok()) return p.status().WithContext("parent");
    if (!p->open()) return Status::Refused("parent: session \"" + parent + "\" is closed; its helpers cannot open");
    // A helper is held like its root; a step the turn starts is not a Pulse turn.
    s.turn = turn == TurnKind::kWorkflowStep ? TurnKind::kWorkflowStep : p->turn;
    s.parent = parent;
    s.root = p->root;
    PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT COALESCE(MAX(seq), 0) + 1 FROM pulse_tool_sessions WHERE parent = ?"));
    q.Bind(1, parent);
    PULSE_ASSIGN_OR_RETURN(bool r, q.Step());
    seq = r ? q.Int64(0) : 1;
    s.id = parent + (s.turn == TurnKind::kWorkflowStep && p->turn != TurnKind::kWorkflowStep ? "--s" : "--h") +
           std::to_string(seq);
  } else {
    s.turn = turn;
    PULSE_ASSIGN_OR_RETURN(int64_t next, db.QueryInt64("SELECT COALESCE(MAX(seq), 0) + 1 FROM pulse_tool_sessions WHERE parent = ''"));
    seq = next;
    std::string kind = IsPulseTurn(turn) ? "goallead" : turn == TurnKind::kWorkflowStep ? "step" : "builder";
    std::string letter = IsPulseTurn(turn) ? "g" : turn == TurnKind::kWorkflowStep ? "s" : turn == TurnKind::kBuilderFix ? "f" : "q";
    s.id = "schedule-" + kind + "--" + hash + "-" + letter + std::to_string(seq);
    s.root = s.id;
  }
  PULSE_ASSIGN_OR_RETURN(Statement ins, db.Prepare(
      "INSERT INTO pulse_tool_sessions(session_id, token_sha256, turn, parent, root, seq, opened_at)"
      " VALUES(?, ?, ?, ?, ?, ?, ?)"));
  ins.Bind(1, s.id).Bind(2, Sha256Hex(token)).Bind(3, TurnKindName(s.turn)).Bind(4, s.parent).Bind(5, s.root)
      .Bind(6, seq).Bind(7, s.opened_at);
  PULSE_RETURN_IF_ERROR(ins.Run());
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return out;
}

Result<std::vector<std::string>> CloseToolSession(Db& db, const std::string& session_id, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(ToolSession s, LoadToolSession(db, session_id));
  (void)s;
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT t.session_id FROM pulse_tool_sessions t JOIN tree ON t.parent = tree.id)"
      " SELECT session_id FROM pulse_tool_sessions WHERE session_id IN (SELECT id FROM tree) AND closed_at = ''"
      " ORDER BY session_id"));
  q.Bind(1, session_id);
  std::vector<std::string> closed;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    closed.push_back(q.Text(0));
  }
  PULSE_ASSIGN_OR_RETURN(Statement up, db.Prepare("UPDATE pulse_tool_sessions SET closed_at = ? WHERE session_id = ? AND closed_at = ''"));
  for (const std::string& id : closed) {
    up.Reset();
    up.Bind(1, FormatTime(now)).Bind(2, id);
    PULSE_RETURN_IF_ERROR(up.Run());
  }
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return closed;
}

// ------------------------------------------------------------ the dispatch

Result<GuardDecision> GuardBoundCall(Db& db, const WorkflowConfig& config, const std::string& session_id,
                                     const std::string& tool, const json& args, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(ToolSession s, LoadToolSession(db, session_id));
  GuardDecision d;
  bool open = s.open();
  if (open && s.root != s.id) {
    Result<ToolSession> root = LoadToolSession(db, s.root);
    open = root.ok() && root->open();
  }
  if (!open) {
    d = DecideToolCall(s.turn, config.autonomy, config.AllSchedulesPaused(), tool, args);
    d.allowed = false;
    d.rule = "session_closed";
    d.level.clear();
    d.reason = "refused: session " + s.id + " is closed (its " + TurnKindName(s.turn) +
               " turn has ended); create a decision request instead (create_decision_request)";
  } else {
    d = DecideToolCall(s.turn, config.autonomy, config.AllSchedulesPaused(), tool, args);
  }
  PULSE_RETURN_IF_ERROR(RecordDecision(db, s.id, s.turn, tool, args, d, now));
  return d;
}

Result<GuardDecision> GuardToolCall(Db& db, const WorkflowConfig& config, const std::string& session_id,
                                    const std::string& token, const std::string& tool, const json& args,
                                    int64_t now) {
  // One message for every failure, so a caller learns nothing about which
  // sessions exist.
  const std::string bad = "session \"" + session_id + "\": missing or wrong session token";
  if (token.empty()) return Status::Unauthenticated(bad);
  PULSE_RETURN_IF_ERROR(EnsureAutonomySchema(db));
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare("SELECT token_sha256 FROM pulse_tool_sessions WHERE session_id = ?"));
  st.Bind(1, session_id);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row || !ConstantTimeEquals(st.Text(0), Sha256Hex(token))) return Status::Unauthenticated(bad);
  return GuardBoundCall(db, config, session_id, tool, args, now);
}

Result<GuardDecision> GuardTurnCall(Db* db, const WorkflowConfig& config, TurnKind turn, const std::string& tool,
                                    const json& args, int64_t now) {
  GuardDecision d = DecideToolCall(turn, config.autonomy, config.AllSchedulesPaused(), tool, args);
  if (db) {
    PULSE_RETURN_IF_ERROR(EnsureAutonomySchema(*db));
    PULSE_RETURN_IF_ERROR(RecordDecision(*db, "", turn, tool, args, d, now));
  }
  return d;
}

Result<std::vector<GuardRecord>> ListGuardDecisions(Db& db, const std::string& session, int limit) {
  PULSE_RETURN_IF_ERROR(EnsureAutonomySchema(db));
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT id, session, turn, tool, args_sha256, allowed, rule, level, reason, at FROM pulse_guard_decisions"
      " WHERE (?1 = '' OR session = ?1) ORDER BY id LIMIT ?2"));
  st.Bind(1, session).Bind(2, int64_t{limit});
  std::vector<GuardRecord> out;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    GuardRecord r;
    r.id = st.Int64(0);
    r.session = st.Text(1);
    r.turn = st.Text(2);
    r.tool = st.Text(3);
    r.args_sha256 = st.Text(4);
    r.allowed = st.Int64(5) != 0;
    r.rule = st.Text(6);
    r.level = st.Text(7);
    r.reason = st.Text(8);
    r.at = st.Text(9);
    out.push_back(std::move(r));
  }
  return out;
}
}  // namespace pulse
