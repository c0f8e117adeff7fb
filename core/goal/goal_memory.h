// GoalMemory: the workflow's goal memory, memory/goal.md.
//
// Format: "## <section>" headings for the five sections below, one entry per
// line: "- YYYY-MM-DD [owner answer | result | Pulse inference | builder answer] text".
// Everything else in the file (the owner's notes, unknown sections, lines Pulse
// cannot parse) is kept exactly where it is on every rewrite.
//
// Storage: natively the file is the source of truth (the owner may edit it by
// hand); every write goes through Env::WriteFileAtomic and is mirrored in the
// database (pulse_goal_memory), which is all the browser has (file_path empty).
// A rewrite never silently overwrites a concurrent edit: Pulse's changes are
// re-applied to the text as it is right before the write, and the owner's
// Save is refused when its base_hash is stale.
//
// Entries Pulse wrote are remembered by line (pulse_goal_memory_lines); an
// entry line Pulse did not write is the owner's and consolidation never drops
// it. Memory never writes soul.md: soul.md wins on conflict.
//
// REQUIRES: the caller holds a transaction on `db` around Add/Consolidate/Save
// (so a decision answer and its memory line commit together) and calls
// RestoreFile(previous_text) when that transaction fails to commit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/env.h"
#include "core/base/status.h"

namespace pulse {

constexpr int kGoalMemoryMaxEntries = 60;      // consolidate keeps at most this many
constexpr int kGoalMemoryConsolidatePast = 45;  // check/work turns are told to consolidate past this

enum class MemorySection { kOwner, kDecisions, kLessons, kBets, kWaiting };
enum class MemorySource { kOwnerAnswer, kResult, kPulseInference, kBuilderAnswer };

const char* MemorySectionTitle(MemorySection s);   // "Owner preferences and answers"
const char* MemorySectionKey(MemorySection s);    // "owner"
const std::vector<MemorySection>& AllMemorySections();
const char* MemorySourceLabel(MemorySource s);     // "owner answer"
// Accepts the title or a short key (owner, decisions, lessons, bets, waiting),
// case-insensitively; InvalidArgument naming the value otherwise.
Result<MemorySection> ParseMemorySection(const std::string& text);
// Accepts "owner answer" / "owner_answer" etc., case-insensitively.
Result<MemorySource> ParseMemorySource(const std::string& text);

struct MemoryEntry {
  std::string section;  // the section's title
  std::string date;     // YYYY-MM-DD
  std::string source;   // label as written in the file
  std::string text;
  std::string line;     // the line exactly as in the file
  bool hand_written = false;  // an entry Pulse did not write (the owner's): never dropped
};

struct ParsedMemory {
  std::vector<MemoryEntry> entries;  // entries in the five known sections
  int unparsed_lines = 0;            // non-blank lines that are not headings or entries
};

// Parses text (no I/O). hand_written is left false.
ParsedMemory ParseGoalMemory(const std::string& text);
// The text of a new, empty goal.md.
std::string EmptyGoalMemory();
// "fnv1a64:<16 hex>" of the text (change detection, not security).
std::string MemoryHash(const std::string& text);
// InvalidArgument naming `what` and the byte offset when text is not UTF-8.
Status CheckUtf8(const std::string& text, const std::string& what);

// One of Pulse's own lines as a consolidation by rewrite gives it.
struct MemoryLine {
  MemorySection section = MemorySection::kLessons;
  MemorySource source = MemorySource::kPulseInference;
  std::string text;
};

struct MemoryWrite {
  std::string text;           // the new text
  std::string hash;
  std::string previous_text;  // for RestoreFile when the caller's commit fails
  bool file_existed = false;
  int dropped = 0;            // consolidation only
};

// Goal memory as it reads now.
struct MemoryView {
  std::string text;
  std::vector<MemoryEntry> entries;  // in the five known sections, hand_written set
  int unparsed_lines = 0;
  bool from_file = false;  // goal.md natively; the database copy in the browser
  // Set when goal.md and the database copy were both edited since they last
  // matched: the database's text (text is the file's).
  std::optional<std::string> split_database_text;
};

class GoalMemory {
 public:
  // `file_path`: memory/goal.md; empty in the browser (the database mirror only).
  GoalMemory(Db& db, Env& env, std::string file_path);

