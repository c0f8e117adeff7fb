#include "core/autonomy/tool_args.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "core/autonomy/confusables.h"
#include "core/base/json_limits.h"

namespace pulse {

using nlohmann::json;

namespace {

// Deeper nesting is not read: bounded parsing elsewhere refuses it first.
constexpr int kMaxDepth = 32;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view raw) {
  std::string s;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '%' && i + 2 < raw.size() && HexValue(raw[i + 1]) >= 0 && HexValue(raw[i + 2]) >= 0) {
      s.push_back(static_cast<char>(HexValue(raw[i + 1]) * 16 + HexValue(raw[i + 2])));
      i += 2;
    } else {
      s.push_back(raw[i]);
    }
  }
  return s;
}

void StripQuotesAndBlanks(std::string& t) {
  auto junk = [](char c) { return IsBlank(c) || c == '"' || c == '\''; };
  while (!t.empty() && junk(t.back())) t.pop_back();
  size_t b = 0;
  while (b < t.size() && junk(t[b])) ++b;
  t.erase(0, b);
}

bool HasUrlScheme(std::string_view s) {
  size_t p = s.find("://");
  if (p == std::string_view::npos || p == 0) return false;
  for (size_t i = 0; i < p; ++i) {
    if (!std::isalpha(static_cast<unsigned char>(s[i]))) return false;
  }
  return AsciiLower(s.substr(0, p)) != "file";
}

void Collect(const json& v, const std::string& key, int depth, std::vector<ArgString>* out) {
  if (depth > kMaxDepth) return;
  json holder;
  const json* p = ParsedIfEncoded(v, &holder);
  if (p->is_string()) {
    out->push_back({key, p->get<std::string>()});
  } else if (p->is_object()) {
    for (auto it = p->begin(); it != p->end(); ++it) Collect(it.value(), KeyCanon(it.key()), depth + 1, out);
  } else if (p->is_array()) {
    for (const json& item : *p) Collect(item, key, depth + 1, out);
  }
}

bool IsPathKey(const std::string& key) {
  for (const char* part : {"path", "file", "dst", "dest", "src", "source", "target", "name", "dir", "folder",
                           "location", "uri", "url", "output"}) {
    if (key.find(part) != std::string::npos) return true;
  }
  return key == "to" || key == "from" || key == "out" || key == "in";
}

}  // namespace

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | ((cp >> 18) & 0x07)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t DecodeCEscape(std::string_view s, size_t i, std::string* out) {
  if (i + 1 >= s.size()) {
    out->push_back('\\');
    return i + 1;
  }
  char c = s[i + 1];
  // Digits of a number escape: at most `max` of them in base `base`.
  auto number = [&](size_t from, int base, size_t max, uint32_t* value) {
    size_t k = from;
    *value = 0;
    while (k < s.size() && k - from < max) {
      int d = HexValue(s[k]);
      if (d < 0 || d >= base) break;
      *value = *value * static_cast<uint32_t>(base) + static_cast<uint32_t>(d);
      ++k;
    }
    return k;
  };
  static const char kSimple[][2] = {{'a', '\a'}, {'b', '\b'}, {'e', 0x1b}, {'E', 0x1b}, {'f', '\f'},
                                     {'n', '\n'}, {'r', '\r'}, {'t', '\t'}, {'v', '\v'}};
  for (const auto& e : kSimple) {
    if (e[0] == c) {
      out->push_back(e[1]);
      return i + 2;
    }
  }
  uint32_t v = 0;
  if (c >= '0' && c <= '7') {
    size_t end = number(i + 1, 8, 3, &v);
    out->push_back(static_cast<char>(v & 0xFF));
    return end;
  }
  if (c == 'x' || c == 'u' || c == 'U') {
    size_t end = number(i + 2, 16, c == 'x' ? 2 : c == 'u' ? 4 : 8, &v);
    if (end == i + 2) {  // no digits: the backslash and the letter stay
      out->append(s.substr(i, 2));
      return i + 2;
    }
    if (c == 'x') out->push_back(static_cast<char>(v));
    else AppendUtf8(v > 0x10FFFF ? 0xFFFD : v, out);
    return end;
  }
  if (c == 'c' && i + 2 < s.size()) {
    out->push_back(static_cast<char>(s[i + 2] & 0x1F));
    return i + 3;
  }
  if (c == '\\' || c == '\'' || c == '"' || c == '?') {
    out->push_back(c);
    return i + 2;
  }
  out->append(s.substr(i, 2));  // an escape C does not know: kept as written
  return i + 2;
}

