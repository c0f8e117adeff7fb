// The words of an ask: the decision lines Pulse's ask turns end with, and
// what the caller is told to do next (core/asks/asks.h).
#include <cctype>

#include "core/asks/asks.h"
#include "core/base/time_util.h"
#include "core/base/text.h"

namespace pulse {

namespace {

// "- **Decision:** add a step" -> "decision: add a step" (key lowered, the
// marks around it gone); other lines come back trimmed.
std::string StripMarks(std::string line) {
  line = Trim(line);
  // The marks before the key, a bullet among them ("• **Decision:**").
  for (;;) {
    if (!line.empty() && (line[0] == '-' || line[0] == '*' || line[0] == '>' || line[0] == '_' || line[0] == '`' ||
                          line[0] == ' ')) {
      line.erase(0, 1);
    } else if (line.rfind("\xE2\x80\xA2", 0) == 0) {
      line.erase(0, 3);
    } else {
      break;
    }
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos || colon > 20) return line;
  std::string key = Lower(line.substr(0, colon));
  for (char& c : key) if (c == ' ') c = '_';
  while (!key.empty() && (key.back() == '*' || key.back() == '_' || key.back() == '`')) key.pop_back();
  std::string rest = line.substr(colon + 1);
  while (!rest.empty() && (rest[0] == '*' || rest[0] == '_' || rest[0] == '`' || rest[0] == ' ')) rest.erase(0, 1);
  while (!rest.empty() && (rest.back() == '*' || rest.back() == '`')) rest.pop_back();
  return key + ":" + Trim(rest);
}

void ParseOwnerNeeded(const std::string& value, DecisionLines* out) {
  std::string v = Lower(value);
  std::string rest;
  if (v.rfind("yes", 0) == 0) {
    out->owner_needed = true;
    rest = value.substr(3);
  } else if (v.rfind("no", 0) == 0) {
    out->owner_needed = false;
    rest = value.substr(2);
  } else {
    return;  // neither: as if the line were missing
  }
  rest = Trim(rest);
  while (!rest.empty() && (rest[0] == '-' || rest[0] == ',' || rest[0] == ':' || rest[0] == ' ')) rest.erase(0, 1);
  if (rest.size() >= 2 && rest.front() == '(' && rest.back() == ')') rest = rest.substr(1, rest.size() - 2);
  out->owner_needed_why = Trim(rest);
}

}  // namespace

DecisionLines ParseDecisionLines(const std::string& reply) {
  DecisionLines out;
  size_t start = 0;
  while (start <= reply.size()) {
    size_t end = reply.find('\n', start);
    if (end == std::string::npos) end = reply.size();
    std::string line = StripMarks(reply.substr(start, end - start));
    start = end + 1;
    auto value = [&](const char* key) -> std::optional<std::string> {
      std::string k = std::string(key) + ":";
      if (line.rfind(k, 0) != 0) return std::nullopt;
      std::string v = Trim(line.substr(k.size()));
      if (v.empty()) return std::nullopt;
      return v;
    };
    if (auto d = value("decision")) out.decision = *d;
    else if (auto q = value("question")) out.question = *q;
    else if (auto o = value("owner_needed")) ParseOwnerNeeded(*o, &out);
  }
  return out;
}

std::string DoneLine(const std::string& decision) {
  std::string lower = Lower(decision);
  size_t because = lower.find(" because ");
  std::string what = because == std::string::npos ? decision : decision.substr(0, because);
  std::string why = because == std::string::npos ? "…" : decision.substr(because + 9);
  while (!why.empty() && (why.back() == '.' || why.back() == ' ')) why.pop_back();
  while (!what.empty() && (what.back() == '.' || what.back() == ' ')) what.pop_back();
  return "Pulse recommended " + what + " because " + why + "; done.";
}

std::string AskRecord::Next() const {
  const std::string again = "ask again with call_id " + call_id + " for the answer";
  if (status == "queued") {
    return "wait: " + std::to_string(kAsksPerHour) + " asks started in the last hour; this one starts at " +
           (slot_at ? FormatTime(*slot_at) : std::string("the next free slot")) + "; " + again;
  }
  if (status == "running") return "wait: Pulse is still answering; " + again;
  if (direction == AskDirection::kToBuilder) return "";
  if (status != "answered") {
    return "Pulse could not answer (" + status + (error.empty() ? "" : ": " + error) +
           "); ask again later or ask the owner yourself";
  }
  if (lines.decided()) {
    if (!*lines.owner_needed) {
      return "act without asking the owner again; when it is done, tell the owner in one line: \"" +
             DoneLine(*lines.decision) + "\"";
    }
    return "ask the owner once, quoting Pulse: \"" + *lines.decision + "\"" +
           (lines.owner_needed_why.empty() ? "" : " (owner needed: " + lines.owner_needed_why + ")");
  }
  std::string q = lines.question ? *lines.question : answer;
  if (thread_open) {
    return "answer Pulse's question in thread " + thread_id + " (round " + std::to_string(round + 1) +
           " of at most " + std::to_string(kThreadMaxRounds) + "), then act on its decision: " + q;
  }
  return "thread " + thread_id + " used its " + std::to_string(kThreadMaxRounds) +
         " rounds without a decision: ask the owner once, quoting Pulse: \"" + q + "\"";
}

}  // namespace pulse
