// Decision and ask texts, as an agent or the owner sends them: the input's
// lines are the question, an option, Pulse's reason and the owner's answer.
// The decision goes through create, recommend, answer and list, and the list
// must render as JSON whatever bytes were sent.
//
// Property (a violation aborts): an accepted answer adds exactly one entry,
// on one line, to memory/goal.md, whatever the question, answer and note
// hold: no line break a reader may honour other than LF (CR, VT, FF, NEL,
// U+2028, U+2029) reaches the file, no fragment lands on a line of its own.
#include <algorithm>
#include <sstream>
#include <vector>

#include "core/goal/goal_memory.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

size_t Lines(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  using nlohmann::json;
  std::vector<std::string> parts(4);
  std::istringstream in(fuzz::Text(data, size));
  for (std::string& p : parts) std::getline(in, p);
  fuzz::Opened& o = fuzz::TheWorkflow();
  Result<json> made = CallApi(o.ctx, "decision.create", json{{"question", parts[0]}, {"options", {parts[1], "no"}}});
  if (made.ok()) {
    json id = (*made)["id"];
    (void)CallApi(o.ctx, "decision.recommend",
                  json{{"id", id}, {"option", parts[1]}, {"why", parts[2]}, {"confidence", "high"}});
    const std::string before = fuzz::ReadFileOrEmpty(o.w.paths.goal_memory);
    Result<json> answered = CallApi(o.ctx, "decision.answer", json{{"id", id}, {"text", parts[3]}, {"note", parts[2]}});
    if (answered.ok()) {
      const std::string after = fuzz::ReadFileOrEmpty(o.w.paths.goal_memory);
      for (const char* brk : {"\r", "\v", "\f", "\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9"}) {
        fuzz::Check(after.find(brk) == std::string::npos, "a line break other than LF reached goal.md", after);
      }
      // The first answer writes goal.md: a new, empty one plus its entry.
      const std::string base = before.empty() ? EmptyGoalMemory() : before;
      ParsedMemory was = ParseGoalMemory(base), is = ParseGoalMemory(after);
      fuzz::Check(is.entries.size() == was.entries.size() + 1, "an answer added other than one goal memory entry", after);
      fuzz::Check(is.unparsed_lines == was.unparsed_lines, "an answer left lines in goal.md that are not entries", after);
      fuzz::Check(Lines(after) == Lines(base) + 1, "an answer's entry is not one line", after);
    }
  }
  Result<json> list = CallApi(o.ctx, "decision.list", json{{"status", "all"}});
  if (list.ok()) (void)list->dump();
  return 0;
}
