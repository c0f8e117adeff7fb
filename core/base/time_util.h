// RFC 3339 times. Pulse stores every time as "YYYY-MM-DDTHH:MM:SSZ" (UTC,
// whole seconds), so text order is time order and SQL can compare them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace pulse {

constexpr int64_t kSecondsPerDay = 86400;

// Accepts "2026-10-07T09:00:00Z", fractional seconds, "+02:00" offsets and a
// bare date ("2026-10-07", midnight UTC). InvalidArgument otherwise.
Result<int64_t> ParseTime(std::string_view text);
// "2026-10-07T09:00:00Z"
std::string FormatTime(int64_t seconds);
// "2026-10-07"
std::string FormatDate(int64_t seconds);
// "17 Sep" (the short form in alarm messages)
std::string FormatShortDay(int64_t seconds);
// Normalises any accepted form to FormatTime's; InvalidArgument naming `what`.
Result<std::string> NormalizeTime(std::string_view text, std::string_view what);
// Whole days from `from` to `to` (floor; negative when `to` is earlier).
int64_t WholeDaysBetween(int64_t from, int64_t to);
// Start of the UTC day holding `seconds`.
int64_t StartOfDay(int64_t seconds);

}  // namespace pulse
