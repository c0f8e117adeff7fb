// The agent log on a small volume: the WAL stays bounded however many events
// are written, a write that finds no room is reported (best effort) and the
// database takes writes again once there is room. A per-file size limit
// (RLIMIT_FSIZE, in a forked child) is the small volume: the kernel refuses
// to grow a file past it, as a full disk does.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>

#include "core/agent_log/agent_log.h"
#include "core/store/db.h"
#include "core/store/schema.h"
#include "core/store/workspace.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

namespace fs = std::filesystem;
using testing::T;

struct Fixture {
  testing::TempDir dir;
  std::string workspace = testing::MakeWorkspace(dir, "demo", "{}");
  std::string db_path = workspace + "/Workflow/demo/db/db.sqlite";
  CapturingEnv env{DefaultEnv(), T("2026-10-07T12:00:00Z")};
};

// One start and one completion with rows about the size runners write.
bool RecordPair(BackgroundAgentLog& log, int i, size_t result_bytes = 300) {
  AgentStart s;
  s.session_id = "load";
  s.agent_id = "agent-" + std::to_string(i);
  s.name = "summarise the week";
  if (!log.Started(s)) return false;
  AgentCompletion d;
  d.session_id = s.session_id;
  d.agent_id = s.agent_id;
  d.status = "completed";
  d.result = std::string(result_bytes, 'r');
  return log.Completed(d);
}

int64_t FileSize(const std::string& path) {
  std::error_code ec;
  auto n = fs::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

// Runs `body` in a child whose files may not grow past `limit` bytes; the
// child's exit status is the result (0: all went as expected).
int InSmallVolume(rlim_t limit, const std::function<int()>& body) {
  pid_t child = fork();
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);  // a refused write is then an error, not a signal
    struct rlimit rl = {limit, RLIM_INFINITY};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(90);
    _exit(body());
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST(AgentLogWal, StaysBoundedOverManyEvents) {
  Fixture f;
  BackgroundAgentLog log(f.env, AgentLogScopeFor(f.workspace, "demo"));
  int64_t largest = 0;
  for (int i = 0; i < 1500; ++i) {
    ASSERT_TRUE(RecordPair(log, i)) << i << ": " << log.last_error().message();
    if (i % 25 == 0) largest = std::max(largest, FileSize(f.db_path + "-wal"));
  }
  // Checkpointed every 256 pages and cut back to 1 MiB: never SQLite's 4 MiB.
  EXPECT_GT(largest, 0);
  EXPECT_LT(largest, int64_t{1536} * 1024) << "the WAL grew to " << largest << " bytes";
}

TEST(AgentLogWal, ThreeThousandEventsFitOnAVolumeOfTwoMegabytes) {
  Fixture f;
  int rc = InSmallVolume(2 << 20, [&] {
    CapturingEnv env(DefaultEnv(), T("2026-10-07T12:00:00Z"));
    BackgroundAgentLog log(env, AgentLogScopeFor(f.workspace, "demo"));
    for (int i = 0; i < 1500; ++i) {
      if (!RecordPair(log, i)) return 1;
    }
    return 0;
  });
  EXPECT_EQ(rc, 0) << "a write failed: the WAL outgrew the volume";
  auto db = Db::Open(f.db_path);
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(*(*db)->QueryInt64("SELECT count(*) FROM background_agent_log WHERE status = 'completed'"), 1500);
}

TEST(AgentLogWal, AFullVolumeIsReportedAndWritesResumeWhenThereIsRoom) {
  Fixture f;
  {
    BackgroundAgentLog log(f.env, AgentLogScopeFor(f.workspace, "demo"));
    ASSERT_TRUE(RecordPair(log, 0));
  }
  rlim_t room = static_cast<rlim_t>(std::max(FileSize(f.db_path), FileSize(f.db_path + "-wal")) + 64 * 1024);
  int rc = InSmallVolume(room, [&] {
    CapturingEnv env(DefaultEnv(), T("2026-10-07T12:00:00Z"));
    BackgroundAgentLog log(env, AgentLogScopeFor(f.workspace, "demo"));
    int i = 1;
    // Big results until the volume is full: the failure is reported, once.
    while (RecordPair(log, i, 20000)) {
      if (++i > 1000) return 1;
    }
    if (env.lines.size() != 1) return 2;
    // Room again (the limit raised, as space freed on a real volume): the
    // same recorder writes again without being restarted.
    struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return 3;
    for (int k = 0; k < 50; ++k) {
      if (!RecordPair(log, 5000 + k)) return 4;
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
  auto db = Db::Open(f.db_path);
  ASSERT_TRUE(db.ok());
  auto check = (*db)->Prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.ok());
  ASSERT_TRUE(*check->Step());
  EXPECT_EQ(check->Text(0), "ok");
  EXPECT_EQ(*(*db)->QueryInt64("SELECT count(*) FROM background_agent_log WHERE agent_id LIKE 'agent-50__'"), 50);
  EXPECT_EQ(*(*db)->QueryInt64("SELECT count(*) FROM background_agent_log WHERE agent_id = 'agent-0'"), 1);
}

}  // namespace
}  // namespace pulse
