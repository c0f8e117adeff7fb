#include "core/base/utf8.h"

namespace pulse {

namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Decodes the sequence at text[i] following the table of well-formed byte
// sequences in the Unicode standard (chapter 3). Returns its length when it is
// well formed, else 0 and sets *subpart to the length of the maximal ill-formed
// subpart (at least 1): the bytes one U+FFFD replaces.
size_t SequenceAt(std::string_view text, size_t i, size_t* subpart) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  *subpart = 1;
  if (lead < 0x80) return 1;
  size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) need = 1;
  else if (lead == 0xE0) { need = 2; lo = 0xA0; }
  else if (lead >= 0xE1 && lead <= 0xEC) need = 2;
  else if (lead == 0xED) { need = 2; hi = 0x9F; }  // no surrogates
  else if (lead >= 0xEE && lead <= 0xEF) need = 2;
  else if (lead == 0xF0) { need = 3; lo = 0x90; }
  else if (lead >= 0xF1 && lead <= 0xF3) need = 3;
  else if (lead == 0xF4) { need = 3; hi = 0x8F; }  // nothing above U+10FFFF
  else return 0;
  for (size_t k = 1; k <= need; ++k) {
    if (i + k >= text.size()) return 0;
    unsigned char c = byte(i + k);
    bool ok = k == 1 ? (c >= lo && c <= hi) : IsContinuation(c);
    if (!ok) return 0;
    *subpart = k + 1;
  }
  return need + 1;
}

// The start of a well-formed character that covers byte `at` from before it,
// or `at` itself when no character straddles that position.
size_t StartOfCharacterCovering(std::string_view text, size_t at) {
  size_t p = at;
  for (int k = 0; k < 3 && p > 0 && IsContinuation(static_cast<unsigned char>(text[p])); ++k) --p;
  if (p == at) return at;
  size_t subpart = 0;
  size_t len = SequenceAt(text, p, &subpart);
  return (len > 0 && p + len > at) ? p : at;
}

}  // namespace

size_t FirstInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    // Plain ASCII runs are the common case: skip them without decoding.
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t subpart = 0;
    size_t len = SequenceAt(text, i, &subpart);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::string RepairUtf8(std::string_view text) {
  size_t first = FirstInvalidUtf8(text);
  if (first == std::string_view::npos) return std::string(text);
  std::string out(text.substr(0, first));
  out.reserve(text.size() + 8);
  size_t i = first;
  while (i < text.size()) {
    size_t subpart = 0;
    size_t len = SequenceAt(text, i, &subpart);
    if (len > 0) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += kReplacement;
      i += subpart;
    }
  }
  return out;
}

Status RequireUtf8(std::string_view text, std::string_view what) {
  size_t bad = FirstInvalidUtf8(text);
  if (bad == std::string_view::npos) return Status::OK();
  return Status::InvalidArgument(std::string(what) + ": not valid UTF-8 (byte " + std::to_string(bad) + ")");
}

std::string_view Utf8Prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  return text.substr(0, StartOfCharacterCovering(text, max_bytes));
}

std::string_view Utf8Suffix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t start = text.size() - max_bytes;
  size_t lead = StartOfCharacterCovering(text, start);
  if (lead < start) {
    size_t subpart = 0;
    start = lead + SequenceAt(text, lead, &subpart);
  }
  return text.substr(start);
}

}  // namespace pulse
