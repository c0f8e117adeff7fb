// The background-agent log read a page at a time, newest first (the API's
// agent_log.show with limit and cursor; the Pulse tab's agent log).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/agent_log/agent_log.h"

namespace pulse {

// One page of the log, newest first: at most `limit` rows (1 to
// kMaxAgentLogPage) older than `cursor` ("" starts at the newest), and the
// cursor of the next page ("" when this one is the last). Each filter walks
// an index in this order (by_time, by_status_time, by_session_time,
// by_run_time), so a page costs about its own rows, not the log's.
constexpr int64_t kMaxAgentLogPage = 1000;
struct AgentLogPage {
  std::vector<AgentLogRow> rows;
  std::string next_cursor;
};
// The page query itself (EXPLAIN QUERY PLAN in the tests): it binds the
// filters, :lower with since, :after_key/:after_id after a cursor, :limit.
std::string AgentLogPageSql(const AgentLogQuery& query, bool after_cursor);
// With since, the walk first goes down to `since` itself (a row placed at or
// after it is in by its own time), so a page of a busy period never looks
// further. A page still not full there goes on to the rows that started
// before `since` and completed after it (or, with include_running, still
// run), down to the oldest place such a match has: this query's answer (it
// binds the filters).
std::string AgentLogLowerBoundSql(const AgentLogQuery& query);
// ReadAgentLog's query (oldest first), for EXPLAIN QUERY PLAN in the tests:
// each filter is a walk up one index (the sort key's, or a filter's followed
// by it); since is the union of the sort key's range and the completions'.
std::string AgentLogShowSql(const AgentLogQuery& query);
Result<AgentLogPage> ReadAgentLogPage(Db& db, const AgentLogQuery& query, int64_t limit, const std::string& cursor,
                                      int64_t now);

}  // namespace pulse
