#include "core/workflow/workflow_edit.h"

#include <set>
#include <chrono>
#include <thread>
#include <vector>

#include "core/base/json_limits.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

using nlohmann::json;

namespace {

// ---- where each value sits in the original text ----

struct Member {
  std::string key;
  size_t key_begin = 0;    // the opening quote of the key
  size_t value_begin = 0;  // [value_begin, value_end)
  size_t value_end = 0;
};

// A scanner over text already known to be valid JSON (it parsed): it only
// finds spans, so it trusts the structure and never allocates values.
class SpanScanner {
 public:
  explicit SpanScanner(const std::string& s) : s_(s) {}

  size_t SkipWs(size_t p) const {
    while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t' || s_[p] == '\n' || s_[p] == '\r')) ++p;
    return p;
  }

  // The end of the value starting at `p` (after SkipWs).
  size_t ValueEnd(size_t p) const {
    char c = s_[p];
    if (c == '"') return StringEnd(p);
    if (c == '{' || c == '[') {
      int depth = 0;
      for (size_t i = p; i < s_.size(); ++i) {
        char d = s_[i];
        if (d == '"') {
          i = StringEnd(i) - 1;
        } else if (d == '{' || d == '[') {
          ++depth;
        } else if (d == '}' || d == ']') {
          if (--depth == 0) return i + 1;
        }
      }
      return s_.size();
    }
    size_t i = p;
    while (i < s_.size() && s_[i] != ',' && s_[i] != '}' && s_[i] != ']' && s_[i] != ' ' && s_[i] != '\n' &&
           s_[i] != '\r' && s_[i] != '\t') {
      ++i;
    }
    return i;
  }

  // The members of the object whose '{' is at `p`.
  std::vector<Member> Members(size_t p) const {
    std::vector<Member> out;
    size_t i = SkipWs(p + 1);
    while (i < s_.size() && s_[i] == '"') {
      Member m;
      m.key_begin = i;
      size_t key_end = StringEnd(i);
      m.key = ParseJsonOrDiscarded(std::string_view(s_).substr(i, key_end - i)).get<std::string>();
      i = SkipWs(key_end);
      i = SkipWs(i + 1);  // ':'
      m.value_begin = i;
      m.value_end = ValueEnd(i);
      out.push_back(m);
      i = SkipWs(m.value_end);
      if (i < s_.size() && s_[i] == ',') i = SkipWs(i + 1);
    }
    return out;
  }

 private:
  size_t StringEnd(size_t p) const {
    for (size_t i = p + 1; i < s_.size(); ++i) {
      if (s_[i] == '\\') {
        ++i;
      } else if (s_[i] == '"') {
        return i + 1;
      }
    }
    return s_.size();
  }

