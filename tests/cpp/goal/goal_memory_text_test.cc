#include "core/goal/goal_memory_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pulse {
namespace {

using namespace memory_text;

TEST(GoalMemoryText, LinesSplitAndJoinWithoutInventingALastLine) {
  EXPECT_EQ(SplitLines(""), std::vector<std::string>{});
  EXPECT_EQ(SplitLines("a"), std::vector<std::string>{"a"});
  EXPECT_EQ(SplitLines("a\n"), std::vector<std::string>{"a"});
  EXPECT_EQ(SplitLines("a\n\nb"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(SplitLines("a\r\nb\n"), (std::vector<std::string>{"a\r", "b"}));  // CR kept: Trim drops it
  EXPECT_EQ(JoinLines({"a", "", "b"}), "a\n\nb\n");
  EXPECT_EQ(JoinLines({}), "");
  EXPECT_EQ(Trim(" \t x y \r"), "x y");
  EXPECT_EQ(Trim(" \t\r"), "");
  EXPECT_EQ(Lower("Owner ANSWER"), "owner answer");
}

TEST(GoalMemoryText, HeadingsNameAKnownSectionIgnoringCaseAndSpace) {
  bool heading = false;
  const SectionInfo* s = HeadingSection("##   lessons  ", &heading);
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(heading);
  EXPECT_EQ(s->id, MemorySection::kLessons);
  EXPECT_EQ(HeadingSection("## Waiting on the owner", &heading)->id, MemorySection::kWaiting);
  // Other headings are headings, but of no known section.
  EXPECT_EQ(HeadingSection("## Notes", &heading), nullptr);
  EXPECT_TRUE(heading);
  EXPECT_EQ(HeadingSection("# Goal memory", &heading), nullptr);
  EXPECT_TRUE(heading);
  EXPECT_EQ(HeadingSection("###Lessons", &heading), nullptr);
  EXPECT_TRUE(heading);
  EXPECT_EQ(HeadingSection("- 2026-10-07 [result] ## Lessons", &heading), nullptr);
  EXPECT_FALSE(heading);
}

TEST(GoalMemoryText, EntriesAreFoundOnlyInKnownSectionsWithAKnownSource) {
  const std::vector<std::string> lines = SplitLines(
      "# Goal memory\n"
      "- 2026-10-01 [result] before any section\n"
      "## Lessons\n"
      "- 2026-10-02 [Pulse inference] kept\n"
      "  - 2026-10-03 [RESULT]   indented, odd case  \n"
      "- 2026-10-04 [guess] unknown source\n"
      "- 2026-1-05 [result] short date\n"
      "- 2026-10-06 [result]\n"
      "free text the owner wrote\n"
      "\n"
      "## Notes\n"
      "- 2026-10-07 [result] under an unknown heading\n"
      "## Open bets\n"
      "- 2026-10-08 [builder answer] a bet\n");
  int unparsed = -1;
  std::vector<Located> found = LocateEntries(lines, &unparsed);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].entry.text, "kept");
  EXPECT_EQ(found[0].entry.section, "Lessons");
  EXPECT_EQ(found[0].index, 3u);
  EXPECT_EQ(found[1].entry.source, "RESULT");
  EXPECT_EQ(found[1].entry.text, "indented, odd case");
  EXPECT_EQ(found[1].entry.line, "  - 2026-10-03 [RESULT]   indented, odd case  ");
  EXPECT_EQ(found[2].entry.section, "Open bets");
  EXPECT_EQ(found[2].entry.date, "2026-10-08");
  // Before a section, unknown source, bad date, no text, free text, unknown heading.
  EXPECT_EQ(unparsed, 6);
  EXPECT_EQ(LocateEntries(lines, nullptr).size(), 3u);
}

Located Entry(const std::string& section, const std::string& date, const std::string& source, const std::string& text,
              size_t index) {
  MemoryEntry e;
  e.section = section;
  e.date = date;
  e.source = source;
  e.text = text;
  return Located{e, index};
}

TEST(GoalMemoryText, DuplicatesDropPulsesOlderCopyAndNeverTheOwners) {
  std::vector<Located> entries = {
      Entry("Lessons", "2026-10-01", "Pulse inference", "same", 0),
      Entry("Lessons", "2026-10-03", "pulse inference", "same", 1),   // newer, source case differs
      Entry("Decisions and outcomes", "2026-10-01", "result", "same", 2),  // another section: not a duplicate
      Entry("Lessons", "2026-10-02", "result", "owned", 3),
      Entry("Lessons", "2026-10-05", "result", "owned", 4),
  };
  std::vector<bool> pulse = {true, true, true, false, true};
  std::vector<std::string> reasons(entries.size());
  std::set<size_t> drop = ChooseDrops(entries, pulse, &reasons);
  // The older Pulse copy goes; with the owner's line older, Pulse's newer copy goes.
  EXPECT_EQ(drop, (std::set<size_t>{0, 4}));
  EXPECT_EQ(reasons[0], "duplicate");
  EXPECT_EQ(reasons[4], "duplicate");
  EXPECT_EQ(reasons[3], "");
}

TEST(GoalMemoryText, OverTheLimitTheOldestPulseEntriesGoAndOwnerAnswersLast) {
  std::vector<Located> entries;
  std::vector<bool> pulse;
  // Two owner answers (oldest of all), five hand-written lines, and Pulse's lines.
  for (int i = 0; i < 2; ++i) {
    entries.push_back(Entry("Owner preferences and answers", "2026-01-0" + std::to_string(i + 1), "owner answer",
                            "answer " + std::to_string(i), entries.size()));
    pulse.push_back(true);
  }
  for (int i = 0; i < 5; ++i) {
    entries.push_back(Entry("Lessons", "2025-01-01", "result", "hand " + std::to_string(i), entries.size()));
    pulse.push_back(false);
  }
  const int total = kGoalMemoryMaxEntries + 3;
  for (int i = static_cast<int>(entries.size()); i < total; ++i) {
    char date[11];
    std::snprintf(date, sizeof date, "2026-%02d-%02d", 2 + i / 28, 1 + i % 28);
    entries.push_back(Entry("Lessons", date, "Pulse inference", "lesson " + std::to_string(i), entries.size()));
    pulse.push_back(true);
  }
  std::vector<std::string> reasons(entries.size());
  std::set<size_t> drop = ChooseDrops(entries, pulse, &reasons);
  // Three over: the three oldest Pulse inferences, not the older owner answers
  // nor the still older hand-written lines.
  EXPECT_EQ(drop, (std::set<size_t>{7, 8, 9}));
  EXPECT_NE(reasons[7].find("over the limit of 60"), std::string::npos);
  EXPECT_EQ(static_cast<int>(entries.size() - drop.size()), kGoalMemoryMaxEntries);

  // At the limit nothing goes.
  entries.resize(kGoalMemoryMaxEntries);
  pulse.resize(kGoalMemoryMaxEntries);
  reasons.assign(entries.size(), "");
  EXPECT_TRUE(ChooseDrops(entries, pulse, &reasons).empty());
}

TEST(GoalMemoryText, SectionAndSourceNamesAcceptTheirSpellings) {
  EXPECT_EQ(*ParseMemorySection("owner"), MemorySection::kOwner);
  EXPECT_EQ(*ParseMemorySection("  Owner Preferences and Answers "), MemorySection::kOwner);
  EXPECT_EQ(*ParseMemorySection("owner_answers"), MemorySection::kOwner);
  EXPECT_EQ(*ParseMemorySection("open bets"), MemorySection::kBets);
  EXPECT_EQ(*ParseMemorySection("waiting_on_the_owner"), MemorySection::kWaiting);
  Result<MemorySection> bad = ParseMemorySection("notes");
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("\"notes\""), std::string::npos);

