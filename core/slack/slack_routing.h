// Which workflow's Pulse a Slack message is for, and whether its sender may
// talk to it. A message that names `<slug>-pulse` (or the older
// `<slug>-goal`, kept as an alias for one release) goes to that workflow's
// Pulse conversation; names are matched only against the workflows this
// Slack app reaches. Only people with access to the workflow (workflow.json
// `access`) are heard: the sender's Slack email maps to an account in
// .pulse/accounts.json, and that account must be in the access list.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/status.h"

namespace pulse {

// One workflow this Slack app reaches: its slug (workflow.json `slug`, else
// the folder name) and the folder it lives in.
struct SlackTarget {
  std::string slug;
  std::string workflow;
};

enum class SlugRouteKind {
  kNone,     // names no Pulse: a plain message (answered only in a bound thread)
  kOne,      // names exactly one known workflow's Pulse
  kUnknown,  // addresses `<name>-pulse` for a name this app does not reach
  kTwo,      // names two or more different workflows' Pulse
};

struct SlugRoute {
  SlugRouteKind kind = SlugRouteKind::kNone;
  SlackTarget target;                // kOne
  bool alias = false;                // kOne, named by `-goal`
  std::vector<std::string> named;    // every `<name>-pulse|-goal` found, in order, lowercase, without repeats
  std::string reply;                 // kUnknown, kTwo: the one reply the sender gets
};

// Finds `<slug>-pulse` / `<slug>-goal` words in `text` (Slack's markup such
// as <#C1|substack-pulse> included; case does not matter). A known name
// anywhere routes; an unknown name counts only when the message addresses
// it (its first word after any <@U…> mentions, or written @name-pulse), so
// a passing "heart-pulse" in a channel gets no reply.
SlugRoute RouteBySlug(std::string_view text, const std::vector<SlackTarget>& targets);

// The slug a workflow answers to: workflow.json `slug` when it is a valid
// name (lowercase letters, digits, '-' and '_'), else the folder name.
std::string WorkflowSlug(const nlohmann::json& workflow_json, const std::string& folder);

// How people see a workflow's Pulse: "Substack Pulse".
std::string SlackPulseName(const std::string& slug);

struct AccessEntry {
  std::string account;
  std::string role;  // owner, editor, viewer, ...
};

struct AccountEmails {
  std::string account;
  std::vector<std::string> emails;
};

// workflow.json `access`; a missing key is an empty list. InvalidArgument
// naming the entry for a malformed one.
Result<std::vector<AccessEntry>> ParseWorkflowAccess(const nlohmann::json& workflow_json, const std::string& source);

// .pulse/accounts.json (already parsed). InvalidArgument naming the entry.
Result<std::vector<AccountEmails>> ParseAccounts(const nlohmann::json& doc, const std::string& source);

struct SlackAccess {
  bool allowed = false;
  std::string account;
  std::string role;
  std::string reason;  // why not (for the log; the sender gets NoAccessReply)
};

// Email (case-insensitive) → account → access entry.
SlackAccess CheckSlackAccess(const std::string& email, const std::vector<AccountEmails>& accounts,
                             const std::vector<AccessEntry>& access);

// The one polite reply a sender without access gets.
std::string NoAccessReply(const std::string& slug);

// One earlier message of a bound thread.
struct SlackThreadLine {
  std::string at;       // RFC 3339
  std::string who;      // account, or the Pulse's name for its own replies
  std::string text;
};

// The text a Slack message carries into Pulse's conversation: where it came
// from, the thread's earlier messages in the binding (the newest that fit
// `max_bytes`, oldest first), then the message itself.
std::string SlackTurnMessage(const std::string& slug, const std::string& account, bool direct,
                             const std::vector<SlackThreadLine>& earlier, const std::string& text, size_t max_bytes);

}  // namespace pulse
