#include "core/base/one_line.h"

#include "core/base/utf8.h"

namespace pulse {

namespace {

// The byte length of a line break at `i` (0: none).
size_t LineBreakAt(std::string_view s, size_t i) {
  char c = s[i];
  if (c == '\n' || c == '\r' || c == '\v' || c == '\f') return 1;
  if (c == '\xC2' && i + 1 < s.size() && s[i + 1] == '\x85') return 2;
  if (c == '\xE2' && i + 2 < s.size() && s[i + 1] == '\x80' && (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) return 3;
  return 0;
}

}  // namespace

bool HasLineBreak(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (LineBreakAt(text, i)) return true;
  }
  return false;
}

std::string FlattenLineBreaks(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    size_t n = LineBreakAt(text, i);
    if (n == 0 && text[i] == '\t') n = 1;
    if (n) {
      out.push_back(' ');
      i += n;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

std::string BoundedReason(std::string_view reason) {
  if (reason.size() <= kMaxReasonBytes) return std::string(reason);
  std::string_view kept = Utf8Prefix(reason, kMaxReasonBytes);
  return std::string(kept) + "... (" + std::to_string(reason.size() - kept.size()) + " more bytes not shown)";
}

}  // namespace pulse
