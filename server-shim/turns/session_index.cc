#include "server-shim/turns/session_index.h"

#include "core/store/db.h"
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
  Result<Statement> st = (*db)->Prepare("SELECT token_sha256 FROM pulse_tool_sessions");
  if (!st.ok()) return out;
  for (;;) {
    Result<bool> row = st->Step();
    if (!row.ok() || !*row) break;
    out.insert(st->Text(0));
  }
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
