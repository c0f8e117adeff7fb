#include "core/slack/slack_routing.h"

#include <algorithm>
#include <cctype>

#include "core/base/utf8.h"
#include "core/base/text.h"

namespace pulse {

using nlohmann::json;

namespace {

bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

struct Word {
  std::string text;
  bool addressed = false;  // the message's first word, or written @word
};

// The words of `text` made of name characters. Leading user mentions
// (<@U123>) do not count as the first word: "@Pulse substack-pulse ..."
// addresses substack-pulse.
std::vector<Word> Words(std::string_view text) {
  std::vector<Word> out;
  size_t i = 0;
  bool first = true;
  while (i < text.size()) {
    if (text.compare(i, 2, "<@") == 0) {
      size_t end = text.find('>', i);
      if (end == std::string_view::npos) break;
      i = end + 1;
      continue;
    }
    if (!NameChar(text[i])) {
      if (!std::isspace(static_cast<unsigned char>(text[i])) && text[i] != '@' && text[i] != '<' && text[i] != '#' &&
          text[i] != '|') {
        first = false;
      }
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size() && NameChar(text[i])) ++i;
    const bool at = start > 0 && text[start - 1] == '@';
    out.push_back(Word{Lower(text.substr(start, i - start)), first || at});
    first = false;
  }
  return out;
}

std::string Join(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

SlugRoute RouteBySlug(std::string_view text, const std::vector<SlackTarget>& targets) {
  SlugRoute out;
  std::vector<std::string> known_slugs;  // distinct known workflows named, in order
  std::vector<std::string> unknown;
  for (const Word& w : Words(text)) {
    const bool pulse = EndsWith(w.text, "-pulse");
    const bool goal = !pulse && EndsWith(w.text, "-goal");
    if (!pulse && !goal) continue;
    const std::string name = w.text.substr(0, w.text.size() - (pulse ? 6 : 5));
    if (std::find(out.named.begin(), out.named.end(), w.text) == out.named.end()) out.named.push_back(w.text);
    auto t = std::find_if(targets.begin(), targets.end(), [&](const SlackTarget& x) { return Lower(x.slug) == name; });
    if (t == targets.end()) {
      if (w.addressed) unknown.push_back(w.text);
      continue;
    }
    if (std::find(known_slugs.begin(), known_slugs.end(), t->slug) == known_slugs.end()) {
      known_slugs.push_back(t->slug);
      if (known_slugs.size() == 1) {
        out.target = *t;
        out.alias = goal;
      }
    }
  }
  std::vector<std::string> reachable;
  for (const SlackTarget& t : targets) reachable.push_back(t.slug + "-pulse");
  if (known_slugs.size() >= 2) {
    out.kind = SlugRouteKind::kTwo;
    std::vector<std::string> names;
    for (const std::string& s : known_slugs) names.push_back(s + "-pulse");
    out.reply = "This message names more than one workflow's Pulse (" + Join(names) +
                "). Name one per message, and each Pulse answers in its own thread.";
    out.target = SlackTarget{};
    return out;
  }
  if (known_slugs.size() == 1) {
    out.kind = SlugRouteKind::kOne;
    return out;
  }
  if (!unknown.empty()) {
    out.kind = SlugRouteKind::kUnknown;
    out.reply = "No workflow here answers to " + unknown.front() + ". " +
                (reachable.empty() ? std::string("This Slack app reaches no workflow's Pulse.")
                                   : "The Pulses this Slack app reaches: " + Join(reachable) + ".");
  }
  return out;
}

std::string WorkflowSlug(const json& workflow_json, const std::string& folder) {
  auto it = workflow_json.is_object() ? workflow_json.find("slug") : workflow_json.end();
  if (it == workflow_json.end() || !it->is_string()) return folder;
  const std::string s = it->get<std::string>();
  if (s.empty() || s.size() > 64) return folder;
  for (char c : s) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' ||
          c == '_')) {
      return folder;
    }
  }
  return s;
}

std::string SlackPulseName(const std::string& slug) {
  std::string w = slug;
  if (!w.empty()) w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
  return w + " Pulse";
}

