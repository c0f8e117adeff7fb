// GET /api/workflows/<wf>/snapshot: the owner's consistent copy of a
// workflow's database for the Pulse tab's Inspect (docs/http.md). The copy is
// made with SQLite's backup API (core/store/snapshot.h) into a file under
// <workspace>/.pulse/snapshots/, which is unlinked as soon as it is open, so
// nothing is left behind whether the download ends or breaks; its bytes are
// streamed from the open descriptor.
#pragma once

#include <httplib.h>

#include <string>

#include "core/store/db.h"

namespace pulse::serve {

// REQUIRES: the caller checked the owner token and opened `db` for
// `workflow` (its name already validated).
void ReplySnapshot(const std::string& workspace, const std::string& workflow, Db& db, httplib::Response& res);

}  // namespace pulse::serve
