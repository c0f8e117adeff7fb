// Five-field cron expressions ("0 6 * * *": minute, hour, day of month,
// month, day of week; *, lists, ranges and /steps; Sunday is 0 or 7), in
// UTC. Pulse uses them for pulse.full_pass (a pass is due once per fire) and
// to watch each schedule's runs (core/attention/attention.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <bitset>

#include "core/base/status.h"

namespace pulse {

struct CronSpec {
  std::bitset<60> minute;
  std::bitset<24> hour;
  std::bitset<32> day;    // 1..31
  std::bitset<13> month;  // 1..12
  std::bitset<7> weekday; // 0..6, Sunday 0
  bool any_day = true;     // day of month was "*"
  bool any_weekday = true; // day of week was "*"
  bool Matches(int64_t minute_start) const;
};

// InvalidArgument naming `what` and the field that is wrong.
Result<CronSpec> ParseCron(const std::string& text, const std::string& what);

// The latest fire time at or before `now` within `horizon_days`; none when
// the expression did not fire in that window.
std::optional<int64_t> PreviousFire(const CronSpec& spec, int64_t now, int horizon_days = 400);
// The first fire strictly after `after` within `horizon_days`; none when the
// expression does not fire in that window.
std::optional<int64_t> NextFire(const CronSpec& spec, int64_t after, int horizon_days = 400);

}  // namespace pulse
