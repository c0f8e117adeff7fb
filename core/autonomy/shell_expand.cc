#include "core/autonomy/shell_expand.h"

#include <algorithm>
#include <cctype>

#include "core/autonomy/tool_args.h"

namespace pulse {

namespace {

// The index of the '}' closing the '{' at `open` (nested braces counted,
// a backslash escaping the next character); npos when it is not closed.
size_t ClosingBrace(const std::string& w, size_t open) {
  int depth = 0;
  for (size_t i = open; i < w.size(); ++i) {
    if (w[i] == '\\') {
      ++i;
    } else if (w[i] == '{') {
      ++depth;
    } else if (w[i] == '}' && --depth == 0) {
      return i;
    }
  }
  return std::string::npos;
}

// The alternatives of a brace expression's inside: "soul,x" -> {soul, x};
// "a..c" -> {a, b, c}; "1..3" -> {1, 2, 3} (at most 64); empty when it is
// not one (a lone "{x}" stays as written, as in bash).
std::vector<std::string> BraceAlternatives(const std::string& inside) {
  std::vector<std::string> alts;
  int depth = 0;
  size_t from = 0;
  for (size_t i = 0; i < inside.size(); ++i) {
    if (inside[i] == '\\') ++i;
    else if (inside[i] == '{') ++depth;
    else if (inside[i] == '}') --depth;
    else if (inside[i] == ',' && depth == 0) {
      alts.push_back(inside.substr(from, i - from));
      from = i + 1;
    }
  }
  if (!alts.empty()) {
    alts.push_back(inside.substr(from));
    return alts;
  }
  size_t dots = inside.find("..");
  if (dots == std::string::npos) return alts;
  std::string a = inside.substr(0, dots), b = inside.substr(dots + 2);
  if (b.find("..") != std::string::npos) b = b.substr(0, b.find(".."));  // {a..z..2}: the step is ignored
  auto number = [](const std::string& t, long* v) {
    if (t.empty() || t.size() > 9) return false;
    size_t k = t[0] == '-' ? 1 : 0;
    if (k == t.size()) return false;
    for (size_t j = k; j < t.size(); ++j) {
      if (!std::isdigit(static_cast<unsigned char>(t[j]))) return false;
    }
    *v = std::stol(t);
    return true;
  };
  long x = 0, y = 0;
  if (number(a, &x) && number(b, &y)) {
    for (long v = x;; v += x <= y ? 1 : -1) {
      alts.push_back(std::to_string(v));
      if (v == y || alts.size() >= 64) break;
    }
  } else if (a.size() == 1 && b.size() == 1 && std::isalpha(static_cast<unsigned char>(a[0])) &&
             std::isalpha(static_cast<unsigned char>(b[0]))) {
    for (int v = a[0];; v += a[0] <= b[0] ? 1 : -1) {
      alts.push_back(std::string(1, static_cast<char>(v)));
      if (v == b[0]) break;
    }
  }
  return alts;
}

// The operators of ${NAME<op>WORD} whose result may be WORD (a default, an
// assignment, an alternate, an error's text) or hold it (a replacement).
bool ParameterYieldsWord(const std::string& inside, std::string* word) {
  size_t k = 0;
  while (k < inside.size() && (std::isalnum(static_cast<unsigned char>(inside[k])) || inside[k] == '_')) ++k;
  if (k == 0 && !inside.empty() && std::string_view("@*#?$!-0").find(inside[0]) != std::string_view::npos) k = 1;
  if (k == 0 || k >= inside.size()) return false;
  size_t op = k;
  if (inside[op] == ':' && op + 1 < inside.size() && std::string_view("-=+?").find(inside[op + 1]) != std::string_view::npos) {
    *word = inside.substr(op + 2);
    return true;
  }
  if (std::string_view("-=+?").find(inside[op]) != std::string_view::npos) {
    *word = inside.substr(op + 1);
    return true;
  }
  if (inside[op] == '/') {  // ${X/pattern/replacement}, ${X//pattern/replacement}
    size_t from = op + (op + 1 < inside.size() && inside[op + 1] == '/' ? 2 : 1);
    size_t slash = inside.find('/', from);
    *word = slash == std::string::npos ? std::string() : inside.substr(slash + 1);
    return slash != std::string::npos;
  }
  return false;
}

}  // namespace

std::vector<std::string> WordVariants(const std::string& word, bool* complete) {
  std::vector<std::string> done;
  *complete = true;
  const bool escapes = word.find('\\') != std::string::npos;
  if (word.size() > kMaxExpandedWord) {
    done.push_back(word);
    if (escapes) done.push_back(DecodeCEscapes(word));
    return done;
  }
  std::vector<std::string> todo = {word};
  if (escapes) todo.push_back(DecodeCEscapes(word));
  while (!todo.empty()) {
    if (done.size() >= kMaxVariants) {
      *complete = false;
      break;
    }
    std::string w = std::move(todo.back());
    todo.pop_back();
    if (std::find(done.begin(), done.end(), w) != done.end()) continue;
    done.push_back(w);
    if (w.size() > kMaxExpandedWord) continue;
    const bool blanks = w.find_first_of(" \t\r\n") != std::string::npos;
    // The first expandable construct; each alternative is expanded further.
    for (size_t open = w.find('{'); open != std::string::npos; open = w.find('{', open + 1)) {
      size_t close = ClosingBrace(w, open);
      if (close == std::string::npos) break;
      std::string inside = w.substr(open + 1, close - open - 1);
      std::vector<std::string> alts;
      size_t from = open;
      if (open > 0 && w[open - 1] == '$') {
        std::string yielded;
        if (!ParameterYieldsWord(inside, &yielded)) continue;
        alts = {yielded, ""};
        from = open - 1;
      } else {
        if (!blanks) alts = BraceAlternatives(inside);
        if (alts.empty()) continue;
      }
      // First alternatives first (the stack is last in, first out).
      for (auto alt = alts.rbegin(); alt != alts.rend(); ++alt) {
        if (todo.size() + done.size() >= kMaxVariants) {
          *complete = false;
          break;
        }
        todo.push_back(w.substr(0, from) + *alt + w.substr(close + 1));
      }
      break;
    }
  }
  return done;
}

}  // namespace pulse
