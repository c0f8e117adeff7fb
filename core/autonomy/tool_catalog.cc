#include "core/autonomy/tool_catalog.h"

#include <atomic>

#include <algorithm>
#include <cctype>
#include <iterator>

#include "core/autonomy/confusables.h"
#include "core/base/text.h"

namespace pulse {

const char* ToolClassName(ToolClass c) {
  switch (c) {
    case ToolClass::kRun: return "run";
    case ToolClass::kChange: return "change";
    case ToolClass::kOutward: return "outward";
    case ToolClass::kAlwaysRefused: return "always_refused";
    case ToolClass::kReadOnly: return "read_only";
    case ToolClass::kPulseRecord: return "pulse_record";
    case ToolClass::kFileWrite: return "file_write";
    case ToolClass::kShell: return "shell";
    case ToolClass::kPulseAsk: return "pulse_ask";
    case ToolClass::kOwnerAnswer: return "owner_answer";
  }
  return "unknown";
}

namespace {

using C = ToolClass;
using A = ArgCheck;

// The one list, data rather than code: one row per tool. The Run, Change,
// Outward and always-refused tools are the ones Pulse's turns are held by;
// the Builder plan tools, the read-only tools and the file/shell tools are
// the names a workflow platform uses (docs/autonomy.md lists them all).
const ToolEntry kCatalog[] = {
  // ---- Run (pulse.autonomy.run) ----
  {"execute_step", C::kRun, A::kNone, "runs one step"},
  {"run_full_workflow", C::kRun, A::kNone, "runs the whole workflow"},
  {"debug_step", C::kRun, A::kNone, "runs a step in debug mode"},
  {"send_step_message", C::kRun, A::kNone, "sends a message into a running step"},
  {"trigger_schedule", C::kRun, A::kNone, "starts a schedule's run now"},
  {"ask_platform_crew", C::kRun, A::kNone, "starts a platform Crew turn"},

  // ---- Change (pulse.autonomy.change): the Builder plan tools ----
  {"add_step", C::kChange, A::kNone, "Builder plan tool: adds a step"},
  {"insert_step", C::kChange, A::kNone, "Builder plan tool: inserts a step between others"},
  {"duplicate_step", C::kChange, A::kNone, "Builder plan tool: copies a step"},
  {"update_step", C::kChange, A::kNone, "Builder plan tool: edits a step (prompt, inputs, outputs)"},
  {"update_step_prompt", C::kChange, A::kNone, "Builder plan tool: edits a step's prompt"},
  {"update_step_config", C::kChange, A::kNone, "edits step_config.json for a step"},
  {"update_plan", C::kChange, A::kNone, "Builder plan tool: edits plan.json"},
  {"move_step", C::kChange, A::kNone, "Builder plan tool: reorders a step"},
  {"rename_step", C::kChange, A::kNone, "Builder plan tool: renames a step"},
  {"set_step_dependencies", C::kChange, A::kNone, "Builder plan tool: sets a step's dependencies"},
  {"set_step_model", C::kChange, A::kNone, "Builder plan tool: sets a step's model"},
  {"add_route", C::kChange, A::kNone, "Builder plan tool: adds a route"},
  {"update_route", C::kChange, A::kNone, "Builder plan tool: edits a route"},
  {"update_workflow_settings", C::kChange, A::kNone, "edits workflow.json settings"},
  {"create_schedule", C::kChange, A::kNone, "creates a schedule"},
  {"update_schedule", C::kChange, A::kNone, "edits a schedule (cron, enabled, after_run)"},
  {"pause_schedule", C::kChange, A::kNone, "pauses a schedule"},
  {"resume_schedule", C::kChange, A::kNone, "resumes a schedule"},
  {"configure_goal_metrics", C::kChange, A::kNone, "sets the goal's metrics"},
  {"restore_step_from_changelog", C::kChange, A::kNone, "restores a step from the plan changelog"},
  {"manage_workflow_webhook", C::kChange, A::kNone, "creates or edits the workflow's webhook"},

  // ---- Outward (pulse.autonomy.outward) ----
  {"send_slack_message", C::kOutward, A::kNone, "posts to Slack"},
  {"slack_post_message", C::kOutward, A::kNone, "Slack write: posts a message"},
  {"slack_reply_in_thread", C::kOutward, A::kNone, "Slack write: replies in a thread"},
  {"slack_update_message", C::kOutward, A::kNone, "Slack write: edits a message"},
  {"slack_delete_message", C::kOutward, A::kNone, "Slack write: deletes a message"},
  {"slack_add_reaction", C::kOutward, A::kNone, "Slack write: adds a reaction"},
  {"slack_remove_reaction", C::kOutward, A::kNone, "Slack write: removes a reaction"},
  {"slack_upload_file", C::kOutward, A::kNone, "Slack write: uploads a file"},
  {"slack_create_channel", C::kOutward, A::kNone, "Slack write: creates a channel"},
  {"slack_invite_to_channel", C::kOutward, A::kNone, "Slack write: invites people"},
  {"slack_set_channel_topic", C::kOutward, A::kNone, "Slack write: sets a topic"},
  {"send_email", C::kOutward, A::kNone, "sends an email"},
  {"gog", C::kOutward, A::kGoogleCli, "Google CLI: read-only subcommands allowed, writes are Outward"},
  {"notify_user", C::kOutward, A::kRecipients,
   "notifies the owner in the app (allowed); with any recipient-like key (to, email_cc, address, channel, ...) it is Outward"},

  // ---- Always refused in a guarded turn ----
  {"delete_step", C::kAlwaysRefused, A::kNone, "deletes a step"},
  {"delete_steps", C::kAlwaysRefused, A::kNone, "deletes steps"},
  {"delete_schedule", C::kAlwaysRefused, A::kNone, "deletes a schedule"},
  {"delete_route", C::kAlwaysRefused, A::kNone, "deletes a route"},
  {"delete_workflow", C::kAlwaysRefused, A::kNone, "deletes the workflow"},
  {"create_plan", C::kAlwaysRefused, A::kNone, "replaces the whole plan"},
  {"replace_plan", C::kAlwaysRefused, A::kNone, "replaces the whole plan"},
  {"run_migration", C::kAlwaysRefused, A::kNone, "runs a contract migration"},
  {"migrate_contract", C::kAlwaysRefused, A::kNone, "migrates the workflow contract"},
  {"upgrade_contract", C::kAlwaysRefused, A::kNone, "upgrades the workflow contract"},
  {"set_contract_version", C::kAlwaysRefused, A::kNone, "changes the contract version"},

  // ---- Read-only ----
  {"get_pulse_state", C::kReadOnly, A::kNone, "Pulse state views (goal_status, goal_work, module)"},
  {"get_pulse_finding_backlog", C::kReadOnly, A::kNone, "Pulse's open findings"},
  {"read_step", C::kReadOnly, A::kNone, "reads a step"},
  {"get_step", C::kReadOnly, A::kNone, "reads a step"},
  {"list_steps", C::kReadOnly, A::kNone, "lists steps"},
  {"get_plan", C::kReadOnly, A::kNone, "reads plan.json"},
  {"get_step_config", C::kReadOnly, A::kNone, "reads step_config.json"},
  {"get_run", C::kReadOnly, A::kNone, "reads a run"},
  {"list_runs", C::kReadOnly, A::kNone, "lists runs"},
  {"get_run_logs", C::kReadOnly, A::kNone, "reads a run's logs"},
  {"get_step_output", C::kReadOnly, A::kNone, "reads a step's output"},
  {"list_schedules", C::kReadOnly, A::kNone, "lists schedules"},
  {"get_schedule", C::kReadOnly, A::kNone, "reads a schedule"},
  {"get_goal_metrics", C::kReadOnly, A::kNone, "reads the goal's metrics"},
  {"read_goal_memory", C::kReadOnly, A::kNone, "reads memory/goal.md"},
  {"read_changelog", C::kReadOnly, A::kNone, "reads the plan changelog"},
  {"list_decision_requests", C::kReadOnly, A::kNone, "lists decision requests"},
  {"get_decision_request", C::kReadOnly, A::kNone, "reads a decision request"},
  {"get_agent_log", C::kReadOnly, A::kNone, "reads the background-agent log"},
  {"read_file", C::kReadOnly, A::kNone, "reads a file"},
  {"list_files", C::kReadOnly, A::kNone, "lists files"},
  {"list_directory", C::kReadOnly, A::kNone, "lists a directory"},
  {"search_files", C::kReadOnly, A::kNone, "searches files"},
  {"grep", C::kReadOnly, A::kNone, "searches file contents"},
  {"glob", C::kReadOnly, A::kNone, "finds files by pattern"},
  {"slack_read_channel", C::kReadOnly, A::kNone, "Slack read"},
  {"slack_read_thread", C::kReadOnly, A::kNone, "Slack read"},
  {"slack_list_channels", C::kReadOnly, A::kNone, "Slack read"},
  {"slack_search_messages", C::kReadOnly, A::kNone, "Slack read"},

  // ---- Pulse's own records (always allowed) ----
  {"record_pulse_goal_check", C::kPulseRecord, A::kNone, "records the goal check verdict"},
  {"record_workflow_review", C::kPulseRecord, A::kNone, "the Workflow Review's receipt (clean or broken)"},
  {"record_housekeeping", C::kPulseRecord, A::kNone, "a backup or publish done for the source hash"},
  {"record_pulse_recommendation", C::kPulseRecord, A::kNone, "attaches a recommendation to a decision"},
  {"record_pulse_goal_memory", C::kPulseRecord, A::kNone, "adds to or consolidates goal memory"},
  {"record_pulse_decision_outcome", C::kPulseRecord, A::kNone, "records what came of a decision"},
  {"record_pulse_focus_area", C::kPulseRecord, A::kNone, "proposes, tracks or closes a focus area"},
  {"record_pulse_qa_request", C::kPulseRecord, A::kNone, "asks for a QA fix run"},
  {"record_pulse_fast_request", C::kPulseRecord, A::kNone, "asks for an earlier full Pulse pass"},
  {"create_decision_request", C::kPulseRecord, A::kNone, "asks the owner (what every refusal points to)"},

  // ---- Files ----
  {"write_file", C::kFileWrite, A::kNone, "writes a file"},
  {"create_file", C::kFileWrite, A::kNone, "creates a file"},
  {"edit_file", C::kFileWrite, A::kNone, "edits a file"},
  {"multi_edit", C::kFileWrite, A::kNone, "edits a file in several places"},
  {"str_replace", C::kFileWrite, A::kNone, "replaces text in a file"},
  {"append_file", C::kFileWrite, A::kNone, "appends to a file"},
  {"apply_patch", C::kFileWrite, A::kNone, "applies a patch (paths read from its headers)"},
  {"delete_file", C::kFileWrite, A::kNone, "deletes a file"},
  {"move_file", C::kFileWrite, A::kNone, "moves or renames a file"},

  // ---- Shell and code execution ----
  {"bash", C::kShell, A::kNone, "runs a shell command"},
  {"shell", C::kShell, A::kNone, "runs a shell command"},
  {"run_shell_command", C::kShell, A::kNone, "runs a shell command"},
  {"execute_command", C::kShell, A::kNone, "runs a command"},
  {"run_terminal_cmd", C::kShell, A::kNone, "runs a terminal command"},
  {"execute_code", C::kShell, A::kNone, "runs code"},
  {"run_python", C::kShell, A::kNone, "runs Python code"},

  // ---- Asking ----
  {"ask_pulse", C::kPulseAsk, A::kNone, "asks the workflow's Pulse (never from Pulse itself or a Builder turn Pulse started)"},
  {"ask_builder", C::kPulseAsk, A::kAskBuilderMode, "Pulse asks the Builder chat: question allowed, fix is Change"},

  // ---- The owner's answer ----
  {"answer_decision_request", C::kOwnerAnswer, A::kNone, "answers a decision for the owner"},
  {"answer_human_input", C::kOwnerAnswer, A::kNone, "answers a human-input request for the owner"},
};

}  // namespace

const std::vector<ToolEntry>& ToolCatalog() {
  static const std::vector<ToolEntry> catalog(std::begin(kCatalog), std::end(kCatalog));
  return catalog;
}

const std::vector<ToolAlias>& ToolAliases() {
  static const std::vector<ToolAlias> aliases = {
      {"ask_goal_lead", "ask_pulse"},  // the pre-rename name, kept for one release
      {"run_workflow", "run_full_workflow"},
      {"run_step", "execute_step"},
      {"slack_send_message", "send_slack_message"},
      {"post_slack_message", "send_slack_message"},
      {"gogcli", "gog"},
      {"google", "gog"},
      {"migrate", "run_migration"},
      {"remove_step", "delete_step"},
      {"remove_schedule", "delete_schedule"},
  };
  return aliases;
}

namespace {

// Non-ASCII bytes left after FoldConfusables count as separators: a
// character the table does not know must not turn a catalogued tool into an
// unknown one.
bool IsSep(char c) {
  return c == '-' || c == '_' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
         static_cast<unsigned char>(c) >= 0x80 || c == '\0';
}

// Names the platform's own MCP bridge or function-calling layer puts in front
// of the catalog's tools: these keep the tool's class exactly.
bool IsPlatformNamespace(const std::string& ns) {
  return ns.empty() || ns == "functions" || ns == "pulse" || ns == "platform" || ns == "workflow" ||
         ns == "builder" || ns == "tools" || ns == "default_api";
}

// camelCase -> camel_case, separators -> '_', lowercase, runs collapsed.
std::string Canonical(std::string_view raw) {
  std::string out;
  char prev = 0;
  for (char c : raw) {
    if (IsSep(c)) {
      if (!out.empty() && out.back() != '_') out.push_back('_');
    } else {
      bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
      bool prev_lower = std::islower(static_cast<unsigned char>(prev)) != 0 ||
                        std::isdigit(static_cast<unsigned char>(prev)) != 0;
      if (upper && prev_lower && !out.empty() && out.back() != '_') out.push_back('_');
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    prev = c;
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  size_t start = 0;
  while (start < out.size() && out[start] == '_') ++start;
  return out.substr(start);
}

}  // namespace

namespace {
std::atomic<uint64_t> g_names_normalized{0};
}  // namespace

uint64_t ToolNamesNormalized() { return g_names_normalized.load(std::memory_order_relaxed); }

std::string NormalizeToolName(std::string_view raw, std::string* name_space) {
  g_names_normalized.fetch_add(1, std::memory_order_relaxed);
  std::string s = Trim(FoldConfusables(raw));
  std::string ns;
  // "mcp__<server>__<tool>" (coding CLIs' MCP bridge).
  std::string lower;
  for (char c : s) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower.rfind("mcp__", 0) == 0) {
    size_t end = lower.find("__", 5);
    if (end != std::string::npos) {
      ns = lower.substr(5, end - 5);
      s = s.substr(end + 2);
    }
  } else {
    // "<namespace>.<tool>", "<namespace>/<tool>", "<namespace>:<tool>".
    // Trailing separators ("update_step.") are not a namespace.
    while (!s.empty() && (s.back() == '.' || s.back() == '/' || s.back() == ':')) s.pop_back();
    size_t cut = s.find_last_of("./:");
    if (cut != std::string::npos && cut > 0) {
      ns = Canonical(s.substr(0, cut));
      s = s.substr(cut + 1);
    }
  }
  std::string name = Canonical(s);
  for (const ToolAlias& a : ToolAliases()) {
    if (name == a.alias) {
      name = a.name;
      break;
    }
  }
  if (name_space) *name_space = IsPlatformNamespace(ns) ? std::string() : Canonical(ns);
  return name;
}

ToolLookup LookupTool(std::string_view raw) {
  ToolLookup out;
  out.normalized = NormalizeToolName(raw, &out.name_space);
  for (const ToolEntry& e : ToolCatalog()) {
    if (out.normalized == e.name) {
      out.entry = &e;
      break;
    }
  }
  // A character no table knows is a separator to NormalizeToolName, so
  // "ꪀꪀmove_step" names move_step; it may as well stand for letters
  // ("remove_step"): then the look-alikes are read too.
  const std::string folded = FoldConfusables(raw);
  const bool unknown = std::any_of(folded.begin(), folded.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
  if (!out.entry || unknown) {
    out.lookalikes = LookalikeTools(raw);
    out.lookalikes.erase(std::remove(out.lookalikes.begin(), out.lookalikes.end(), out.entry), out.lookalikes.end());
  }
  return out;
}

namespace {

// Stands for one character or none in a loose name.
constexpr char kAnyChar = '\x01';

// The folded name with every character the fold left outside ASCII (and
// every byte that is not UTF-8) as kAnyChar.
std::string MarkUnknown(std::string_view folded) {
  std::string out;
  for (size_t i = 0; i < folded.size();) {
    unsigned char c = static_cast<unsigned char>(folded[i++]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    if (c >= 0xC0) {
      while (i < folded.size() && (static_cast<unsigned char>(folded[i]) & 0xC0) == 0x80) ++i;
    }
    out.push_back(kAnyChar);
  }
  return out;
}

// One letter for each ASCII look-alike class (the name already lowercased):
// 1 i | -> l, 0 -> o, rn -> m; and no word breaks ("deLete" folds to
// "de_lete": a capital look-alike inside a word reads as a camelCase break).
std::string LooseLetters(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '_') continue;
    if (c == '1' || c == 'i' || c == '|') c = 'l';
    else if (c == '0') c = 'o';
    else if (c == 'r' && i + 1 < s.size() && s[i + 1] == 'n') c = 'm', ++i;
    out.push_back(c);
  }
  return out;
}

// `p` matches `n`, kAnyChar in `p` standing for one character of `n` or none.
bool LooseMatch(const std::string& p, const std::string& n) {
  std::vector<char> row(n.size() + 1, 0), next(n.size() + 1, 0);
  row[0] = 1;
  for (char pc : p) {
    std::fill(next.begin(), next.end(), 0);
    for (size_t j = 0; j <= n.size(); ++j) {
      if (!row[j]) continue;
      if (pc == kAnyChar) {
        next[j] = 1;
        if (j < n.size()) next[j + 1] = 1;
      } else if (j < n.size() && n[j] == pc) {
        next[j + 1] = 1;
      }
    }
    row.swap(next);
  }
  return row[n.size()] != 0;
}

int Severity(ToolClass c) {
  switch (c) {
    case ToolClass::kAlwaysRefused: return 0;
    case ToolClass::kOwnerAnswer: return 1;
    case ToolClass::kRun: return 2;
    case ToolClass::kChange: return 3;
    case ToolClass::kOutward: return 4;
    default: return 5;
  }
}

}  // namespace

std::vector<const ToolEntry*> LookalikeTools(std::string_view raw) {
  std::vector<const ToolEntry*> out;
  if (raw.size() > 512) return out;  // far longer than any catalog name
  std::string pattern = LooseLetters(NormalizeToolName(MarkUnknown(FoldConfusables(raw))));
  size_t unknown = static_cast<size_t>(std::count(pattern.begin(), pattern.end(), kAnyChar));
  if (pattern.size() < 3 || unknown * 3 > pattern.size()) return out;
  auto add = [&](const char* name) {
    for (const ToolEntry& e : ToolCatalog()) {
      if (std::string(e.name) != name) continue;
      if (std::find(out.begin(), out.end(), &e) == out.end()) out.push_back(&e);
    }
  };
  for (const ToolEntry& e : ToolCatalog()) {
    if (LooseMatch(pattern, LooseLetters(e.name))) add(e.name);
  }
  for (const ToolAlias& a : ToolAliases()) {
    if (LooseMatch(pattern, LooseLetters(a.alias))) add(a.name);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ToolEntry* a, const ToolEntry* b) { return Severity(a->cls) < Severity(b->cls); });
  return out;
}

}  // namespace pulse