std::string DecodeCEscapes(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '\\') {
      i = DecodeCEscape(s, i, &out);
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string KeyCanon(std::string_view key) {
  std::string out;
  for (char c : FoldConfusables(key)) {
    if (std::isalnum(static_cast<unsigned char>(c))) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::vector<std::string> KeyWords(std::string_view key) {
  std::vector<std::string> words;
  std::string cur;
  char prev = 0;
  for (char c : FoldConfusables(key)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (!std::isalnum(u)) {
      if (!cur.empty()) words.push_back(cur);
      cur.clear();
    } else {
      bool boundary = std::isupper(u) && (std::islower(static_cast<unsigned char>(prev)) ||
                                          std::isdigit(static_cast<unsigned char>(prev)));
      if (boundary && !cur.empty()) {
        words.push_back(cur);
        cur.clear();
      }
      cur.push_back(static_cast<char>(std::tolower(u)));
    }
    prev = c;
  }
  if (!cur.empty()) words.push_back(cur);
  return words;
}

const json* ParsedIfEncoded(const json& v, json* holder) {
  if (!v.is_string()) return &v;
  const std::string& s = v.get_ref<const std::string&>();
  size_t i = 0;
  while (i < s.size() && IsBlank(s[i])) ++i;
  if (i < s.size() && (s[i] == '{' || s[i] == '[')) {
    // Bounded like every outside document: a string of 100,000 '[' must not
    // overflow the stack of whoever walks the result.
    Result<json> parsed = ParseJsonBounded(s, "argument");
    if (parsed.ok()) {
      *holder = std::move(parsed).value();
      return holder;
    }
  }
  return &v;
}

std::vector<ArgString> CollectStrings(const json& args) {
  std::vector<ArgString> out;
  Collect(args, "", 0, &out);
  return out;
}

bool NonEmpty(const json& v) {
  if (v.is_null()) return false;
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    return std::any_of(s.begin(), s.end(), [](char c) { return !IsBlank(c); });
  }
  if (v.is_array() || v.is_object()) return !v.empty();
  if (v.is_boolean()) return v.get<bool>();
  return true;
}

// ------------------------------------------------------------------- paths

std::vector<std::string> PathSegments(std::string_view raw) {
  std::string s(raw);
  for (int round = 0; round < 3 && s.find('%') != std::string::npos; ++round) s = PercentDecode(s);
  size_t nul = s.find('\0');
  if (nul != std::string::npos) s.resize(nul);
  for (char& c : s) c = c == '\\' ? '/' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  StripQuotesAndBlanks(s);
  if (s.rfind("file://", 0) == 0) s.erase(0, 7);
  std::vector<std::string> segs;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('/', start);
    if (end == std::string::npos) end = s.size();
    std::string seg = s.substr(start, end - start);
    start = end + 1;
    // "soul.md::$DATA", "soul.md:x": the stream of soul.md. A drive letter
    // ("c:") is the only colon a first segment keeps.
    size_t colon = seg.find(':');
    if (colon != std::string::npos && !(segs.empty() && colon == 1 && seg.size() == 2)) seg.resize(colon);
    StripQuotesAndBlanks(seg);
    while (seg.size() > 1 && (seg.back() == '.' || seg.back() == ' ') && seg != "..") seg.pop_back();
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (!segs.empty()) segs.pop_back();
      continue;
    }
    segs.push_back(seg);
  }
  return segs;
}

bool IsSoulPath(const std::vector<std::string>& segs) { return !segs.empty() && segs.back() == "soul.md"; }

bool IsPlanPath(const std::vector<std::string>& segs) {
  if (segs.empty()) return false;
  const std::string& base = segs.back();
  if (base == "plan.json" || base == "step_config.json" || base == "workflow.json") return true;
  return std::find(segs.begin(), segs.end(), "planning") != segs.end();
}

bool IsProtectedPath(const std::vector<std::string>& segs) {
  for (size_t i = 0; i < segs.size(); ++i) {
    const std::string& s = segs[i];
    if (s == ".pulse" || s.rfind("db.sqlite", 0) == 0 || s == "owner-token") return true;
    bool more = i + 1 < segs.size();
    if (s == "db" && more) return true;
    if (s == "memory" && more && segs[i + 1] == "goal.md") return true;
  }
  return false;
}

