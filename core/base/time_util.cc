#include "core/base/time_util.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pulse {

namespace {

// The times ParseTime accepts: years 0000 to 9999 once the offset is
// applied, so that FormatTime's text of each reads back as the same time (a
// year before 0000 is written "00-1", one after 9999 with five digits).
constexpr int64_t kMinTime = -62167219200;  // 0000-01-01T00:00:00Z
constexpr int64_t kMaxTime = 253402300799;   // 9999-12-31T23:59:59Z

// The text is read the way the date library's parse("%F"/"%T"/"%Ez") reads
// it (same digit counts, signs, literals and range checks), without an
// istream: streams and their locales are a large share of the WebAssembly
// module, and this is the only place the core parsed with them.
struct TimeReader {
  std::string_view s;
  size_t i = 0;
  bool fail = false;
  bool eof = false;

  int Peek() {
    if (i < s.size()) return static_cast<unsigned char>(s[i]);
    eof = true;
    return -1;
  }
  void Literal(char c) {
    if (fail) return;
    if (Peek() != static_cast<unsigned char>(c)) fail = true;
    else ++i;
  }
  unsigned Unsigned(unsigned min, unsigned max) {
    unsigned x = 0;
    unsigned count = 0;
    for (int c = Peek(); c >= '0' && c <= '9'; c = Peek()) {
      ++i;
      x = 10 * x + static_cast<unsigned>(c - '0');
      if (++count == max) break;
    }
    if (count < min) fail = true;
    return x;
  }
  int Signed(unsigned min, unsigned max) {
    int c = Peek();
    if ((c >= '0' && c <= '9') || c == '-' || c == '+') {
      if (c == '-' || c == '+') ++i;
      int x = static_cast<int>(Unsigned(min, max));
      if (!fail) return c == '-' ? -x : x;
    }
    fail = true;
    return 0;
  }
  // Seconds: up to two characters, digits and at most one '.', rounded to
  // the nearest second (halves to even), as the library rounds.
  int64_t Seconds() {
    unsigned count = 0;
    unsigned fraction_digits = 0;
    uint64_t whole = 0;
    uint64_t fraction = 0;
    bool in_fraction = false;
    bool point_seen = false;
    for (int c = Peek(); c >= 0; c = Peek()) {
      if (c == '.' && !point_seen) {
        point_seen = in_fraction = true;
      } else if (c < '0' || c > '9') {
        break;
      } else if (in_fraction) {
        fraction = 10 * fraction + static_cast<unsigned>(c - '0');
        ++fraction_digits;
      } else {
        whole = 10 * whole + static_cast<unsigned>(c - '0');
      }
      ++i;
      if (++count == 2) break;
    }
    if (count < 1) {
      fail = true;
      return 0;
    }
    long double value = whole + fraction / std::pow(10.L, fraction_digits);
    long double floor = std::floor(value);
    long double diff = value - floor;
    int64_t t0 = static_cast<int64_t>(floor);
    if (diff > 0.5L || (diff == 0.5L && t0 % 2 != 0)) return t0 + 1;
    return t0;
  }
};

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  unsigned yoe = static_cast<unsigned>(y - era * 400);
  unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool LeapYear(int y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

bool ValidDate(int y, int m, int d) {
  static const unsigned char kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  int last = kDays[m - 1] + (m == 2 && LeapYear(y) ? 1 : 0);
  return d <= last;
}

// "%F": year (sign and 1-4 digits), '-', month (1-2 digits), '-', day (1-2).
int64_t ReadDate(TimeReader& r) {
  int y = r.Signed(1, 4);
  if (!r.fail) r.Literal('-');
  int m = r.fail ? 0 : static_cast<int>(r.Unsigned(1, 2));
  if (!r.fail) r.Literal('-');
  int d = r.fail ? 0 : static_cast<int>(r.Unsigned(1, 2));
  if (r.fail || !ValidDate(y, m, d)) {
    r.fail = true;
    return 0;
  }
  return DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

// "%T": hours and minutes (1-2 digits each) and seconds, within one day.
int64_t ReadTimeOfDay(TimeReader& r) {
  unsigned h = r.Unsigned(1, 2);
  if (!r.fail) r.Literal(':');
  unsigned m = r.fail ? 0 : r.Unsigned(1, 2);
  if (!r.fail) r.Literal(':');
  int64_t s = r.fail ? 0 : r.Seconds();
  if (r.fail || h >= 24 || m >= 60 || s >= 60) r.fail = true;
  return h * 3600 + m * 60 + s;
}

// "%Ez": a sign and 1-2 hour digits, then ':' and two minute digits; in
// minutes east of UTC.
int64_t ReadOffset(TimeReader& r) {
  bool negative = r.Peek() == '-';
  int64_t minutes = 60 * std::abs(r.Signed(1, 2));
  if (!r.fail && !r.eof && r.Peek() == ':') {
    ++r.i;
    minutes += r.Unsigned(2, 2);
  }
  return negative ? -minutes : minutes;
}

// The whole text must be one time in the form `with_time` (false: a bare
// date; true: date 'T' time) and `with_offset`.
bool TryParse(std::string_view text, bool with_time, bool with_offset, int64_t& out) {
  TimeReader r{text};
  int64_t seconds = ReadDate(r) * kSecondsPerDay;
  if (with_time) {
    r.Literal('T');
    if (!r.fail) seconds += ReadTimeOfDay(r);
  }
  if (with_offset && !r.fail) seconds -= 60 * ReadOffset(r);
  if (r.fail || r.i != text.size()) return false;
  out = seconds;
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



// The form every stored time has, "2026-10-07T09:00:00Z", read with no
// copy: a goal check reads thousands of them. Anything else, or a field out
// of range, is left to the full reader (which gives the same answer).
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
  if (y < 1000 || h > 23 || mi > 59 || sec > 59 || !ValidDate(y, mo, d)) return false;
  *out = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * kSecondsPerDay + h * 3600 + mi * 60 + sec;
  return true;
}
// The calendar date of a day count, with the date library's types: an int
// day count and a 16-bit year (so far-off years wrap as they did there).
struct CivilDate {
  int year;
  unsigned month;
  unsigned day;
};

CivilDate CivilFromDays(int days) {
  int z = days + 719468;
  int era = (z >= 0 ? z : z - 146096) / 146097;
  unsigned doe = static_cast<unsigned>(z - era * 146097);
  unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int y = static_cast<int>(yoe) + era * 400;
  unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  unsigned mp = (5 * doy + 2) / 153;
  unsigned d = doy - (153 * mp + 2) / 5 + 1;
  unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<short>(y + (m <= 2)), m, d};
}

// The day holding `seconds` (floor) and the seconds into it. A count whose
// day does not fit an int (about 5.8 million years out, only ever a number
// from outside) is held to the last day that does: cut to an int, its day
// was garbage and the seconds into it overflowed int64.
int SplitDay(int64_t seconds, int64_t* time_of_day) {
  constexpr int64_t kLimit = int64_t{INT_MAX - 719468} * kSecondsPerDay;
  seconds = std::clamp(seconds, -kLimit, kLimit);
  int days = static_cast<int>(seconds / kSecondsPerDay);
  if (static_cast<int64_t>(days) * kSecondsPerDay > seconds) --days;
  *time_of_day = seconds - static_cast<int64_t>(days) * kSecondsPerDay;
  return days;
}

// "%F" as the library writes it: the year zero-filled to four characters
// (fill before any sign), month and day to two; nothing at all for the one
// year it cannot represent. The seconds into that day go to `time_of_day`.
std::string DatePart(int64_t seconds, int64_t* time_of_day) {
  CivilDate date = CivilFromDays(SplitDay(seconds, time_of_day));
  if (date.year == -32768) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%*d", 4, date.year);
  for (char* p = buf; *p == ' '; ++p) *p = '0';
  std::string out = buf;
  std::snprintf(buf, sizeof buf, "-%02u-%02u", date.month, date.day);
  return out + buf;
}

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
  int64_t t = 0;
  bool parsed = false;
  if (cleaned.size() == 10 && TryParse(cleaned, false, false, t)) {
    parsed = true;
  } else if (!cleaned.empty() && cleaned.back() == 'Z') {
    parsed = TryParse(cleaned.substr(0, cleaned.size() - 1), true, false, t);
  } else {
    parsed = ValidOffset(cleaned) && TryParse(cleaned, true, true, t);
  }
  if (parsed && t >= kMinTime && t <= kMaxTime) return t;
  return Status::InvalidArgument("\"" + text + "\" is not an RFC 3339 time (like 2026-10-07T09:00:00Z)");
}

// 1970-01-01 to 9999-12-31: one snprintf, the same text as the general path.
constexpr int64_t kFastFormatEnd = 253402300800;

std::string FormatTime(int64_t seconds) {
  if (seconds >= 0 && seconds < kFastFormatEnd) {
    CivilDate date = CivilFromDays(static_cast<int>(seconds / kSecondsPerDay));
    int64_t rest = seconds % kSecondsPerDay;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", date.year, date.month, date.day,
                  static_cast<int>(rest / 3600), static_cast<int>(rest / 60 % 60), static_cast<int>(rest % 60));
    return buf;
  }
  int64_t tod = 0;
  std::string out = DatePart(seconds, &tod);
  if (out.empty()) return out;
  uint64_t abs_tod = tod < 0 ? 0 - static_cast<uint64_t>(tod) : static_cast<uint64_t>(tod);
  char buf[48];
  std::snprintf(buf, sizeof buf, "T%s%02llu:%02llu:%02lluZ", tod < 0 ? "-" : "",
                static_cast<unsigned long long>(abs_tod / 3600), static_cast<unsigned long long>(abs_tod / 60 % 60),
                static_cast<unsigned long long>(abs_tod % 60));
  return out + buf;
}

