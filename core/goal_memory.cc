#include "core/goal_memory.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "core/one_line.h"
#include "core/schema.h"
#include "core/time_util.h"

namespace pulse {

using nlohmann::json;

namespace {

struct SectionInfo {
  MemorySection id;
  const char* title;
  const char* key;
};
constexpr SectionInfo kSections[] = {
    {MemorySection::kOwner, "Owner preferences and answers", "owner"},
    {MemorySection::kDecisions, "Decisions and outcomes", "decisions"},
    {MemorySection::kLessons, "Lessons", "lessons"},
    {MemorySection::kBets, "Open bets", "bets"},
    {MemorySection::kWaiting, "Waiting on the owner", "waiting"},
};

struct SourceInfo {
  MemorySource id;
  const char* label;
};
constexpr SourceInfo kSources[] = {
    {MemorySource::kOwnerAnswer, "owner answer"},
    {MemorySource::kResult, "result"},
    {MemorySource::kPulseInference, "Pulse inference"},
    {MemorySource::kBuilderAnswer, "builder answer"},
};

// Bigger files are not goal memory any more; refused rather than stored.
constexpr size_t kMaxMemoryBytes = 1 << 20;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// The known section a "## ..." heading names, or nullptr (another heading).
const SectionInfo* HeadingSection(const std::string& line, bool* is_heading) {
  std::string t = Trim(line);
  *is_heading = t.rfind("#", 0) == 0;
  if (t.rfind("## ", 0) != 0) return nullptr;
  std::string title = Lower(Trim(t.substr(3)));
  for (const SectionInfo& s : kSections) {
    if (title == Lower(s.title)) return &s;
  }
  return nullptr;
}

bool IsDate(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// "- YYYY-MM-DD [source] text" with a known source, else false.
bool ParseEntryLine(const std::string& raw, MemoryEntry* e) {
  std::string line = Trim(raw);
  if (line.rfind("- ", 0) != 0) return false;
  std::string date = line.substr(2, 10);
  if (!IsDate(date)) return false;
  if (line.size() < 15 || line[12] != ' ' || line[13] != '[') return false;
  size_t close = line.find(']', 14);
  if (close == std::string::npos) return false;
  std::string source = line.substr(14, close - 14);
  bool known = false;
  for (const SourceInfo& s : kSources) known = known || Lower(source) == Lower(s.label);
  if (!known) return false;
  std::string text = Trim(line.substr(close + 1));
  if (text.empty()) return false;
  e->date = date;
  e->source = source;
  e->text = text;
  e->line = raw;
  return true;
}

// An entry with where it sits, for rewrites.
struct Located {
  MemoryEntry entry;
  size_t index;  // line index
};

std::vector<Located> LocateEntries(const std::vector<std::string>& lines, int* unparsed) {
  std::vector<Located> out;
  const SectionInfo* current = nullptr;
  if (unparsed) *unparsed = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    bool heading = false;
    const SectionInfo* s = HeadingSection(lines[i], &heading);
    if (heading) {
      current = s;  // an unknown heading ends the known section
      continue;
    }
    if (Trim(lines[i]).empty()) continue;
    MemoryEntry e;
    if (current && ParseEntryLine(lines[i], &e)) {
      e.section = current->title;
      out.push_back({e, i});
    } else if (unparsed) {
      ++*unparsed;
    }
  }
  return out;
}

}  // namespace

const char* MemorySectionTitle(MemorySection s) {
  for (const SectionInfo& i : kSections) {
    if (i.id == s) return i.title;
  }
  return "";
}

const char* MemorySourceLabel(MemorySource s) {
  for (const SourceInfo& i : kSources) {
    if (i.id == s) return i.label;
  }
  return "";
}

Result<MemorySection> ParseMemorySection(const std::string& text) {
  std::string t = Lower(Trim(text));
  for (const SectionInfo& s : kSections) {
    if (t == Lower(s.title) || t == s.key) return s.id;
  }
  if (t == "owner_preferences" || t == "owner preferences" || t == "owner_answers") return MemorySection::kOwner;
  if (t == "open_bets" || t == "open bets") return MemorySection::kBets;
  if (t == "waiting_on_owner" || t == "waiting_on_the_owner") return MemorySection::kWaiting;
  return Status::InvalidArgument("memory section \"" + text +
                                 "\" is not one of owner, decisions, lessons, bets, waiting "
                                 "(or the section titles)");
}

Result<MemorySource> ParseMemorySource(const std::string& text) {
  std::string t = Lower(Trim(text));
  std::replace(t.begin(), t.end(), '_', ' ');
  std::replace(t.begin(), t.end(), '-', ' ');
  for (const SourceInfo& s : kSources) {
    if (t == Lower(s.label)) return s.id;
  }
  if (t == "pulse") return MemorySource::kPulseInference;
  return Status::InvalidArgument("memory source \"" + text +
                                 "\" is not one of owner_answer, result, pulse_inference, builder_answer");
}

ParsedMemory ParseGoalMemory(const std::string& text) {
  ParsedMemory p;
  for (Located& l : LocateEntries(SplitLines(text), &p.unparsed_lines)) p.entries.push_back(std::move(l.entry));
  return p;
}

std::string EmptyGoalMemory() {
  std::string out =
      "# Goal memory\n"
      "\n"
      "What Pulse and the owner have learned about reaching this workflow's goal. soul.md wins where the two "
      "disagree. One line per entry: - YYYY-MM-DD [owner answer | result | Pulse inference | builder answer] "
      "text. Edit freely: lines Pulse cannot parse are kept.\n";
  for (const SectionInfo& s : kSections) out += std::string("\n## ") + s.title + "\n";
  return out;
}

std::string MemoryHash(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return std::string("fnv1a64:") + buf;
}

Status CheckUtf8(const std::string& text, const std::string& what) {
  size_t i = 0, n = text.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    int extra = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      if (c == 0) return Status::InvalidArgument(what + ": holds a NUL byte at offset " + std::to_string(i) + ", not text");
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return Status::InvalidArgument(what + ": not valid UTF-8 (byte offset " + std::to_string(i) + ")");
    }
    for (int k = 1; k <= extra; ++k) {
      if (i + k >= n || (static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) {
        return Status::InvalidArgument(what + ": not valid UTF-8 (byte offset " + std::to_string(i) + ")");
      }
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    }
    bool overlong = (extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return Status::InvalidArgument(what + ": not valid UTF-8 (byte offset " + std::to_string(i) + ")");
    }
    i += extra + 1;
  }
  return Status::OK();
}

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

