// Which session of a program (Claude Code, Codex) goes on with which of
// Pulse's conversations. Pulse's conversation has one session id per
// generation (schedule-goallead--<hash>-g<N>); the program keeps its own
// session (a UUID) with the turns it lived. The map is kept in the
// workflow's Pulse state (pulse_program_sessions in db/db.sqlite, made on
// first use, natively only): the next turn of the generation resumes the
// program's session; a new generation has no entry, so its first turn starts
// a new one. The Builder chat's turns are kept the same way, under the
// Builder chat's session id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/base/status.h"
#include "core/store/db.h"

namespace pulse {

// The program session `conversation` goes on with, for `program`
// ("claude", "codex"); nullopt when it has none yet.
Result<std::optional<std::string>> FindProgramSession(Db& db, const std::string& conversation,
                                                      const std::string& program);

// Keeps (or replaces) it. InvalidArgument for an id that is not a program's
// session id (IsProgramSessionId): nothing else is stored.
Status SaveProgramSession(Db& db, const std::string& conversation, const std::string& program,
                          const std::string& session, int64_t now);

// Forgets it (the program no longer has it: the next turn starts anew).
Status ForgetProgramSession(Db& db, const std::string& conversation, const std::string& program);

}  // namespace pulse
