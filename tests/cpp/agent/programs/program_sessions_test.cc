// Which program session goes on with which of Pulse's conversations
// (agent/programs/program_sessions.h): kept per conversation and program,
// replaced, forgotten, and nothing but a session id stored or handed back.
#include "agent/programs/program_sessions.h"

#include <gtest/gtest.h>

#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using testing::Workflow;

const std::string kGen1 = "schedule-goallead--d411633327714b72-g1";
const std::string kGen2 = "schedule-goallead--d411633327714b72-g2";

TEST(ProgramSessions, AGenerationGoesOnWithItsProgramSession) {
  Workflow wf;
  Db& db = *wf.ctx.db;
  auto none = FindProgramSession(db, kGen1, "claude");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(SaveProgramSession(db, kGen1, "claude", "0f5d1c3a-1111-2222-3333-444455556666", 100).ok());
  EXPECT_EQ(FindProgramSession(db, kGen1, "claude")->value(), "0f5d1c3a-1111-2222-3333-444455556666");
  // Per program, and a new generation has none.
  EXPECT_FALSE(FindProgramSession(db, kGen1, "codex")->has_value());
  EXPECT_FALSE(FindProgramSession(db, kGen2, "claude")->has_value());
  // Replaced, then forgotten.
  ASSERT_TRUE(SaveProgramSession(db, kGen1, "claude", "abc", 200).ok());
  EXPECT_EQ(FindProgramSession(db, kGen1, "claude")->value(), "abc");
  ASSERT_TRUE(ForgetProgramSession(db, kGen1, "claude").ok());
  EXPECT_FALSE(FindProgramSession(db, kGen1, "claude")->has_value());
}

TEST(ProgramSessions, OnlySessionIdsAreKeptOrHandedBack) {
  Workflow wf;
  Db& db = *wf.ctx.db;
  Status s = SaveProgramSession(db, kGen1, "codex", "x; rm -rf /", 1);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message().find("rm -rf"), std::string::npos);  // not echoed
  EXPECT_FALSE(FindProgramSession(db, kGen1, "codex")->has_value());
  // A row someone else wrote is not handed to a program's --resume.
  ASSERT_TRUE(db.Exec("INSERT INTO pulse_program_sessions VALUES('" + kGen1 + "', 'codex', '--tools default', 'now')").ok());
  EXPECT_FALSE(FindProgramSession(db, kGen1, "codex")->has_value());
}

}  // namespace
}  // namespace pulse