Result<std::string> GoalMemory::Load() {
  PULSE_ASSIGN_OR_RETURN(Current cur, LoadCurrent());
  return cur.text;
}

Result<bool> GoalMemory::IsPulseLine(const std::string& line) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db_.Prepare("SELECT 1 FROM pulse_goal_memory_lines WHERE line = ?"));
  q.Bind(1, Trim(line));
  return q.Step();
}

Status GoalMemory::RememberPulseLine(const std::string& line) {
  PULSE_ASSIGN_OR_RETURN(Statement put, db_.Prepare(
      "INSERT INTO pulse_goal_memory_lines(line, written_at) VALUES(?, ?) ON CONFLICT(line) DO NOTHING"));
  put.Bind(1, Trim(line)).Bind(2, FormatTime(env_.NowSeconds()));
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
  std::string body = Trim(text);
  if (body.empty()) return Status::InvalidArgument("memory text is empty");
  if (HasLineBreak(body)) {
    return Status::InvalidArgument("memory text must be one line (it holds a line break)");
  }
  PULSE_RETURN_IF_ERROR(CheckUtf8(body, "memory text"));
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
      while (!lines.empty() && Trim(lines.back()).empty()) lines.pop_back();
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
      if (!Trim(lines[i]).empty()) last = i;
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
    std::set<size_t> drop;  // entry indexes
    std::vector<std::string> reasons(entries.size());
    // 1. Duplicates among Pulse's entries: keep the newest (the later line on a tie).
    std::map<std::tuple<std::string, std::string, std::string>, size_t> newest;
    for (size_t i = 0; i < entries.size(); ++i) {
      const MemoryEntry& e = entries[i].entry;
      auto key = std::make_tuple(e.section, Lower(e.source), e.text);
      auto it = newest.find(key);
      if (it == newest.end()) {
        newest[key] = i;
        continue;
      }
      size_t j = it->second;
      // Only Pulse's own lines are dropped; the kept one may be the owner's.
      size_t older = entries[j].entry.date <= e.date ? j : i;
      size_t keep = older == j ? i : j;
      if (pulse[older]) {
        drop.insert(older);
        reasons[older] = "duplicate";
        newest[key] = keep;
      } else if (pulse[keep]) {
        drop.insert(keep);
        reasons[keep] = "duplicate";
        newest[key] = older;
      }
    }
    // 2. Over the limit: oldest Pulse entries first, owner answers last.
    int remaining = static_cast<int>(entries.size() - drop.size());
    std::vector<size_t> order;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (pulse[i] && !drop.count(i)) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      bool oa = Lower(entries[a].entry.source) == "owner answer";
      bool ob = Lower(entries[b].entry.source) == "owner answer";
      if (oa != ob) return !oa;
      return entries[a].entry.date < entries[b].entry.date;
    });
    for (size_t i : order) {
      if (remaining <= kGoalMemoryMaxEntries) break;
      drop.insert(i);
      reasons[i] = "over the limit of " + std::to_string(kGoalMemoryMaxEntries) + " entries (oldest first)";
      --remaining;
    }
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

