#include "core/base/cron.h"

#include <cstdlib>
#include <vector>

#include "core/base/time_util.h"

namespace pulse {

namespace {

struct Civil {
  int year, month, day, weekday;
};

// Howard Hinnant's days-to-civil, for UTC day numbers.
Civil FromDays(int64_t z) {
  int64_t days = z;
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  int weekday = static_cast<int>(((days % 7) + 7 + 4) % 7);  // 1970-01-01 was a Thursday
  return Civil{static_cast<int>(y + (m <= 2)), static_cast<int>(m), static_cast<int>(d), weekday};
}

bool ParseNumber(const std::string& s, int lo, int hi, int* out) {
  if (s.empty() || s.size() > 2 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  *out = std::atoi(s.c_str());
  return *out >= lo && *out <= hi;
}

// One field into its bits; false when malformed.
template <size_t N>
bool ParseField(const std::string& field, int lo, int hi, std::bitset<N>* bits, bool* any) {
  *any = field == "*";
  size_t start = 0;
  while (start <= field.size()) {
    size_t comma = field.find(',', start);
    std::string part = field.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    int step = 1;
    size_t slash = part.find('/');
    if (slash != std::string::npos) {
      if (!ParseNumber(part.substr(slash + 1), 1, hi, &step)) return false;
      part = part.substr(0, slash);
    }
    int a = lo, b = hi;
    if (part != "*") {
      size_t dash = part.find('-');
      if (dash == std::string::npos) {
        if (!ParseNumber(part, lo, hi, &a)) return false;
        b = slash == std::string::npos ? a : hi;
      } else if (!ParseNumber(part.substr(0, dash), lo, hi, &a) || !ParseNumber(part.substr(dash + 1), lo, hi, &b) ||
                 a > b) {
        return false;
      }
    }
    for (int v = a; v <= b; v += step) bits->set(static_cast<size_t>(v == 7 && N == 7 ? 0 : v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

}  // namespace

Result<CronSpec> ParseCron(const std::string& text, const std::string& what) {
  std::vector<std::string> fields;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    size_t j = text.find(' ', i);
    if (i < text.size()) fields.push_back(text.substr(i, j == std::string::npos ? std::string::npos : j - i));
    i = j == std::string::npos ? text.size() : j;
  }
  if (fields.size() != 5) {
    return Status::InvalidArgument(what + ": \"" + text + "\" is not a five-field cron expression (minute hour day month weekday)");
  }
  CronSpec s;
  bool any = false;
  static const char* names[] = {"minute", "hour", "day of month", "month", "day of week"};
  bool ok[5] = {ParseField(fields[0], 0, 59, &s.minute, &any), ParseField(fields[1], 0, 23, &s.hour, &any),
                ParseField(fields[2], 1, 31, &s.day, &s.any_day), ParseField(fields[3], 1, 12, &s.month, &any),
                ParseField(fields[4], 0, 7, &s.weekday, &s.any_weekday)};
  for (int k = 0; k < 5; ++k) {
    if (!ok[k]) return Status::InvalidArgument(what + ": the " + names[k] + " field \"" + fields[k] + "\" is not valid");
  }
  return s;
}

bool CronSpec::Matches(int64_t t) const {
  int64_t days = t >= 0 ? t / kSecondsPerDay : (t - kSecondsPerDay + 1) / kSecondsPerDay;
  int64_t secs = t - days * kSecondsPerDay;
  Civil c = FromDays(days);
  if (!month[c.month]) return false;
  // Cron's rule: with both day fields restricted, either one matching is enough.
  bool dom = day[c.day], dow = weekday[c.weekday];
  bool day_ok = any_day && any_weekday ? true : any_day ? dow : any_weekday ? dom : (dom || dow);
  if (!day_ok) return false;
  return hour[secs / 3600] && minute[(secs % 3600) / 60];
}

std::optional<int64_t> PreviousFire(const CronSpec& spec, int64_t now, int horizon_days) {
  int64_t t = now - ((now % 60) + 60) % 60;
  const int64_t stop = now - static_cast<int64_t>(horizon_days) * kSecondsPerDay;
  while (t >= stop) {
    // Skip whole hours that cannot match (the common case for daily crons).
    int64_t secs = ((t % kSecondsPerDay) + kSecondsPerDay) % kSecondsPerDay;
    if (!spec.hour[secs / 3600]) {
      t -= (secs % 3600) / 60 * 60 + 60;
      continue;
    }
    if (spec.Matches(t)) return t;
    t -= 60;
  }
  return std::nullopt;
}

std::optional<int64_t> NextFire(const CronSpec& spec, int64_t after, int horizon_days) {
  int64_t t = after - ((after % 60) + 60) % 60 + 60;
  const int64_t stop = after + static_cast<int64_t>(horizon_days) * kSecondsPerDay;
  while (t <= stop) {
    int64_t secs = ((t % kSecondsPerDay) + kSecondsPerDay) % kSecondsPerDay;
    if (!spec.hour[secs / 3600]) {
      t += 3600 - secs % 3600;  // to the next whole hour
      continue;
    }
    if (spec.Matches(t)) return t;
    t += 60;
  }
  return std::nullopt;
}

}  // namespace pulse
