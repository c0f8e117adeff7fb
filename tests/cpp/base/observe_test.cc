// The observe sink: the core's agent-log writes and guard decisions reach
// the sink a server installs, and nothing is counted without one.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/agent_log/agent_log.h"
#include "core/autonomy/tool_sessions.h"
#include "core/base/observe.h"
#include "core/store/db.h"
#include "core/store/schema.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

struct Counting : ObserveSink {
  std::map<std::string, int> events;
  void AgentLogEvent(std::string_view e) override { ++events["agent_log:" + std::string(e)]; }
  void GuardDecision(std::string_view rule, bool allowed) override {
    ++events["guard:" + std::string(rule) + ":" + (allowed ? "allowed" : "refused")];
  }
};

struct SinkScope {
  explicit SinkScope(ObserveSink* s) { SetObserveSink(s); }
  ~SinkScope() { SetObserveSink(nullptr); }
};

TEST(Observe, TheCoresEventsReachTheInstalledSink) {
  testing::TempDir dir;
  std::unique_ptr<Db> db = Db::Open(dir.Join("db.sqlite")).value();
  ASSERT_TRUE(EnsureSchema(*db).ok());
  AgentStart s;
  s.session_id = "s";
  s.agent_id = "a";
  AgentCompletion d;
  d.session_id = "s";
  d.agent_id = "a";
  GuardRecord r;
  r.session = "s";
  r.turn = "goal_check";
  r.tool = "trigger_schedule";
  r.rule = "run_at_ask";
  r.reason = "held";
  // Without a sink: written, not counted (and nothing to crash on).
  ASSERT_EQ(CurrentObserveSink(), nullptr);
  ASSERT_TRUE(AgentLogWriter(*db).Started("Workflow/x", s, 1).ok());

  Counting sink;
  SinkScope scope(&sink);
  EXPECT_EQ(CurrentObserveSink(), &sink);
  ASSERT_TRUE(AgentLogWriter(*db).Started("Workflow/x", s, 2).ok());
  ASSERT_TRUE(AgentLogWriter(*db).Completed("Workflow/x", d, 3).ok());
  ASSERT_TRUE(AppendGuardRecord(*db, r).ok());
  r.allowed = true;
  r.rule = "pulse_tool";
  ASSERT_TRUE(AppendGuardRecord(*db, r).ok());
  // A write that fails is not an event.
  AgentStart bad;
  EXPECT_FALSE(AgentLogWriter(*db).Started("Workflow/x", bad, 4).ok());
  EXPECT_EQ(sink.events, (std::map<std::string, int>{{"agent_log:started", 1},
                                                     {"agent_log:completed", 1},
                                                     {"guard:run_at_ask:refused", 1},
                                                     {"guard:pulse_tool:allowed", 1}}));
}

}  // namespace
}  // namespace pulse
