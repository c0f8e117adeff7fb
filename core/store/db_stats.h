// Counts of what Db does, process-wide.
#pragma once

#include <cstdint>

namespace pulse {

// Connections Db::Open has made in this process so far: `pulse serve` shows
// it in /api/health so a test can prove a request opened no database.
uint64_t DbOpenCount();

}  // namespace pulse
