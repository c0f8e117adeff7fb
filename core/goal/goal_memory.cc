#include "core/goal/goal_memory.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "core/goal/goal_memory_text.h"
#include "core/base/one_line.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;
using namespace memory_text;

Status EnsureGoalMemorySchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_goal_memory ("
       " id INTEGER PRIMARY KEY CHECK (id = 1),"
       " text TEXT NOT NULL,"
       " hash TEXT NOT NULL,"
       " file_hash TEXT NOT NULL DEFAULT '',"  // the file's hash when file and mirror last matched
       " updated_at TEXT NOT NULL,"
       " updated_by TEXT NOT NULL);"
       "CREATE TABLE IF NOT EXISTS pulse_goal_memory_lines ("  // entry lines Pulse wrote
       " line TEXT PRIMARY KEY,"
       " written_at TEXT NOT NULL);"
       "CREATE TABLE IF NOT EXISTS pulse_goal_memory_archive ("  // lines consolidation dropped
       " id INTEGER PRIMARY KEY,"
       " section TEXT NOT NULL,"
       " line TEXT NOT NULL,"
       " reason TEXT NOT NULL,"
       " dropped_at TEXT NOT NULL);"},
  };
  return ApplyMigrations(db, "goal_memory", kMigrations);
}

GoalMemory::GoalMemory(Db& db, Env& env, std::string file_path)
    : db_(db), env_(env), file_path_(std::move(file_path)) {}

Result<GoalMemory::Mirror> GoalMemory::ReadMirror() {
  PULSE_ASSIGN_OR_RETURN(Statement q, db_.Prepare("SELECT text, hash, file_hash FROM pulse_goal_memory WHERE id = 1"));
  PULSE_ASSIGN_OR_RETURN(bool has, q.Step());
  Mirror m;
  if (!has) return m;
  m.exists = true;
  m.text = q.Text(0);
  m.hash = q.Text(1);
  m.file_hash = q.Text(2);
  return m;
}

Status GoalMemory::WriteMirror(const std::string& text, const std::string& file_hash, const std::string& by) {
  PULSE_ASSIGN_OR_RETURN(Statement put, db_.Prepare(
      "INSERT INTO pulse_goal_memory(id, text, hash, file_hash, updated_at, updated_by) VALUES(1, ?, ?, ?, ?, ?)"
      " ON CONFLICT(id) DO UPDATE SET text = excluded.text, hash = excluded.hash, file_hash = excluded.file_hash,"
      " updated_at = excluded.updated_at, updated_by = excluded.updated_by"));
  put.Bind(1, text).Bind(2, MemoryHash(text)).Bind(3, file_hash).Bind(4, FormatTime(env_.NowSeconds())).Bind(5, by);
  return put.Run();
}

Result<std::string> GoalMemory::ReadFileText() {
  Result<std::string> text = env_.ReadFile(file_path_);
  if (!text.ok()) {
    if (text.status().code() == Code::kNotFound) return text.status();
    return Status(text.status()).WithContext("goal memory unreadable (nothing was changed)");
  }
  if (text->size() > kMaxMemoryBytes) {
    return Status::InvalidArgument(file_path_ + ": goal memory is larger than 1 MiB; trim it by hand (nothing was changed)");
  }
  PULSE_RETURN_IF_ERROR(CheckUtf8(*text, file_path_).WithContext("goal memory unreadable (nothing was changed)"));
  return text;
}

Result<GoalMemory::Current> GoalMemory::LoadCurrent(bool tolerate_split) {
  PULSE_ASSIGN_OR_RETURN(Mirror mirror, ReadMirror());
  Current cur;
  if (!has_file()) {
    cur.text = mirror.exists ? mirror.text : EmptyGoalMemory();
    return cur;
  }
  Result<std::string> file = ReadFileText();
  if (!file.ok()) {
    if (file.status().code() != Code::kNotFound) return file.status();
    // Missing file: the mirror's copy (if any) is the memory; the next write
    // puts the file back, so deleting goal.md never loses entries silently.
    cur.text = mirror.exists ? mirror.text : EmptyGoalMemory();
    return cur;
  }
  cur.file_existed = true;
  cur.file_text = *file;
  cur.file_hash = MemoryHash(*file);
  cur.text = *file;
  if (!mirror.exists) {
    PULSE_RETURN_IF_ERROR(WriteMirror(*file, cur.file_hash, "file"));
    return cur;
  }
  bool file_changed = cur.file_hash != mirror.file_hash;
  bool mirror_changed = mirror.hash != mirror.file_hash;
  if (!file_changed && mirror_changed) {
    cur.text = mirror.text;  // edited in the database copy since: it wins until the next write
  } else if (file_changed && mirror_changed && mirror.hash != cur.file_hash) {
    if (tolerate_split) {
      cur.split = true;
      cur.mirror_text = mirror.text;
      return cur;
    }
    return Status::Conflict(file_path_ +
                            ": goal memory was edited both in the file and in the database copy since they last "
                            "matched; save the version to keep with memory.save (nothing was changed)");
  } else if (file_changed) {
    PULSE_RETURN_IF_ERROR(WriteMirror(*file, cur.file_hash, "file"));  // the owner's hand edit
  }
  return cur;
}