Result<json> GoalMemory::Show() {
  PULSE_ASSIGN_OR_RETURN(Current cur, LoadCurrent(/*tolerate_split=*/true));
  const std::string& text = cur.text;
  int unparsed = 0;
  std::vector<Located> located = LocateEntries(SplitLines(text), &unparsed);
  json entries = json::array();
  std::map<std::string, int> counts;
  for (Located& l : located) {
    PULSE_ASSIGN_OR_RETURN(bool p, IsPulseLine(l.entry.line));
    counts[l.entry.section]++;
    entries.push_back({{"section", l.entry.section},
                       {"date", l.entry.date},
                       {"source", l.entry.source},
                       {"text", l.entry.text},
                       {"hand_written", !p}});
  }
  json sections = json::array();
  for (const SectionInfo& s : kSections) {
    sections.push_back({{"title", s.title}, {"key", s.key}, {"entries", counts[s.title]}});
  }
  int n = static_cast<int>(located.size());
  return json{{"text", text},
              {"hash", MemoryHash(text)},
              {"entries", entries},
              {"entry_count", n},
              {"sections", sections},
              {"unparsed_lines", unparsed},
              {"limit", kGoalMemoryMaxEntries},
              {"consolidate_past", kGoalMemoryConsolidatePast},
              {"consolidate_due", n > kGoalMemoryConsolidatePast},
              {"over_limit", n > kGoalMemoryMaxEntries},
              {"storage", has_file() ? "file" : "database"},
              {"conflict", cur.split ? json{{"message",
                                            "goal.md and the database copy were both edited since they last matched; "
                                            "Pulse will not write until the owner saves the version to keep "
                                            "(memory.save with either hash)"},
                                           {"database_text", cur.mirror_text},
                                           {"database_hash", MemoryHash(cur.mirror_text)}}
                                     : json(nullptr)},
              {"rules",
               "at most 60 entries; check and work turns are told to consolidate past 45; hand edits and lines "
               "Pulse cannot parse are kept; soul.md wins on conflict"}};
}

}  // namespace pulse