bool IsProtectedDir(const std::vector<std::string>& segs) {
  return !segs.empty() && (segs.back() == "db" || segs.back() == "memory" || segs.back() == ".pulse");
}

std::vector<std::string> PatchPaths(std::string_view text) {
  static const char* const kHeaders[] = {
      "+++ ",        "--- ",       "*** update file:", "*** add file:", "*** delete file:", "*** move to:",
      "diff --git ", "diff ",      "rename from ",     "rename to ",    "copy from ",       "copy to ",
      "index: ",     "*** ",       "new file ",        "deleted file "};
  std::vector<std::string> paths;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find_first_of("\r\n", start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    std::string lower = AsciiLower(line.substr(0, 24));
    for (const char* h : kHeaders) {
      if (lower.rfind(h, 0) != 0) continue;
      std::string_view rest = line.substr(std::strlen(h));
      // Words of the rest; "a/x\t2024-01-01 ..." keeps its path as a word.
      size_t i = 0;
      while (i < rest.size()) {
        while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
        size_t j = i;
        if (j < rest.size() && rest[j] == '"') {
          // Git's C-quoted name ("b/\163oul.md", "a/\"x\""): read as git
          // apply reads it, escapes decoded, up to the closing quote.
          std::string name;
          for (j = i + 1; j < rest.size() && rest[j] != '"'; ++j) {
            if (rest[j] == '\\' && j + 1 < rest.size()) {
              j = DecodeCEscape(rest, j, &name) - 1;
            } else {
              name.push_back(rest[j]);
            }
          }
          paths.push_back(std::move(name));
          i = j + 1;
          continue;
        }
        while (j < rest.size() && rest[j] != ' ' && rest[j] != '\t') ++j;
        if (j > i) paths.emplace_back(rest.substr(i, j - i));
        i = j;
      }
      break;
    }
  }
  return paths;
}

std::vector<std::string> ArgumentPaths(const json& args) {
  std::vector<std::string> paths;
  for (const ArgString& s : CollectStrings(args)) {
    const std::string& v = s.value;
    bool multi_line = v.find_first_of("\r\n") != std::string::npos;
    bool single_token = !v.empty() && std::none_of(v.begin(), v.end(), IsBlank);
    if (!multi_line && (IsPathKey(s.key) || single_token) && !HasUrlScheme(v)) paths.push_back(v);
    if (multi_line) {
      for (std::string& p : PatchPaths(v)) paths.push_back(std::move(p));
    }
  }
  return paths;
}

// -------------------------------------------------------------- recipients

bool IsRecipientKey(std::string_view key) {
  static const std::set<std::string> words = {
      "to",     "cc",      "bcc",      "recipient", "recipients", "address", "addresses", "addr",   "target",
      "targets", "email",  "emails",   "mail",      "mails",      "phone",   "phones",    "sms",    "channel",
      "channels", "dest",  "destination", "destinations", "webhook", "webhooks", "user",   "users",  "member",
      "members", "contact", "contacts", "group",    "groups",     "team",    "teams",     "audience", "number",
      "numbers", "whatsapp", "telegram", "slack",   "forward"};
  static const char* const prefixes[] = {"recipient", "email", "mail", "phone", "address",
                                         "dest",      "channel", "webhook", "sendto", "notify"};
  for (const std::string& w : KeyWords(key)) {
    if (words.count(w)) return true;
    for (const char* p : prefixes) {
      if (w.rfind(p, 0) == 0) return true;
    }
  }
  return false;
}

