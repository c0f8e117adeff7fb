#include "server-shim/turns/session_index.h"

#include "core/store/db.h"
#include "core/autonomy/tool_sessions.h"
#include "core/store/workspace.h"

namespace pulse::serve {

namespace {

// Every token hash in the database; none when it has no session table yet.
std::set<std::string> LoadHashes(const std::string& db_path) {
  std::set<std::string> out;
  OpenOptions open;
  open.create = false;
  open.read_only = true;
  Result<std::unique_ptr<Db>> db = Db::Open(db_path, open);
  if (!db.ok()) return out;
  Result<std::vector<std::string>> hashes = ListSessionTokenHashes(**db);
  if (hashes.ok()) out.insert(hashes->begin(), hashes->end());
  return out;
}

}  // namespace

const SessionTokenIndex::Entry& SessionTokenIndex::Current(const std::string& workflow) {
  Entry& e = entries_[workflow];
  Result<WorkflowPaths> paths = ResolveWorkflow(workspace_, workflow);
  if (!paths.ok()) {
    e = Entry{};
    return e;
  }
  // The stamp is taken before the read: a session opened after it moves the
  // stamp, so the next lookup reloads.
  DbStamp now = StampDatabase(paths->db);
  if (now == e.stamp && now.db.exists) return e;
  e.stamp = now;
  e.hashes = now.db.exists ? LoadHashes(paths->db) : std::set<std::string>{};
  return e;
}

std::optional<std::string> SessionTokenIndex::Find(const std::vector<std::string>& workflows,
                                                   const std::string& token_sha256) {
  std::lock_guard<std::mutex> l(mu_);
  for (const std::string& wf : workflows) {
    if (Current(wf).hashes.count(token_sha256)) return wf;
  }
  return std::nullopt;
}

}  // namespace pulse::serve
