// The agent log's table, background_agent_log, and its versions (component
// `agent_log` in pulse_schema_versions; docs/agent-log.md lists them).
//
// A row's place in time is its start, or (a completion with no start) its
// completion, or else its last update; text order is time order
// (FormatTime). Version 6 stores it in placed_at, which the page indexes
// hold: Pulse's writers set it when they make a row, and the table's
// triggers keep it right for any other writer (an older program, a shell).
#pragma once

#include "core/base/status.h"
#include "core/store/db.h"

namespace pulse {

// Versioned, idempotent: v1 is the original table exactly (so a database made
// before versions is adopted as is); every later version only adds, and an
// upgrade loses no row.
Status EnsureAgentLogSchema(Db& db);

}  // namespace pulse
