#include "core/base/text.h"

#include <cstdio>

#include "core/base/utf8.h"

namespace pulse {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string Trim(std::string_view s, std::string_view chars) {
  size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(chars);
  return std::string(s.substr(b, e - b + 1));
}

std::string FirstLine(std::string_view s, size_t cap) {
  std::string_view line = s.substr(0, s.find('\n'));
  if (cap == 0 || line.size() <= cap) return std::string(line);
  return std::string(Utf8Prefix(line, cap)) + "…";
}

std::string Replace(std::string s, std::string_view from, std::string_view to) {
  if (from.empty()) return s;
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) {
    s.replace(p, from.size(), to);
  }
  return s;
}

std::string FormatNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace pulse
