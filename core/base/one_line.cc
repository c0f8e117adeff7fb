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

// The byte length of a control character (FirstControl's) at `i` (0: none).
size_t ControlAt(std::string_view s, size_t i, unsigned* cp) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x20 || c == 0x7F) {
    *cp = c;
    return 1;
  }
  if (c == 0xC2 && i + 1 < s.size()) {
    unsigned char n = static_cast<unsigned char>(s[i + 1]);
    if (n >= 0x80 && n <= 0x9F) {
      *cp = n;
      return 2;
    }
  }
  if (c == 0xE2 && i + 2 < s.size() && s[i + 1] == '\x80' && (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) {
    *cp = s[i + 2] == '\xA8' ? 0x2028 : 0x2029;
    return 3;
  }
  return 0;
}

}  // namespace

bool HasLineBreak(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (LineBreakAt(text, i)) return true;
  }
  return false;
}

size_t FirstControl(std::string_view text, unsigned* code_point) {
  unsigned cp = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (ControlAt(text, i, &cp)) {
      if (code_point) *code_point = cp;
      return i;
    }
  }
  return std::string_view::npos;
}

std::string CodePointName(unsigned code_point) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string digits;
  for (unsigned v = code_point; v > 0 || digits.size() < 4; v >>= 4) digits.insert(digits.begin(), kHex[v & 15]);
  return "U+" + digits;
}

std::string FlattenLineBreaks(std::string_view text) {
  std::string out;
  unsigned cp = 0;
  for (size_t i = 0; i < text.size();) {
    size_t n = ControlAt(text, i, &cp);
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
