// Times: every RFC 3339 text a file or an argument carries goes through
// ParseTime. A time it accepts must print (FormatTime) and parse back to the
// same second. The input's first 8 bytes are also taken as a raw count of
// seconds (every stored or computed time is printed by FormatTime) and as the
// double the browser passes as the WASM facade's `now`, which the facade's
// clock-dependent methods then run at.
#include <cstring>

#include "core/base/time_util.h"
#include "tests/fuzz/fuzz_util.h"
#include "wasm/pulse_facade.h"

namespace {

void RoundTrip(const std::string& text) {
  using namespace pulse;
  Result<int64_t> t = ParseTime(text);
  (void)NormalizeTime(text, "at");
  if (!t.ok()) return;
  std::string printed = FormatTime(*t);
  Result<int64_t> again = ParseTime(printed);
  if (!again.ok() || *again != *t) abort();  // an accepted time must survive being stored
  (void)FormatDate(*t);
  (void)FormatShortDay(*t);
  (void)WholeDaysBetween(*t, 1791363600);
  (void)StartOfDay(*t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  RoundTrip(fuzz::Text(data, size));
  if (size < 9) return 0;
  int64_t seconds;
  std::memcpy(&seconds, data, sizeof seconds);
  (void)FormatTime(seconds);
  (void)FormatDate(seconds);
  (void)FormatShortDay(seconds);
  (void)StartOfDay(seconds);
  double now;
  std::memcpy(&now, data, sizeof now);
  static const char* kClockMethods[] = {"goal.facts", "goal.check_due", "goal.last_check", "focus.list",
                                        "decision.apply_due_defaults"};
  const char* method = kClockMethods[data[8] % (sizeof kClockMethods / sizeof kClockMethods[0])];
  fuzz::Opened& o = fuzz::TheWorkflow();
  wasm::Facade facade(o.w.db->handle());
  Result<nlohmann::json> out = facade.Call(method, "{}", now);
  if (out.ok()) (void)out->dump();
  return 0;
}
