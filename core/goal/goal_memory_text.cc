// The goal.md format: the five sections, entry lines, the hash and the
// UTF-8 check; pure text, no I/O.
#include "core/goal/goal_memory_text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>


namespace pulse {

namespace memory_text {

const SectionInfo kSections[5] = {
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

const SectionInfo* HeadingSection(const std::string& line, bool* is_heading) {
  std::string t = Trim(line, kLineBlanks);
  *is_heading = t.rfind("#", 0) == 0;
  if (t.rfind("## ", 0) != 0) return nullptr;
  std::string title = Lower(Trim(t.substr(3), kLineBlanks));
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
  std::string line = Trim(raw, kLineBlanks);
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
  std::string text = Trim(line.substr(close + 1), kLineBlanks);
  if (text.empty()) return false;
  e->date = date;
  e->source = source;
  e->text = text;
  e->line = raw;
  return true;
}


void InsertInSection(std::vector<std::string>* lines, const std::string& title, const std::string& line) {
  // Find the section; insert after its last non-blank line.
  size_t head = std::string::npos;
  for (size_t i = 0; i < lines->size(); ++i) {
    bool heading = false;
    const SectionInfo* s = HeadingSection((*lines)[i], &heading);
    if (s && title == s->title) {
      head = i;
      break;
    }
  }
  if (head == std::string::npos) {
    while (!lines->empty() && Trim(lines->back(), kLineBlanks).empty()) lines->pop_back();
    if (!lines->empty()) lines->push_back("");
    lines->push_back("## " + title);
    lines->push_back(line);
    return;
  }
  size_t last = head;
  for (size_t i = head + 1; i < lines->size(); ++i) {
    bool heading = false;
    HeadingSection((*lines)[i], &heading);
    if (heading) break;
    if (!Trim((*lines)[i], kLineBlanks).empty()) last = i;
  }
  lines->insert(lines->begin() + static_cast<long>(last + 1), line);
}

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
    if (Trim(lines[i], kLineBlanks).empty()) continue;
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

std::set<size_t> ChooseDrops(const std::vector<Located>& entries, const std::vector<bool>& pulse,
                             std::vector<std::string>* reasons) {
  std::set<size_t> drop;  // entry indexes
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
      (*reasons)[older] = "duplicate";
      newest[key] = keep;
    } else if (pulse[keep]) {
      drop.insert(keep);
      (*reasons)[keep] = "duplicate";
      newest[key] = older;
    }
  }
  // 2. Over the limit: oldest Pulse entries first, owner answers last.
  int remaining = static_cast<int>(entries.size() - drop.size());
  std::vector<size_t> order;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (pulse[i] && !drop.count(i)) order.push_back(i);
  }
  // Entries of the same kind and date keep the file's order.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    bool oa = Lower(entries[a].entry.source) == "owner answer";
    bool ob = Lower(entries[b].entry.source) == "owner answer";
    if (oa != ob) return !oa;
    if (entries[a].entry.date != entries[b].entry.date) return entries[a].entry.date < entries[b].entry.date;
    return a < b;
  });
  for (size_t i : order) {
    if (remaining <= kGoalMemoryMaxEntries) break;
    drop.insert(i);
    (*reasons)[i] = "over the limit of " + std::to_string(kGoalMemoryMaxEntries) + " entries (oldest first)";
    --remaining;
  }
  return drop;
}

}  // namespace memory_text

using namespace memory_text;

const char* MemorySectionTitle(MemorySection s) {
  for (const SectionInfo& i : kSections) {
    if (i.id == s) return i.title;
  }
  return "";
}

const char* MemorySectionKey(MemorySection s) {
  for (const SectionInfo& i : kSections) {
    if (i.id == s) return i.key;
  }
  return "";
}

const std::vector<MemorySection>& AllMemorySections() {
  static const std::vector<MemorySection> kAll = [] {
    std::vector<MemorySection> all;
    for (const SectionInfo& i : kSections) all.push_back(i.id);
    return all;
  }();
  return kAll;
}

const char* MemorySourceLabel(MemorySource s) {
  for (const SourceInfo& i : kSources) {
    if (i.id == s) return i.label;
  }
  return "";
}

Result<MemorySection> ParseMemorySection(const std::string& text) {
  std::string t = Lower(Trim(text, kLineBlanks));
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
  std::string t = Lower(Trim(text, kLineBlanks));
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

}  // namespace pulse
