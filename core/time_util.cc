#include "core/time_util.h"

#include <date/date.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
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

// RFC 3339's digits and separators at each place ('d' a digit), checked
// before the date library sees the text: given a field with no digits (a
// time like "23::59") it converts the seconds it never read, which is
// undefined behaviour (a NaN or garbage turned into an integer).
bool HasShape(const std::string& text, const char* shape) {
  if (text.size() != std::strlen(shape)) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    bool digit = std::isdigit(static_cast<unsigned char>(text[i])) != 0;
    if (shape[i] == 'd' ? !digit : text[i] != shape[i]) return false;
  }
  return true;
}

Seconds InRange(int64_t seconds) {
  return Seconds(std::chrono::seconds(std::clamp(seconds, kMinTime, kMaxTime)));
}

}  // namespace

Result<int64_t> ParseTime(std::string_view raw) {
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
  bool parsed = false;
  if (HasShape(cleaned, "dddd-dd-dd")) {
    parsed = TryParse(cleaned, "%F", tp);
  } else if (HasShape(cleaned, "dddd-dd-ddTdd:dd:ddZ")) {
    parsed = TryParse(cleaned.substr(0, cleaned.size() - 1), "%FT%T", tp);
  } else if (HasShape(cleaned.substr(0, std::min<size_t>(cleaned.size(), 19)), "dddd-dd-ddTdd:dd:dd") &&
             cleaned.size() == 25 && ValidOffset(cleaned)) {
    parsed = TryParse(cleaned, "%FT%T%Ez", tp);
  }
  int64_t seconds = parsed ? tp.time_since_epoch().count() : 0;
  if (parsed && seconds >= kMinTime && seconds <= kMaxTime) return seconds;
  return Status::InvalidArgument("\"" + text + "\" is not an RFC 3339 time (like 2026-10-07T09:00:00Z)");
}

std::string FormatTime(int64_t seconds) {
  return date::format("%FT%TZ", InRange(seconds));
}

std::string FormatDate(int64_t seconds) {
  return date::format("%F", InRange(seconds));
}

std::string FormatShortDay(int64_t seconds) {
  auto day = date::floor<date::days>(InRange(seconds));
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
