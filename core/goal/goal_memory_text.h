// The goal.md format, shared by goal_memory_text.cc (parsing, sections,
// hash, UTF-8) and goal_memory.cc (the file and its database copy). Internal
// to goal memory: other modules use goal_memory.h.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "core/goal/goal_memory.h"
#include "core/base/text.h"

namespace pulse::memory_text {

struct SectionInfo {
  MemorySection id;
  const char* title;
  const char* key;
};
extern const SectionInfo kSections[5];

// Bigger files are not goal memory any more; refused rather than stored.
constexpr size_t kMaxMemoryBytes = 1 << 20;

// Goal memory trims blanks within a line only (Trim is core/base/text.h's).
inline constexpr std::string_view kLineBlanks = " \t\r";
std::vector<std::string> SplitLines(const std::string& text);
std::string JoinLines(const std::vector<std::string>& lines);
// The known section a "## ..." heading names, or nullptr (another heading).
const SectionInfo* HeadingSection(const std::string& line, bool* is_heading);

// Puts `line` after the last non-blank line of the section titled `title`,
// adding the section at the end when the text has none.
void InsertInSection(std::vector<std::string>* lines, const std::string& title, const std::string& line);

// An entry with where it sits, for rewrites.
struct Located {
  MemoryEntry entry;
  size_t index;  // line index
};
std::vector<Located> LocateEntries(const std::vector<std::string>& lines, int* unparsed);

// Which entries consolidation drops (entry indexes), each with its reason:
// duplicates among Pulse's entries (the newest kept), then the oldest Pulse
// entries over the limit, owner answers last. The owner's lines never.
std::set<size_t> ChooseDrops(const std::vector<Located>& entries, const std::vector<bool>& pulse,
                             std::vector<std::string>* reasons);

}  // namespace pulse::memory_text
