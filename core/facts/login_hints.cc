// Login hints: runs carry no structured error kind, so a narrow, labelled
// text match on run errors and CONCERNS: lines. Narrow on purpose: a hint
// raises "needs re-auth", so a near miss ("port 4010", "the coupon expired",
// a database's "connection refused") must not match. Errors worded
// differently are missed; docs/goal.md says so.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts/goal_context_facts.h"
#include "core/base/text.h"

namespace pulse {

namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `word` at `pos` with no word character on either side.
bool WordAt(const std::string& text, size_t pos, size_t len) {
  if (pos > 0 && IsWordChar(text[pos - 1])) return false;
  size_t end = pos + len;
  return end >= text.size() || !IsWordChar(text[end]);
}

// The first `word` in `text` standing alone, or npos.
size_t FindWord(const std::string& text, std::string_view word, size_t from = 0) {
  for (size_t p = text.find(word, from); p != std::string::npos; p = text.find(word, p + 1)) {
    if (WordAt(text, p, word.size())) return p;
  }
  return std::string::npos;
}

// An HTTP status standing alone: not part of a longer number, a version
// ("1.401"), an identifier ("e401") or a decimal ("401.5").
size_t FindStatusCode(const std::string& text, std::string_view code) {
  for (size_t p = text.find(code); p != std::string::npos; p = text.find(code, p + 1)) {
    char before = p > 0 ? text[p - 1] : ' ';
    size_t end = p + code.size();
    char after = end < text.size() ? text[end] : ' ';
    char after2 = end + 1 < text.size() ? text[end + 1] : ' ';
    if (IsWordChar(before) || before == '.' || before == '-') continue;
    if (IsWordChar(after)) continue;
    if (after == '.' && std::isdigit(static_cast<unsigned char>(after2))) continue;
    return p;
  }
  return std::string::npos;
}

// Word spans of `text`: [start, end) pairs.
std::vector<std::pair<size_t, size_t>> Words(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !IsWordChar(text[i])) ++i;
    size_t s = i;
    while (i < text.size() && IsWordChar(text[i])) ++i;
    if (i > s) out.emplace_back(s, i);
  }
  return out;
}

// "expired" next to what logs a person in: "token expired", "session has
// expired", "expired login". Up to two words may sit between.
bool FindExpiredLogin(const std::string& low, size_t* start, size_t* end) {
  static const char* kObjects[] = {"token", "tokens", "session", "login", "credential", "credentials",
                                   "cookie", "oauth", "jwt", "refresh_token", "access_token", "auth"};
  auto is_object = [&](std::string_view w) {
    for (const char* o : kObjects) if (w == o) return true;
    return false;
  };
  std::vector<std::pair<size_t, size_t>> words = Words(low);
  for (size_t i = 0; i < words.size(); ++i) {
    std::string_view w(low.data() + words[i].first, words[i].second - words[i].first);
    if (w != "expired") continue;
    for (size_t k = (i >= 3 ? i - 3 : 0); k < words.size() && k <= i + 3; ++k) {
      if (k == i) continue;
      std::string_view o(low.data() + words[k].first, words[k].second - words[k].first);
      if (!is_object(o)) continue;
      *start = std::min(words[i].first, words[k].first);
      *end = std::max(words[i].second, words[k].second);
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<LoginMatch> MatchLoginHints(const std::string& line) {
  std::vector<LoginMatch> out;
  const std::string low = Lower(line);
  // Every pattern below needs one of these in the line: most lines (a
  // timeout, a failed step) are passed over without the word scans.
  static const char* kNeeded[] = {"401", "403", "unauth", "invalid_grant", "expired", "reauth", "re-auth", "again", "mcp"};
  if (std::none_of(std::begin(kNeeded), std::end(kNeeded),
                   [&](const char* w) { return low.find(w) != std::string::npos; })) {
    return out;
  }
  auto add = [&](const char* pattern, size_t pos, size_t len) {
    out.push_back({pattern, line.substr(pos, len)});
  };
  if (size_t p = FindStatusCode(low, "401"); p != std::string::npos) add("http_401", p, 3);
  if (size_t p = FindStatusCode(low, "403"); p != std::string::npos) add("http_403", p, 3);
  for (const char* w : {"unauthorized", "unauthorised", "unauthenticated"}) {
    if (size_t p = FindWord(low, w); p != std::string::npos) {
      add("unauthorized", p, std::string_view(w).size());
      break;
    }
  }
  // A word of its own: "invalid_grants_total" or "no_invalid_grant_seen" is
  // a metric's name, not the OAuth error.
  if (size_t p = FindWord(low, "invalid_grant"); p != std::string::npos) add("invalid_grant", p, 13);
  size_t s = 0, e = 0;
  if (FindExpiredLogin(low, &s, &e)) add("expired_login", s, e - s);
  for (const char* w : {"re-authenticate", "reauthenticate", "re-authorize", "reauthorize", "re-auth", "reauth",
                        "log in again", "sign in again", "login again"}) {
    if (size_t p = FindWord(low, w); p != std::string::npos) {
      add("reauthenticate", p, std::string_view(w).size());
      break;
    }
  }
  // An MCP server the run could not reach: "mcp" and a connection failure in
  // the same line (a database's "connection refused" alone is no login).
  if (size_t m = FindWord(low, "mcp"); m != std::string::npos) {
    for (const char* w : {"connection refused", "connection failed", "connection closed", "connection error",
                          "connection reset", "failed to connect", "could not connect", "couldn't connect",
                          "cannot connect", "unable to connect", "disconnected", "econnrefused"}) {
      if (size_t p = low.find(w, 0); p != std::string::npos) {
        size_t from = std::min(m, p);
        size_t to = std::max(m + 3, p + std::string_view(w).size());
        add("mcp_connection", from, to - from);
        break;
      }
    }
  }
  return out;
}

}  // namespace pulse
