// GET /api/workflows: the workspace's workflows, each with what the Pulse
// tab's overview shows of it (status, key number against the target, alarms,
// attention items and the rank the overview sorts by, pending decisions, the
// last recorded check), from the status cache while
// its inputs stand still (status_cache.h).
//
// Without ?limit, ?cursor or ?q the answer is every workflow, each item with
// its whole goal status document, as before paging existed. With any of them
// it is one page in name order: at most `limit` (1-500, default 100)
// workflows whose name comes after `cursor` and contains `q`, each a compact
// overview item, with `next_cursor` (null on the last page) and `total` (the
// workflows matching `q`). A workflow's item is computed only when it is on
// the page, so a page costs at most `limit` goal statuses, and none while
// nothing changed.
#pragma once

#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "core/base/env.h"
#include "server-shim/http/pooled_reads.h"

namespace pulse::serve {

struct WorkflowListQuery {
  bool paged = false;
  int limit = 100;
  std::string cursor;  // the name the page starts after ("" = the first)
  std::string q;       // names containing it, case-insensitive ("" = all)
};

constexpr int kWorkflowPageMax = 500;

// ?limit, ?cursor and ?q; false with *error naming the parameter and the
// problem (the route answers 400 with it).
bool ParseWorkflowListQuery(const httplib::Params& params, WorkflowListQuery* out, std::string* error);

// One workflow's item as the unpaged list shows it (its goal status
// document, pending decisions, focus areas open, agents running and stuck,
// ...), from the status cache; `max_age` as in StatusCache::Get. An item
// that could not be computed is {name, error}.
nlohmann::json CachedWorkflowItem(PooledReads& reads, Env& env, const std::string& workflow, int64_t max_age = 0);

// The answer: {workflows: [...]} (unpaged) or {workflows, next_cursor,
// total, limit} (paged).
Result<nlohmann::json> WorkflowListAnswer(PooledReads& reads, Env& env, const std::string& workspace,
                                          const WorkflowListQuery& query);

}  // namespace pulse::serve