Result<std::vector<AccessEntry>> ParseWorkflowAccess(const json& doc, const std::string& source) {
  std::vector<AccessEntry> out;
  if (!doc.is_object() || !doc.contains("access") || doc["access"].is_null()) return out;
  const json& list = doc["access"];
  if (!list.is_array()) return Status::InvalidArgument(source + ": access: expected an array of {account, role}");
  for (size_t i = 0; i < list.size(); ++i) {
    const json& e = list[i];
    if (!e.is_object() || !e.contains("account") || !e["account"].is_string() || e["account"].get<std::string>().empty()) {
      return Status::InvalidArgument(source + ": access[" + std::to_string(i) + "]: expected {\"account\": \"...\", \"role\": \"...\"}");
    }
    AccessEntry a;
    a.account = e["account"].get<std::string>();
    a.role = e.contains("role") && e["role"].is_string() ? e["role"].get<std::string>() : "";
    out.push_back(a);
  }
  return out;
}

Result<std::vector<AccountEmails>> ParseAccounts(const json& doc, const std::string& source) {
  if (!doc.is_array()) return Status::InvalidArgument(source + ": expected an array of {account, emails}");
  std::vector<AccountEmails> out;
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& e = doc[i];
    const std::string where = source + ": [" + std::to_string(i) + "]";
    if (!e.is_object() || !e.contains("account") || !e["account"].is_string() || e["account"].get<std::string>().empty()) {
      return Status::InvalidArgument(where + ": expected {\"account\": \"...\", \"emails\": [...]}");
    }
    AccountEmails a;
    a.account = e["account"].get<std::string>();
    if (e.contains("emails")) {
      if (!e["emails"].is_array()) return Status::InvalidArgument(where + ": emails: expected an array of strings");
      for (const json& m : e["emails"]) {
        if (!m.is_string()) return Status::InvalidArgument(where + ": emails: expected an array of strings");
        a.emails.push_back(Lower(m.get<std::string>()));
      }
    }
    out.push_back(a);
  }
  return out;
}

SlackAccess CheckSlackAccess(const std::string& email, const std::vector<AccountEmails>& accounts,
                             const std::vector<AccessEntry>& access) {
  SlackAccess out;
  if (email.empty()) {
    out.reason = "Slack gave no email for the sender (the app needs the users:read.email scope)";
    return out;
  }
  const std::string e = Lower(email);
  for (const AccountEmails& a : accounts) {
    if (std::find(a.emails.begin(), a.emails.end(), e) == a.emails.end()) continue;
    out.account = a.account;
    for (const AccessEntry& x : access) {
      if (x.account == a.account) {
        out.allowed = true;
        out.role = x.role;
        return out;
      }
    }
    out.reason = "account \"" + a.account + "\" has no access to this workflow";
    return out;
  }
  out.reason = "no account in .pulse/accounts.json has the sender's email";
  return out;
}

std::string NoAccessReply(const std::string& slug) {
  return "Sorry, you don't have access to the " + slug + " workflow, so " + SlackPulseName(slug) +
         " can't take your message. Ask its owner to add your account to the workflow's access list.";
}

std::string SlackTurnMessage(const std::string& slug, const std::string& account, bool direct,
                             const std::vector<SlackThreadLine>& earlier, const std::string& text, size_t max_bytes) {
  std::string head = "From Slack (" + std::string(direct ? "a direct message to " : "a thread with ") +
                     slug + "-pulse), " + account + " wrote:\n" + text;
  if (head.size() >= max_bytes) return std::string(Utf8Prefix(head, max_bytes));
  if (head.size() + 64 >= max_bytes) return head;
  // The newest earlier lines that fit, oldest first.
  std::vector<std::string> lines;
  size_t room = max_bytes - head.size() - 64;
  for (auto it = earlier.rbegin(); it != earlier.rend(); ++it) {
    std::string line = "- " + it->at + " " + it->who + ": " + std::string(Utf8Prefix(it->text, 2000)) + "\n";
    if (line.size() > room) break;
    room -= line.size();
    lines.push_back(line);
  }
  if (lines.empty()) return head;
  std::string out = "Earlier in this Slack " + std::string(direct ? "conversation" : "thread") + " (oldest first):\n";
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) out += *it;
  return out + "\n" + head;
}

}  // namespace pulse
