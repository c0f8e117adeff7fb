// The agent-log tests' workspace and events (agent_log_test.cc,
// agent_log_schema_test.cc): a workspace holding one workflow folder, a
// start and a completion by session and agent, the log read back.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/agent_log/agent_log.h"
#include "core/store/db.h"
#include "core/store/schema.h"
#include "tests/cpp/test_util.h"

namespace pulse::agent_log_testing {

using testing::T;
using testing::TempDir;

inline constexpr const char* kWorkflow = "demo";

// A workspace holding one workflow folder (no database yet).
struct Fixture {
  TempDir dir;
  std::string workspace = testing::MakeWorkspace(dir, kWorkflow, "{}");
  std::string db_path = workspace + "/Workflow/demo/db/db.sqlite";
  CapturingEnv env{DefaultEnv(), T("2026-10-07T12:00:00Z")};
  std::optional<AgentLogScope> scope = AgentLogScopeFor(workspace, kWorkflow);
};

inline AgentStart Start(const std::string& session, const std::string& agent, const std::string& at = "") {
  AgentStart s;
  s.session_id = session;
  s.agent_id = agent;
  if (!at.empty()) s.at = T(at);
  return s;
}

inline AgentCompletion Done(const std::string& session, const std::string& agent, const std::string& status = "completed",
                     const std::string& at = "") {
  AgentCompletion d;
  d.session_id = session;
  d.agent_id = agent;
  d.status = status;
  if (!at.empty()) d.at = T(at);
  return d;
}

inline std::unique_ptr<Db> OpenOrDie(const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  auto db = Db::Open(path);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return nullptr;
  EXPECT_TRUE(EnsureSchema(**db).ok());
  return std::move(db).value();
}

inline std::vector<AgentLogRow> ReadAll(Db& db, AgentLogQuery q = {}, int64_t now = T("2026-10-07T12:00:00Z")) {
  auto rows = ReadAgentLog(db, q, now);
  EXPECT_TRUE(rows.ok()) << rows.status().message();
  return rows.ok() ? *rows : std::vector<AgentLogRow>{};
}

inline std::vector<std::string> Agents(const std::vector<AgentLogRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.agent_id);
  return out;
}

}  // namespace pulse::agent_log_testing