  // The current text (file natively, else the mirror), the mirror brought up
  // to date, with its entries. Errors: an unreadable goal.md (a directory,
  // not UTF-8, I/O). A file and mirror both edited since they last matched
  // is not an error here: the view carries both (split_database_text).
  Result<MemoryView> View();

  // Adds one entry dated today (Env clock) at the end of its section.
  Result<MemoryWrite> Add(MemorySection section, MemorySource source, const std::string& text);
  // Drops duplicate Pulse entries (keeping the newest), then the oldest Pulse
  // entries (owner answers last) until at most kGoalMemoryMaxEntries remain;
  // owner lines and unparsed lines are never dropped. Dropped lines are kept
  // in pulse_goal_memory_archive.
  Result<MemoryWrite> Consolidate();
  // Consolidation by rewrite: `lines` (Pulse's own judgement of what to keep)
  // replace Pulse's own entries. The owner's lines — entries Pulse did not
  // write and [owner answer] entries — stay exactly as they are, where they
  // are, and so does everything that is not an entry. At most
  // kGoalMemoryMaxEntries entries in all (InvalidArgument beyond, saying how
  // many owner lines are kept). A line whose text is that of an entry it
  // replaces in the same section keeps that entry's line (date and source);
  // the others are dated today. Every dropped line goes to
  // pulse_goal_memory_archive and, natively, to goal.archive.md next to
  // goal.md (where the owner reads what the rewrite took out). An [owner
  // answer] source is refused: Pulse's lines are its own.
  Result<MemoryWrite> ConsolidateAs(const std::vector<MemoryLine>& lines);
  // The owner's edit: Conflict unless base_hash is the hash of the current text.
  Result<MemoryWrite> Save(const std::string& text, const std::string& base_hash);

  // Puts the file back as it was before a write whose transaction failed.
  void RestoreFile(const MemoryWrite& write);

  bool has_file() const { return !file_path_.empty(); }

 private:
  struct Mirror {
    bool exists = false;
    std::string text;
    std::string hash;
    std::string file_hash;  // hash of the file when file and mirror last matched
  };
  Result<Mirror> ReadMirror();
  Status WriteMirror(const std::string& text, const std::string& file_hash, const std::string& by);
  // The file's text; NotFound when missing.
  Result<std::string> ReadFileText();
  Result<bool> IsPulseLine(const std::string& line);
  Status RememberPulseLine(const std::string& line);
  // Dropped lines ({section, line + '\t' + reason}) into the archive table.
  Status Archive(const std::vector<std::pair<std::string, std::string>>& dropped);
  // ... and, natively, appended to goal.archive.md beside goal.md (the
  // rewrite's: the mechanical consolidation keeps the table only, so the
  // browser's module carries none of this).
  Status ArchiveFile(const std::vector<std::pair<std::string, std::string>>& dropped);
  // Writes `next` (made from `base`) unless the text changed under us, in
  // which case it returns Conflict and the caller re-applies its change.
  struct Current {
    std::string text;       // what readers see
    bool file_existed = false;
    std::string file_text;  // the file as read (natively)
    std::string file_hash;  // its hash, or "" when missing
    // File and database copy both edited since they last matched (only with
    // tolerate_split; text is then the file's).
    bool split = false;
    std::string mirror_text;
  };
  Result<Current> LoadCurrent(bool tolerate_split = false);
  Result<MemoryWrite> Write(const Current& base, const std::string& next, const std::string& by, bool* raced);
  // Re-applies `change` to the current text up to three times.
  template <typename Change>
  Result<MemoryWrite> Rewrite(Change change, const std::string& by);

  Db& db_;
  Env& env_;
  std::string file_path_;
};

// Schema of the mirror tables.
Status EnsureGoalMemorySchema(Db& db);

}  // namespace pulse
