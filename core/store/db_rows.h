// Reading a query's rows into a list, over core/store/db.h's Statement.
#pragma once

#include <vector>

#include "core/store/db.h"
#include "core/base/status.h"

namespace pulse {

// Every row `st` gives, each made by `read(st)`: the one loop that reads a
// query's rows into a list.
template <typename Read>
auto ReadRows(Statement& st, Read read) -> Result<std::vector<decltype(read(st))>> {
  std::vector<decltype(read(st))> out;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return out;
    out.push_back(read(st));
  }
}

}  // namespace pulse
