#include "core/autonomy/confusables.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace pulse {

namespace {

struct Lookalike {
  uint32_t cp;
  char ascii;
};

// Sorted by code point (binary search). Letters that pass for Latin ones in
// a tool name or a key; lookalikes of other scripts' letters are out of scope.
constexpr Lookalike kLookalikes[] = {
    {0x0131, 'i'}, {0x01C0, 'l'}, {0x0237, 'j'}, {0x0251, 'a'}, {0x0261, 'g'}, {0x0391, 'A'}, {0x0392, 'B'},
    {0x0395, 'E'}, {0x0396, 'Z'}, {0x0397, 'H'}, {0x0399, 'I'}, {0x039A, 'K'}, {0x039C, 'M'}, {0x039D, 'N'},
    {0x039F, 'O'}, {0x03A1, 'P'}, {0x03A4, 'T'}, {0x03A5, 'Y'}, {0x03A7, 'X'}, {0x03B1, 'a'}, {0x03B3, 'y'},
    {0x03B5, 'e'}, {0x03B9, 'i'}, {0x03BA, 'k'}, {0x03BD, 'v'}, {0x03BF, 'o'}, {0x03C1, 'p'}, {0x03C5, 'u'},
    {0x03C7, 'x'}, {0x0405, 'S'}, {0x0406, 'I'}, {0x0408, 'J'}, {0x0410, 'A'}, {0x0412, 'B'}, {0x0415, 'E'},
    {0x041A, 'K'}, {0x041C, 'M'}, {0x041D, 'H'}, {0x041E, 'O'}, {0x0420, 'P'}, {0x0421, 'C'}, {0x0422, 'T'},
    {0x0423, 'Y'}, {0x0425, 'X'}, {0x0430, 'a'}, {0x0432, 'b'}, {0x0435, 'e'}, {0x043A, 'k'}, {0x043C, 'm'},
    {0x043E, 'o'}, {0x0440, 'p'}, {0x0441, 'c'}, {0x0443, 'y'}, {0x0445, 'x'}, {0x0455, 's'}, {0x0456, 'i'},
    {0x0458, 'j'}, {0x04BB, 'h'}, {0x04CF, 'l'}, {0x0500, 'D'}, {0x0501, 'd'}, {0x051B, 'q'}, {0x051D, 'w'},
    {0x2113, 'l'}, {0x212A, 'K'}, {0x2170, 'i'}, {0x217C, 'l'},
};

bool IsInvisible(uint32_t cp) {
  return cp == 0x00AD || cp == 0x034F || cp == 0x180E || cp == 0xFEFF || (cp >= 0x0300 && cp <= 0x036F) ||
         (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2064) ||
         (cp >= 0xFE00 && cp <= 0xFE0F);
}

bool IsSpace(uint32_t cp) {
  return cp == 0x00A0 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool IsDash(uint32_t cp) { return (cp >= 0x2010 && cp <= 0x2015) || cp == 0x2212 || cp == 0xFE58 || cp == 0xFE63; }

// The mathematical alphanumeric block repeats A-Z a-z (52 letters) thirteen
// times from U+1D400, and 0-9 five times from U+1D7CE; its unassigned holes
// never occur in text, so arithmetic is exact for every letter that does.
char MathAlnum(uint32_t cp) {
  if (cp >= 0x1D400 && cp <= 0x1D6A3) {
    uint32_t i = (cp - 0x1D400) % 52;
    return static_cast<char>(i < 26 ? 'A' + i : 'a' + (i - 26));
  }
  if (cp >= 0x1D7CE && cp <= 0x1D7FF) return static_cast<char>('0' + (cp - 0x1D7CE) % 10);
  return 0;
}

// One code point from `s` at `i`; 0 bytes consumed when the bytes there are
// not well-formed UTF-8.
size_t Decode(std::string_view s, size_t i, uint32_t* cp) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c >= 0xF5 ? 0 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  uint32_t v = n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
  for (size_t k = 1; k < n; ++k) {
    unsigned char t = static_cast<unsigned char>(s[i + k]);
    if ((t & 0xC0) != 0x80) return 0;
    v = (v << 6) | (t & 0x3F);
  }
  if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF))) return 0;
  *cp = v;
  return n;
}

}  // namespace

std::string FoldConfusables(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      out.push_back(s[i++]);
      continue;
    }
    uint32_t cp = 0;
    size_t n = Decode(s, i, &cp);
    if (n == 0) {
      out.push_back(s[i++]);
      continue;
    }
    std::string_view raw = s.substr(i, n);
    i += n;
    if (IsInvisible(cp)) continue;
    if (IsSpace(cp)) {
      out.push_back(' ');
    } else if (IsDash(cp)) {
      out.push_back('-');
    } else if (cp >= 0xFF01 && cp <= 0xFF5E) {
      out.push_back(static_cast<char>(cp - 0xFEE0));
    } else if (char m = MathAlnum(cp)) {
      out.push_back(m);
    } else {
      auto it = std::lower_bound(std::begin(kLookalikes), std::end(kLookalikes), cp,
                                 [](const Lookalike& l, uint32_t v) { return l.cp < v; });
      if (it != std::end(kLookalikes) && it->cp == cp) {
        out.push_back(it->ascii);
      } else {
        out.append(raw);
      }
    }
  }
  return out;
}

}  // namespace pulse
