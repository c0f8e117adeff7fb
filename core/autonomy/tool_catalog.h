// The tool catalog: every tool the autonomy guard knows, with its class, as
// data in one place (tool_catalog.cc). The guard (autonomy.h) decides from the
// class and the turn's levels; this file only names and classifies.
//
// Names are normalised before lookup (NormalizeToolName): look-alike and
// invisible characters (FoldConfusables), case, surrounding whitespace,
// camelCase, '-' / ' ' vs '_', the platform's own MCP namespace prefixes,
// and aliases (ask_goal_lead -> ask_pulse), so a spelling variant never
// escapes its class. This is the one NormalizeToolName: the guard and the
// code that runs Pulse's own tools both use it, so a name the guard allowed
// names the same tool when it runs.
#pragma once

#include <cstdint>

#include <string>
#include <string_view>
#include <vector>

namespace pulse {

enum class ToolClass {
  kRun,            // starts work: held by pulse.autonomy.run
  kChange,         // changes the workflow: held by pulse.autonomy.change
  kOutward,        // reaches people or systems outside: held by pulse.autonomy.outward
  kAlwaysRefused,  // deletions, plan replacement, migrations, contract version: never in a guarded turn
  kReadOnly,       // reads only: always allowed
  kPulseRecord,    // Pulse's own records and decision requests: always allowed
  kFileWrite,      // file tools: soul.md refused, plan/config files are Change, drafts allowed
  kShell,          // shell / code execution: pulse.autonomy.unclassified, plus the tool-route check
  kPulseAsk,       // ask_pulse / ask_builder: the chain rules
  kOwnerAnswer,    // answering a decision for the owner: never in a guarded turn
};

const char* ToolClassName(ToolClass c);

// Some tools are classed by their arguments as well as their name.
enum class ArgCheck {
  kNone,
  kGoogleCli,        // gog: read-only subcommands allowed, writes are Outward
  kRecipients,       // notify_user: Outward when any recipient-like key is set (IsRecipientKey)
  kAskBuilderMode,   // ask_builder: question allowed, fix is Change
};

struct ToolEntry {
  const char* name;  // canonical, already normalised
  ToolClass cls;
  ArgCheck check;
  const char* note;  // one line for the README and autonomy.catalog
};

struct ToolAlias {
  const char* alias;
  const char* name;
};

const std::vector<ToolEntry>& ToolCatalog();
const std::vector<ToolAlias>& ToolAliases();

struct ToolLookup {
  std::string normalized;  // the name after normalisation and alias resolution
  std::string name_space;  // an MCP server or namespace prefix that is not the platform's ("" when none)
  const ToolEntry* entry = nullptr;  // null: not in the catalog (unclassified)
  // When `entry` is null, or the name holds a character no table knows (a
  // separator to NormalizeToolName, which may stand for letters): the other
  // catalogued tools the name may imitate, the most restrictive class first
  // (LookalikeTools). The guard decides the call as each of them too and
  // keeps a refusal; they never allow a call.
  std::vector<const ToolEntry*> lookalikes;
};

// "  Update-Step " -> "update_step"; "updateStep" -> "update_step";
// "mcp__platform__update_step" -> "update_step" (namespace "" since the
// platform's own); "mcp__github__create_issue" -> "create_issue" with
// namespace "github".
std::string NormalizeToolName(std::string_view raw, std::string* name_space = nullptr);
// How many names NormalizeToolName has read in this process (a test shows a
// tool call's name is read once on its way to the rule and the tool).
uint64_t ToolNamesNormalized();

ToolLookup LookupTool(std::string_view raw);

// Catalogued tools a name not in the catalog may stand for, by a looser
// reading than NormalizeToolName's: after folding, a character the fold
// does not know stands for any one character or none (at most a third of
// the name's characters, so a name in another script is not read as a
// short catalog name), and the ASCII look-alikes 1 l I i |, 0 O and rn m
// are one letter each. "ᴅelete_step" with a letter no table knows, and
// "de1ete_step", stand for delete_step. Most restrictive class first
// (always refused, owner answer, Run, Change, Outward, then the rest).
std::vector<const ToolEntry*> LookalikeTools(std::string_view raw);

}  // namespace pulse