Result<bool> GoalMemory::IsPulseLine(const std::string& line) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db_.Prepare("SELECT 1 FROM pulse_goal_memory_lines WHERE line = ?"));
  q.Bind(1, Trim(line, kLineBlanks));
  return q.Step();
}

Status GoalMemory::RememberPulseLine(const std::string& line) {
  PULSE_ASSIGN_OR_RETURN(Statement put, db_.Prepare(
      "INSERT INTO pulse_goal_memory_lines(line, written_at) VALUES(?, ?) ON CONFLICT(line) DO NOTHING"));
  put.Bind(1, Trim(line, kLineBlanks)).Bind(2, FormatTime(env_.NowSeconds()));
  return put.Run();
}

Result<MemoryWrite> GoalMemory::Write(const Current& base, const std::string& next, const std::string& by,
                                      bool* raced) {
  *raced = false;
  MemoryWrite w;
  w.text = next;
  w.hash = MemoryHash(next);
  w.file_existed = base.file_existed;
  w.previous_text = base.file_existed ? base.file_text : base.text;
  std::string file_hash;
  if (has_file()) {
    // Re-read right before writing: an edit that landed since we loaded makes
    // the caller apply its change again to the new text.
    Result<std::string> now = ReadFileText();
    if (!now.ok() && now.status().code() != Code::kNotFound) return now.status();
    std::string now_hash = now.ok() ? MemoryHash(*now) : "";
    if (now_hash != base.file_hash) {
      *raced = true;
      return Status::Conflict(file_path_ + ": goal memory changed while it was being written");
    }
    size_t slash = file_path_.rfind('/');
    if (slash != std::string::npos) PULSE_RETURN_IF_ERROR(env_.CreateDirs(file_path_.substr(0, slash)));
    PULSE_RETURN_IF_ERROR(env_.WriteFileAtomic(file_path_, next));
    file_hash = w.hash;
  } else {
    // The database copy only: keep the hash of the file it last matched, so
    // the native side sees this as an edit of the copy, not of the file.
    PULSE_ASSIGN_OR_RETURN(Mirror mirror, ReadMirror());
    file_hash = mirror.file_hash;
  }
  Status s = WriteMirror(next, file_hash, by);
  if (!s.ok()) {
    RestoreFile(w);
    return s;
  }
  return w;
}

void GoalMemory::RestoreFile(const MemoryWrite& write) {
  if (!has_file()) return;  // the database copy rolls back with the transaction
  Status s = env_.WriteFileAtomic(file_path_, write.previous_text);
  if (!s.ok()) env_.Log(LogLevel::kError, "goal memory: could not restore " + file_path_ + ": " + s.message());
}

template <typename Change>
Result<MemoryWrite> GoalMemory::Rewrite(Change change, const std::string& by) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    PULSE_ASSIGN_OR_RETURN(Current cur, LoadCurrent());
    PULSE_ASSIGN_OR_RETURN(std::string next, change(cur.text));
    bool raced = false;
    Result<MemoryWrite> w = Write(cur, next, by, &raced);
    if (w.ok() || !raced) return w;
  }
  return Status::Conflict(file_path_ + ": goal memory kept changing while Pulse wrote it; try again (nothing was changed)");
}

Result<MemoryWrite> GoalMemory::Add(MemorySection section, MemorySource source, const std::string& text) {
  // A tab is a space here; every other control (line breaks of any reader,
  // \x1c..\x1e that Python reads as breaks, C1, U+2028/U+2029) is refused:
  // an entry is one line for every reader, or a text could forge one.
  std::string body = text;
  std::replace(body.begin(), body.end(), '\t', ' ');
  body = Trim(body, kLineBlanks);
  if (body.empty()) return Status::InvalidArgument("memory text is empty");
  PULSE_RETURN_IF_ERROR(CheckUtf8(body, "memory text"));
  unsigned cp = 0;
  if (size_t at = FirstControl(body, &cp); at != std::string::npos) {
    return Status::InvalidArgument("memory text must be one line of text: it holds the control character " +
                                   CodePointName(cp) + " at byte " + std::to_string(at) + " (nothing was written)");
  }
  std::string line = "- " + FormatDate(env_.NowSeconds()) + " [" + MemorySourceLabel(source) + "] " + body;
  const std::string title = MemorySectionTitle(section);
  auto change = [&](const std::string& current) -> Result<std::string> {
    std::vector<std::string> lines = SplitLines(current);
    // Find the section; insert after its last non-blank line.
    size_t head = std::string::npos;
    for (size_t i = 0; i < lines.size(); ++i) {
      bool heading = false;
      const SectionInfo* s = HeadingSection(lines[i], &heading);
      if (s && title == s->title) {
        head = i;
        break;
      }
    }
    if (head == std::string::npos) {
      while (!lines.empty() && Trim(lines.back(), kLineBlanks).empty()) lines.pop_back();
      if (!lines.empty()) lines.push_back("");
      lines.push_back("## " + title);
      lines.push_back(line);
      return JoinLines(lines);
    }
    size_t last = head;
    for (size_t i = head + 1; i < lines.size(); ++i) {
      bool heading = false;
      HeadingSection(lines[i], &heading);
      if (heading) break;
      if (!Trim(lines[i], kLineBlanks).empty()) last = i;
    }
    lines.insert(lines.begin() + static_cast<long>(last + 1), line);
    return JoinLines(lines);
  };
  PULSE_RETURN_IF_ERROR(RememberPulseLine(line));
  return Rewrite(change, "pulse");
}