namespace {

// The first key anywhere in `v` (breadth first within an object) that
// `match` takes, as spelled; "" when none.
template <typename Match>
std::string FindKey(const json& v, int depth, const Match& match) {
  if (depth > kMaxDepth) return "";
  json holder;
  const json* p = ParsedIfEncoded(v, &holder);
  if (p->is_object()) {
    for (auto it = p->begin(); it != p->end(); ++it) {
      if (match(it.key(), it.value())) return it.key();
    }
    for (auto it = p->begin(); it != p->end(); ++it) {
      std::string k = FindKey(it.value(), depth + 1, match);
      if (!k.empty()) return k;
    }
  } else if (p->is_array()) {
    for (const json& item : *p) {
      std::string k = FindKey(item, depth + 1, match);
      if (!k.empty()) return k;
    }
  }
  return "";
}

bool RecipientSet(const std::string& key, const json& value) {
  if (IsRecipientKey(key) && NonEmpty(value)) return true;
  // "ccEmailAddresses", "x_mailbox": a key about mail holding an address.
  return KeyCanon(key).find("mail") != std::string::npos && value.dump().find('@') != std::string::npos;
}

bool IsToolNameKey(const std::string& k) {
  static const std::set<std::string> keys = {"tool",     "toolname", "name",       "function", "functionname",
                                             "method",   "methodname", "action",   "call",     "toolcall",
                                             "fn",       "op",       "operation",  "command",  "cmd",
                                             "toolid",   "callname", "invoke",     "run"};
  return keys.count(k) > 0;
}

// Keys that hold nothing but a tool's name: a value there that is not a
// string (and not a nested call description, an object) names a tool the
// guard cannot read, whatever a dispatcher would make of it (JavaScript reads
// ["delete_step"] as "delete_step").
bool IsNameOnlyKey(const std::string& k) {
  return k == "tool" || k == "toolname" || k == "name" || k == "functionname" || k == "methodname" ||
         k == "method" || k == "fn" || k == "toolid" || k == "callname" || k == "function" || k == "toolcall";
}

const char* JsonTypeName(const json& v) {
  if (v.is_array()) return "an array";
  if (v.is_number()) return "a number";
  if (v.is_boolean()) return "a boolean";
  if (v.is_object()) return "an object";
  return "null";
}

// The object under an arguments key of `p`, or `fallback`.
json ArgumentsOf(const json& p, const json& fallback) {
  json out = fallback;
  if (!p.is_object()) return out;
  for (auto a = p.begin(); a != p.end(); ++a) {
    std::string k = KeyCanon(a.key());
    if (k != "arguments" && k != "args" && k != "input" && k != "parameters" && k != "params" && k != "kwargs" &&
        k != "payload" && k != "body" && k != "data") {
      continue;
    }
    json inner_holder;
    const json* inner = ParsedIfEncoded(a.value(), &inner_holder);
    if (inner->is_object()) out = *inner;
  }
  return out;
}

void FindCalls(const json& v, int depth, std::vector<DispatchedCall>* out) {
  if (depth > kMaxDepth) return;
  json holder;
  const json* p = ParsedIfEncoded(v, &holder);
  if (p->is_array()) {
    // A positional call: ["delete_step", {...}].
    if (!p->empty() && (*p)[0].is_string()) {
      out->push_back(DispatchedCall{(*p)[0].get<std::string>(), p->size() > 1 && (*p)[1].is_object() ? (*p)[1] : json::object(), ""});
    }
    for (const json& item : *p) FindCalls(item, depth + 1, out);
    return;
  }
  if (!p->is_object()) return;
  for (auto it = p->begin(); it != p->end(); ++it) {
    const std::string key = KeyCanon(it.key());
    if (!IsToolNameKey(key)) continue;
    json name_holder;
    const json* name = ParsedIfEncoded(it.value(), &name_holder);  // "[\"delete_step\"]" is an array too
    if (name->is_string()) {
      out->push_back(DispatchedCall{name->get<std::string>(), ArgumentsOf(*p, *p), ""});
    } else if (IsNameOnlyKey(key) && !name->is_object() && !name->is_null()) {
      out->push_back(DispatchedCall{it.key(), ArgumentsOf(*p, *p), JsonTypeName(*name)});
    }
  }
  for (auto it = p->begin(); it != p->end(); ++it) FindCalls(it.value(), depth + 1, out);
}

// What a notification says, not where it goes.
bool IsMessageKey(const std::string& canon) {
  static const std::set<std::string> keys = {"message", "msg",      "text",     "title",    "subject",
                                             "body",    "summary",  "content",  "details",  "detail",
                                             "description", "priority", "severity", "urgency", "level",
                                             "importance",  "kind",     "type",     "category"};
  return keys.count(canon) > 0;
}

}  // namespace

std::string FindRecipientKey(const json& args) { return FindKey(args, 0, RecipientSet); }

std::string FindNonMessageKey(const json& args) {
  return FindKey(args, 0, [](const std::string& key, const json& value) {
    return !IsMessageKey(KeyCanon(key)) && NonEmpty(value);
  });
}

std::vector<DispatchedCall> DispatchedCalls(const json& args) {
  std::vector<DispatchedCall> out;
  FindCalls(args, 0, &out);
  return out;
}

}  // namespace pulse