std::string FormatDate(int64_t seconds) {
  int64_t tod = 0;
  return DatePart(seconds, &tod);
}

std::string FormatShortDay(int64_t seconds) {
  int64_t tod = 0;
  CivilDate date = CivilFromDays(SplitDay(seconds, &tod));
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  return std::to_string(date.day) + " " + kMonths[date.month - 1];
}

Result<std::string> NormalizeTime(std::string_view text, std::string_view what) {
  Result<int64_t> t = ParseTime(text);
  if (!t.ok()) return Status::InvalidArgument(std::string(what) + ": " + t.status().message());
  return FormatTime(*t);
}

int64_t WholeDaysBetween(int64_t from, int64_t to) {
  // Counts of seconds come from files and from the browser: a difference
  // past int64 is held at its end rather than wrapping.
  int64_t diff = 0;
  if (__builtin_sub_overflow(to, from, &diff)) diff = to < from ? INT64_MIN : INT64_MAX;
  int64_t days = diff / kSecondsPerDay;
  if (diff % kSecondsPerDay != 0 && diff < 0) --days;
  return days;
}

int64_t StartOfDay(int64_t seconds) {
  // seconds minus its time of day: no multiplication that can overflow; a
  // day that begins before the first representable second starts there.
  int64_t into_day = seconds % kSecondsPerDay;
  if (into_day < 0) into_day += kSecondsPerDay;
  int64_t start = 0;
  if (__builtin_sub_overflow(seconds, into_day, &start)) return INT64_MIN;
  return start;
}

}  // namespace pulse