  const std::string& s_;
};

// The blanks that start the line holding `pos`.
std::string LineIndent(const std::string& s, size_t pos) {
  size_t line = s.rfind('\n', pos == 0 ? 0 : pos - 1);
  line = line == std::string::npos ? 0 : line + 1;
  size_t end = line;
  while (end < s.size() && (s[end] == ' ' || s[end] == '\t')) ++end;
  return s.substr(line, end - line);
}

// A value rendered on its own, two-space indented, continuing lines at `indent`.
std::string Fresh(const json& v, const std::string& indent) {
  std::string out = v.dump(2);
  std::string shifted;
  shifted.reserve(out.size());
  for (char c : out) {
    shifted += c;
    if (c == '\n') shifted += indent;
  }
  return shifted;
}

std::string RenderValue(const std::string& text, size_t begin, size_t end, const json& before, const json& after);

// An object whose members changed: keeps every unchanged member's bytes.
// Empty when the original object cannot be kept (see RenderJsonEdit).
std::string RenderObject(const std::string& text, size_t begin, size_t end, const json& before, const json& after) {
  SpanScanner scan(text);
  std::vector<Member> members = scan.Members(begin);
  std::set<std::string> seen;
  for (const Member& m : members) {
    if (!seen.insert(m.key).second || !after.contains(m.key)) return "";  // duplicate or removed key
  }
  if (members.empty() || text.find('\n', begin) > members.front().key_begin) return "";  // single-line object
  const std::string indent = LineIndent(text, members.front().key_begin);
  std::string out;
  size_t at = begin;
  for (const Member& m : members) {
    out.append(text, at, m.value_begin - at);
    const json& a = after[m.key];
    const json& b = before.contains(m.key) ? before[m.key] : json();
    out += a == b ? text.substr(m.value_begin, m.value_end - m.value_begin)
                  : RenderValue(text, m.value_begin, m.value_end, b, a);
    at = m.value_end;
  }
  for (auto it = after.begin(); it != after.end(); ++it) {
    if (seen.count(it.key())) continue;
    out += ",\n" + indent + json(it.key()).dump() + ": " + Fresh(it.value(), indent);
  }
  out.append(text, at, end - at);
  return out;
}

std::string RenderValue(const std::string& text, size_t begin, size_t end, const json& before, const json& after) {
  if (before == after) return text.substr(begin, end - begin);
  if (before.is_object() && after.is_object() && text[begin] == '{') {
    std::string kept = RenderObject(text, begin, end, before, after);
    if (!kept.empty()) return kept;
  }
  return Fresh(after, LineIndent(text, begin));
}

Result<json> ParseObject(const std::string& text, const std::string& path) {
  PULSE_ASSIGN_OR_RETURN(json doc, ParseJsonBounded(text, path));
  if (!doc.is_object()) return Status::InvalidArgument(path + ": not a JSON object");
  PULSE_RETURN_IF_ERROR(ParseWorkflowConfig(text, path).status());
  return doc;
}

// A name missing for an instant is another writer's swap (rename aside,
// compare, link: microseconds, but a writer can lose the CPU between them on
// a loaded machine): looked at again, at once for a while and then every
// millisecond, for up to a quarter second; a file still missing then is
// reported as missing.
constexpr int kMissingSpins = 200;
constexpr int kMissingSleeps = 250;

void WaitForSwap(int attempt) {
  if (attempt < kMissingSpins) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

Result<std::string> ReadWorkflowJson(Env& env, const std::string& path) {
  for (int i = 0;; ++i) {
    Result<std::string> text = env.ReadFile(path);
    if (text.ok() || text.status().code() != Code::kNotFound || i >= kMissingSpins + kMissingSleeps) return text;
    WaitForSwap(i);
  }
}

// Listing only: a folder without workflow.json is common (being set up),
// so no waiting beyond the spins.
bool WorkflowJsonExists(Env& env, const std::string& path) {
  for (int i = 0; i < kMissingSpins; ++i) {
    if (env.FileExists(path)) return true;
    std::this_thread::yield();
  }
  return false;
}

std::string RenderJsonEdit(const std::string& before_text, const json& before, const json& after) {
  SpanScanner scan(before_text);
  size_t begin = scan.SkipWs(0);
  if (begin < before_text.size()) {
    size_t end = scan.ValueEnd(begin);
    std::string out = before_text.substr(0, begin) + RenderValue(before_text, begin, end, before, after) +
                      before_text.substr(end);
    // Belt and braces: the spans come from a scanner that trusts its input;
    // whatever it makes must read back as the intended document.
    Result<json> check = ParseJsonBounded(out, "rendered workflow.json");
    if (check.ok() && *check == after) return out;
  }
  return after.dump(2) + "\n";
}

Result<WorkflowEditResult> EditWorkflowJson(Env& env, const std::string& path, const std::string& what,
                                            const WorkflowJsonChange& change, int max_attempts) {
  WorkflowEditResult out;
  for (out.attempts = 1; out.attempts <= max_attempts; ++out.attempts) {
    Result<std::string> text = ReadWorkflowJson(env, path);
    if (!text.ok()) return text.status().WithContext(what);
    Result<json> before = ParseObject(*text, path);
    if (!before.ok()) return before.status().WithContext(what + ": refused, the file is left as it is");
    json doc = *before;
    PULSE_RETURN_IF_ERROR(change(doc));
    if (doc == *before) {
      out.text = *text;
      out.doc = std::move(doc);
      return out;
    }
    std::string next = RenderJsonEdit(*text, *before, doc);
    PULSE_RETURN_IF_ERROR(ParseWorkflowConfig(next, path).status().WithContext(what + ": the edit would make"));
    Status swapped = env.SwapFile(path, *text, next);
    if (swapped.ok()) {
      out.changed = true;
      out.text = std::move(next);
      out.doc = std::move(doc);
      return out;
    }
    if (swapped.code() != Code::kConflict) return swapped.WithContext(what);
  }
  return Status::Conflict(what + ": " + path + " kept changing under " + std::to_string(max_attempts) +
                          " attempts; nothing written");
}

}  // namespace pulse
