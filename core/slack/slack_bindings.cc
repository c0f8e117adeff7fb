#include "core/slack/slack_bindings.h"

#include <algorithm>

#include "core/store/db_rows.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"

namespace pulse {

Status EnsureSlackSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_slack_bindings ("
       " team TEXT NOT NULL, channel TEXT NOT NULL, thread TEXT NOT NULL,"
       " bound_by TEXT NOT NULL DEFAULT '', alias INTEGER NOT NULL DEFAULT 0,"
       " bound_at TEXT NOT NULL, updated_at TEXT NOT NULL,"
       " PRIMARY KEY(team, channel, thread));"
       "CREATE TABLE IF NOT EXISTS pulse_slack_messages ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " team TEXT NOT NULL, channel TEXT NOT NULL, thread TEXT NOT NULL,"
       " ts TEXT NOT NULL, direction TEXT NOT NULL,"
       " event_id TEXT NOT NULL DEFAULT '', user TEXT NOT NULL DEFAULT '', who TEXT NOT NULL DEFAULT '',"
       " text TEXT NOT NULL, at TEXT NOT NULL);"
       "CREATE UNIQUE INDEX IF NOT EXISTS pulse_slack_messages_once"
       " ON pulse_slack_messages(team, channel, ts, direction);"
       "CREATE INDEX IF NOT EXISTS pulse_slack_messages_event ON pulse_slack_messages(event_id);"
       "CREATE INDEX IF NOT EXISTS pulse_slack_messages_thread ON pulse_slack_messages(team, channel, thread, id);"},
  };
  return ApplyMigrations(db, "slack", kMigrations);
}

Result<std::optional<SlackBinding>> SlackStore::FindBinding(const std::string& team, const std::string& channel,
                                                            const std::string& thread) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "SELECT bound_by, alias, bound_at FROM pulse_slack_bindings WHERE team = ? AND channel = ? AND thread = ?"));
  st.Bind(1, team).Bind(2, channel).Bind(3, thread);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<SlackBinding>();
  SlackBinding b{team, channel, thread, st.Text(0), st.Int64(1) != 0, st.Time(2).value_or(0)};
  return std::optional<SlackBinding>(b);
}

Status SlackStore::Bind(const SlackBinding& b, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "INSERT INTO pulse_slack_bindings(team, channel, thread, bound_by, alias, bound_at, updated_at)"
      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?6)"
      " ON CONFLICT(team, channel, thread) DO UPDATE SET bound_by = excluded.bound_by, alias = excluded.alias,"
      " updated_at = excluded.updated_at"));
  st.Bind(1, b.team).Bind(2, b.channel).Bind(3, b.thread).Bind(4, b.bound_by)
      .Bind(5, static_cast<int64_t>(b.alias ? 1 : 0)).Bind(6, FormatTime(now));
  return st.Run();
}

Status SlackStore::Unbind(const std::string& team, const std::string& channel, const std::string& thread) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "DELETE FROM pulse_slack_bindings WHERE team = ? AND channel = ? AND thread = ?"));
  st.Bind(1, team).Bind(2, channel).Bind(3, thread);
  return st.Run();
}

Result<std::vector<SlackBinding>> SlackStore::Bindings() {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "SELECT team, channel, thread, bound_by, alias, bound_at FROM pulse_slack_bindings ORDER BY bound_at, channel"));
  return ReadRows(st, [](const Statement& st) { return SlackBinding{st.Text(0), st.Text(1), st.Text(2), st.Text(3), st.Int64(4) != 0, st.Time(5).value_or(0)}; });
}

Result<bool> SlackStore::Seen(const std::string& event_id, const SlackMessage& m) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "SELECT 1 FROM pulse_slack_messages WHERE direction = 'in' AND"
      " ((team = ?1 AND channel = ?2 AND ts = ?3) OR (?4 != '' AND event_id = ?4)) LIMIT 1"));
  st.Bind(1, m.team).Bind(2, m.channel).Bind(3, m.ts).Bind(4, event_id);
  return st.Step();
}

Result<bool> SlackStore::RecordIncoming(const std::string& event_id, const SlackMessage& m, const std::string& account,
                                        int64_t now) {
  Transaction tx(db_);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(bool seen, Seen(event_id, m));
  if (seen) return false;
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "INSERT INTO pulse_slack_messages(team, channel, thread, ts, direction, event_id, user, who, text, at)"
      " VALUES(?, ?, ?, ?, 'in', ?, ?, ?, ?, ?)"));
  st.Bind(1, m.team).Bind(2, m.channel).Bind(3, m.BindingThread()).Bind(4, m.ts).Bind(5, event_id)
      .Bind(6, m.user).Bind(7, account).Bind(8, m.text).Bind(9, FormatTime(now));
  PULSE_RETURN_IF_ERROR(st.Run());
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return true;
}

Status SlackStore::RecordOutgoing(const std::string& team, const std::string& channel, const std::string& thread,
                                  const std::string& who, const std::string& text, int64_t now) {
  // Pulse's lines have no Slack ts of their own here; the row id keeps them apart.
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "INSERT INTO pulse_slack_messages(team, channel, thread, ts, direction, who, text, at)"
      " VALUES(?1, ?2, ?3, 'out-' || (SELECT IFNULL(MAX(id), 0) + 1 FROM pulse_slack_messages), 'out', ?4, ?5, ?6)"));
  st.Bind(1, team).Bind(2, channel).Bind(3, thread).Bind(4, who).Bind(5, text).Bind(6, FormatTime(now));
  return st.Run();
}

Result<std::vector<SlackThreadLine>> SlackStore::ThreadLines(const std::string& team, const std::string& channel,
                                                             const std::string& thread, const std::string& except_ts,
                                                             int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(
      "SELECT at, CASE WHEN who = '' THEN user ELSE who END, text FROM pulse_slack_messages"
      " WHERE team = ? AND channel = ? AND thread = ? AND ts != ? ORDER BY id DESC LIMIT ?"));
  st.Bind(1, team).Bind(2, channel).Bind(3, thread).Bind(4, except_ts).Bind(5, static_cast<int64_t>(limit));
  PULSE_ASSIGN_OR_RETURN(std::vector<SlackThreadLine> out, ReadRows(st, [](const Statement& st) { return SlackThreadLine{st.Text(0), st.Text(1), st.Text(2)}; }));
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace pulse