Result<MemoryWrite> GoalMemory::Consolidate() {
  int dropped_count = 0;
  std::vector<std::pair<std::string, std::string>> archived;  // section, line
  auto change = [&](const std::string& current) -> Result<std::string> {
    dropped_count = 0;
    archived.clear();
    std::vector<std::string> lines = SplitLines(current);
    std::vector<Located> entries = LocateEntries(lines, nullptr);
    std::vector<bool> pulse(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      PULSE_ASSIGN_OR_RETURN(bool p, IsPulseLine(entries[i].entry.line));
      pulse[i] = p;
    }
    std::vector<std::string> reasons(entries.size());
    std::set<size_t> drop = ChooseDrops(entries, pulse, &reasons);
    std::set<size_t> drop_lines;
    for (size_t i : drop) {
      drop_lines.insert(entries[i].index);
      archived.push_back({entries[i].entry.section, entries[i].entry.line + "\t" + reasons[i]});
    }
    std::vector<std::string> out;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!drop_lines.count(i)) out.push_back(lines[i]);
    }
    dropped_count = static_cast<int>(drop.size());
    return JoinLines(out);
  };
  PULSE_ASSIGN_OR_RETURN(MemoryWrite w, Rewrite(change, "pulse"));
  w.dropped = dropped_count;
  for (const auto& [section, line_reason] : archived) {
    size_t tab = line_reason.rfind('\t');
    PULSE_ASSIGN_OR_RETURN(Statement put, db_.Prepare(
        "INSERT INTO pulse_goal_memory_archive(section, line, reason, dropped_at) VALUES(?, ?, ?, ?)"));
    put.Bind(1, section).Bind(2, line_reason.substr(0, tab)).Bind(3, line_reason.substr(tab + 1))
        .Bind(4, FormatTime(env_.NowSeconds()));
    Status s = put.Run();
    if (!s.ok()) {
      RestoreFile(w);
      return s;
    }
  }
  return w;
}

Result<MemoryWrite> GoalMemory::Save(const std::string& text, const std::string& base_hash) {
  if (base_hash.empty()) {
    return Status::InvalidArgument("memory.save: base_hash is required (the hash memory.show returned)");
  }
  if (text.size() > kMaxMemoryBytes) return Status::InvalidArgument("memory.save: text is larger than 1 MiB");
  PULSE_RETURN_IF_ERROR(CheckUtf8(text, "memory.save: text"));
  // Lines end at LF (or CRLF); any other control would start a line for
  // some reader and not for others.
  for (size_t i = 0, line = 1; i < text.size(); ++i) {
    unsigned cp = 0;
    if (text[i] == '\n') {
      ++line;
      continue;
    }
    if (text[i] == '\t' || (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) continue;
    if (FirstControl(std::string_view(text).substr(i, 3), &cp) == 0) {
      return Status::InvalidArgument("memory.save: text holds the control character " + CodePointName(cp) +
                                     " on line " + std::to_string(line) +
                                     " (lines end at a line feed; nothing was changed)");
    }
  }
  PULSE_ASSIGN_OR_RETURN(Current cur, LoadCurrent(/*tolerate_split=*/true));
  std::string current_hash = MemoryHash(cur.text);
  // Split copies: the owner resolves it by saving over either one they saw.
  bool base_ok = base_hash == current_hash || (cur.split && base_hash == MemoryHash(cur.mirror_text));
  if (!base_ok) {
    return Status::Conflict("goal memory changed since it was loaded (base_hash " + base_hash + ", now " +
                            current_hash + "); reload it and apply the edit again (nothing was changed)");
  }
  bool raced = false;
  Result<MemoryWrite> w = Write(cur, text, "owner", &raced);
  if (!w.ok() && raced) {
    return Status::Conflict("goal memory changed while the edit was being saved; reload it and apply the edit "
                            "again (nothing was changed)");
  }
  return w;
}

Result<MemoryView> GoalMemory::View() {
  PULSE_ASSIGN_OR_RETURN(Current cur, LoadCurrent(/*tolerate_split=*/true));
  MemoryView v;
  v.text = cur.text;
  v.from_file = has_file();
  if (cur.split) v.split_database_text = cur.mirror_text;
  for (Located& l : LocateEntries(SplitLines(v.text), &v.unparsed_lines)) {
    PULSE_ASSIGN_OR_RETURN(bool p, IsPulseLine(l.entry.line));
    l.entry.hand_written = !p;
    v.entries.push_back(std::move(l.entry));
  }
  return v;
}

}  // namespace pulse
