#include "core/time_util.h"

#include <date/date.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <string_view>
#include <sstream>

namespace pulse {

namespace {

using Seconds = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;

bool TryParse(const std::string& text, const char* format, Seconds& out) {
  std::istringstream in(text);
  date::sys_time<std::chrono::seconds> tp;
  in >> date::parse(format, tp);
  if (in.fail()) return false;
  // Nothing may follow the parsed time.
  in.peek();
  if (!in.eof()) return false;
  out = tp;
  return true;
}

// RFC 3339's time-numoffset: "+" or "-", hours 00-23, ":", minutes 00-59.
// The date library alone takes "+99:99" and "+24:00" and shifts the time by
// them, so the offset is checked here first.
bool ValidOffset(const std::string& text) {
  if (text.size() < 6) return false;
  std::string off = text.substr(text.size() - 6);
  if ((off[0] != '+' && off[0] != '-') || off[3] != ':') return false;
  for (int i : {1, 2, 4, 5}) {
    if (!std::isdigit(static_cast<unsigned char>(off[i]))) return false;
  }
  int hours = (off[1] - '0') * 10 + (off[2] - '0');
  int minutes = (off[4] - '0') * 10 + (off[5] - '0');
  return hours <= 23 && minutes <= 59;
}

// The form every stored time has, "2026-10-07T09:00:00Z", read without a
// stream: a goal check reads thousands of them, and the stream parser is
// most of its cost in the WASM build. Anything else, or a field out of
// range, is left to the full parser (which gives the same answer for these).
bool ParseCanonical(std::string_view t, int64_t* out) {
  if (t.size() != 20 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':' ||
      t[19] != 'Z') {
    return false;
  }
  auto num = [&](size_t pos, size_t len, int* v) {
    int x = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (t[i] < '0' || t[i] > '9') return false;
      x = x * 10 + (t[i] - '0');
    }
    *v = x;
    return true;
  };
  int y, mo, d, h, mi, sec;
  if (!num(0, 4, &y) || !num(5, 2, &mo) || !num(8, 2, &d) || !num(11, 2, &h) || !num(14, 2, &mi) ||
      !num(17, 2, &sec)) {
    return false;
  }
  if (y < 1000 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59) return false;
  date::year_month_day ymd{date::year{y}, date::month{static_cast<unsigned>(mo)}, date::day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return false;
  *out = static_cast<int64_t>(date::sys_days(ymd).time_since_epoch().count()) * 86400 + h * 3600 + mi * 60 + sec;
  return true;
}

// 1970-01-01 to 9999-12-31: FormatTime's fast path, the same text as
// date::format("%FT%TZ").
constexpr int64_t kFastFormatEnd = 253402300800;

}  // namespace

Result<int64_t> ParseTime(std::string_view raw) {
  if (int64_t fast; ParseCanonical(raw, &fast)) return fast;
  std::string text(raw);
  if (text.empty()) return Status::InvalidArgument("empty time");
  // Drop fractional seconds: Pulse keeps whole seconds.
  std::string cleaned = text;
  size_t dot = cleaned.find('.');
  if (dot != std::string::npos && dot > 10) {
    size_t end = dot + 1;
    while (end < cleaned.size() && std::isdigit(static_cast<unsigned char>(cleaned[end]))) ++end;
    cleaned.erase(dot, end - dot);
  }
  for (char& c : cleaned) {
    if (c == 't') c = 'T';
    if (c == 'z') c = 'Z';
  }
  Seconds tp;
  if (cleaned.size() == 10 && TryParse(cleaned, "%F", tp)) return tp.time_since_epoch().count();
  if (!cleaned.empty() && cleaned.back() == 'Z') {
    std::string body = cleaned.substr(0, cleaned.size() - 1);
    if (TryParse(body, "%FT%T", tp)) return tp.time_since_epoch().count();
  } else if (ValidOffset(cleaned) && TryParse(cleaned, "%FT%T%Ez", tp)) {
    return tp.time_since_epoch().count();
  }
  return Status::InvalidArgument("\"" + text + "\" is not an RFC 3339 time (like 2026-10-07T09:00:00Z)");
}

std::string FormatTime(int64_t seconds) {
  if (seconds >= 0 && seconds < kFastFormatEnd) {
    date::year_month_day ymd{date::sys_days{date::days{seconds / 86400}}};
    int64_t rest = seconds % 86400;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), static_cast<int>(rest / 3600),
                  static_cast<int>(rest / 60 % 60), static_cast<int>(rest % 60));
    return buf;
  }
  return date::format("%FT%TZ", Seconds(std::chrono::seconds(seconds)));
}

std::string FormatDate(int64_t seconds) {
  return date::format("%F", Seconds(std::chrono::seconds(seconds)));
}

std::string FormatShortDay(int64_t seconds) {
  auto day = date::floor<date::days>(Seconds(std::chrono::seconds(seconds)));
  date::year_month_day ymd(day);
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  return std::to_string(static_cast<unsigned>(ymd.day())) + " " +
         kMonths[static_cast<unsigned>(ymd.month()) - 1];
}

Result<std::string> NormalizeTime(std::string_view text, std::string_view what) {
  Result<int64_t> t = ParseTime(text);
  if (!t.ok()) return Status::InvalidArgument(std::string(what) + ": " + t.status().message());
  return FormatTime(*t);
}

int64_t WholeDaysBetween(int64_t from, int64_t to) {
  int64_t diff = to - from;
  int64_t days = diff / kSecondsPerDay;
  if (diff % kSecondsPerDay != 0 && diff < 0) --days;
  return days;
}

int64_t StartOfDay(int64_t seconds) {
  int64_t day = seconds / kSecondsPerDay;
  if (seconds % kSecondsPerDay != 0 && seconds < 0) --day;
  return day * kSecondsPerDay;
}

}  // namespace pulse