  EXPECT_EQ(*ParseMemorySource("owner_answer"), MemorySource::kOwnerAnswer);
  EXPECT_EQ(*ParseMemorySource("Pulse-Inference"), MemorySource::kPulseInference);
  EXPECT_EQ(*ParseMemorySource("pulse"), MemorySource::kPulseInference);
  EXPECT_EQ(*ParseMemorySource("builder answer"), MemorySource::kBuilderAnswer);
  EXPECT_FALSE(ParseMemorySource("owner").ok());
  for (MemorySection s : AllMemorySections()) {
    EXPECT_EQ(*ParseMemorySection(MemorySectionKey(s)), s);
    EXPECT_EQ(*ParseMemorySection(MemorySectionTitle(s)), s);
  }
  EXPECT_EQ(AllMemorySections().size(), 5u);
}

TEST(GoalMemoryText, EmptyMemoryHasEverySectionAndNoEntries) {
  const std::string text = EmptyGoalMemory();
  ParsedMemory p = ParseGoalMemory(text);
  EXPECT_TRUE(p.entries.empty());
  EXPECT_EQ(p.unparsed_lines, 1);  // the explanation under the title
  for (MemorySection s : AllMemorySections()) {
    EXPECT_NE(text.find(std::string("\n## ") + MemorySectionTitle(s) + "\n"), std::string::npos);
  }
}

// The values stored hashes were made with: the offset basis is
// 1469598103934665603 (FNV's own has one more digit), kept so stored hashes
// stay valid.
TEST(GoalMemoryText, HashIsStableOverTheExactBytes) {
  EXPECT_EQ(MemoryHash(""), "fnv1a64:14650fb0739d0383");
  EXPECT_EQ(MemoryHash("a"), "fnv1a64:44bd8ad473cd9906");
  EXPECT_NE(MemoryHash("a\n"), MemoryHash("a"));
  EXPECT_NE(MemoryHash("a\r\n"), MemoryHash("a\n"));
}

TEST(GoalMemoryText, Utf8CheckNamesTheOffsetOfTheFirstBadByte) {
  EXPECT_TRUE(CheckUtf8("", "t").ok());
  EXPECT_TRUE(CheckUtf8("plain → text ✓ 𝄞", "t").ok());
  EXPECT_EQ(CheckUtf8("ab\xff", "goal.md").message(), "goal.md: not valid UTF-8 (byte offset 2)");
  EXPECT_EQ(CheckUtf8(std::string("a\0b", 3), "goal.md").message(),
            "goal.md: holds a NUL byte at offset 1, not text");
  EXPECT_FALSE(CheckUtf8("\xc0\xaf", "t").ok());          // overlong '/'
  EXPECT_FALSE(CheckUtf8("\xe0\x80\xaf", "t").ok());      // overlong, three bytes
  EXPECT_FALSE(CheckUtf8("\xed\xa0\x80", "t").ok());      // a surrogate
  EXPECT_FALSE(CheckUtf8("\xf4\x90\x80\x80", "t").ok());  // past U+10FFFF
  EXPECT_FALSE(CheckUtf8("\xe2\x82", "t").ok());          // cut short at the end
  EXPECT_FALSE(CheckUtf8("\x80", "t").ok());              // a lone continuation byte
  EXPECT_TRUE(CheckUtf8("\xf4\x8f\xbf\xbf", "t").ok());   // U+10FFFF itself
}

}  // namespace
}  // namespace pulse
