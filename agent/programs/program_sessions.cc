#include "agent/programs/program_sessions.h"

#include "agent/programs/program_preset.h"
#include "core/base/time_util.h"

namespace pulse {

namespace {

// Made on first use by a program's turn: a workflow whose turns never ran a
// program has no such table, and the schema versions every open compares
// stay the core's own.
Status EnsureTable(Db& db) {
  return db.Exec(
      "CREATE TABLE IF NOT EXISTS pulse_program_sessions ("
      " conversation TEXT NOT NULL,"  // Pulse's session id: a generation's, or a Builder chat's
      " program TEXT NOT NULL,"       // claude | codex
      " session TEXT NOT NULL,"       // the program's own session id
      " updated_at TEXT NOT NULL,"
      " PRIMARY KEY (conversation, program))");
}

}  // namespace

Result<std::optional<std::string>> FindProgramSession(Db& db, const std::string& conversation,
                                                      const std::string& program) {
  PULSE_RETURN_IF_ERROR(EnsureTable(db));
  PULSE_ASSIGN_OR_RETURN(Statement get, db.Prepare("SELECT session FROM pulse_program_sessions"
                                                   " WHERE conversation = ? AND program = ?"));
  get.Bind(1, conversation).Bind(2, program);
  PULSE_ASSIGN_OR_RETURN(bool row, get.Step());
  if (!row) return std::optional<std::string>();
  std::string session = get.Text(0);
  // A row written by anything but this module is not trusted either.
  if (!IsProgramSessionId(session)) return std::optional<std::string>();
  return std::optional<std::string>(session);
}

Status SaveProgramSession(Db& db, const std::string& conversation, const std::string& program,
                          const std::string& session, int64_t now) {
  if (!IsProgramSessionId(session)) {
    return Status::InvalidArgument("program session: not a session id (" + std::to_string(session.size()) + " bytes)");
  }
  PULSE_RETURN_IF_ERROR(EnsureTable(db));
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT INTO pulse_program_sessions(conversation, program, session, updated_at) VALUES(?, ?, ?, ?)"
      " ON CONFLICT(conversation, program) DO UPDATE SET session = excluded.session, updated_at = excluded.updated_at"));
  put.Bind(1, conversation).Bind(2, program).Bind(3, session).Bind(4, FormatTime(now));
  return put.Run();
}

Status ForgetProgramSession(Db& db, const std::string& conversation, const std::string& program) {
  PULSE_RETURN_IF_ERROR(EnsureTable(db));
  PULSE_ASSIGN_OR_RETURN(Statement del, db.Prepare("DELETE FROM pulse_program_sessions"
                                                   " WHERE conversation = ? AND program = ?"));
  del.Bind(1, conversation).Bind(2, program);
  return del.Run();
}

}  // namespace pulse
