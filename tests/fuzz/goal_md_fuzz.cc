// memory/goal.md: the owner may edit it by hand, so it is outside input.
// Parsed, then saved through the API as an owner's edit is, then shown as the
// Pulse tab shows it.
//
// Property (a violation aborts): what memory.save accepted is what
// memory.show shows: the same text, byte for byte, in goal.md and in the
// answer, its hash, and the same entries in the same order as parsing the
// saved text gives; save's own answer is that same document.
#include "core/goal/goal_memory.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  using nlohmann::json;
  std::string text = fuzz::Text(data, size);
  ParsedMemory parsed = ParseGoalMemory(text);
  fuzz::Opened& o = fuzz::TheWorkflow();
  Result<json> before = CallApi(o.ctx, "memory.show", json::object());
  std::string base = before.ok() && (*before)["hash"].is_string() ? (*before)["hash"].get<std::string>() : "";
  Result<json> saved = CallApi(o.ctx, "memory.save", json{{"text", text}, {"base_hash", base}});
  Result<json> shown = CallApi(o.ctx, "memory.show", json::object());
  if (shown.ok()) (void)shown->dump();
  if (!saved.ok()) return 0;
  fuzz::Check(shown.ok(), "memory.show failed after a save it accepted", shown.ok() ? "" : shown.status().message());
  const json& s = *shown;
  fuzz::Check(s["text"] == text, "memory.show's text is not the saved text", s["text"].dump());
  fuzz::Check(s["hash"] == MemoryHash(text), "memory.show's hash is not the saved text's", s["hash"].dump());
  fuzz::Check(fuzz::ReadFileOrEmpty(o.w.paths.goal_memory) == text, "goal.md does not hold the saved text", "");
  const json& entries = s["entries"];
  fuzz::Check(entries.is_array() && entries.size() == parsed.entries.size(), "memory.show's entries are not the saved text's",
              entries.dump());
  for (size_t i = 0; i < parsed.entries.size(); ++i) {
    const MemoryEntry& e = parsed.entries[i];
    const json want = {e.section, e.date, e.source, e.text};
    const json got = {entries[i]["section"], entries[i]["date"], entries[i]["source"], entries[i]["text"]};
    fuzz::Check(got == want, "an entry shown differs from the one saved", got.dump() + " vs " + want.dump());
  }
  json answered = *saved;
  answered.erase("dropped");
  fuzz::Check(answered == s, "memory.save's answer is not what memory.show shows next", "");
  return 0;
}
