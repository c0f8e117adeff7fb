#include "core/autonomy/autonomy.h"

#include <cstring>
#include <optional>

#include "core/asks/ask_builder.h"
#include "core/autonomy/confusables.h"
#include "core/base/sha256.h"
#include "core/autonomy/shell_args.h"
#include "core/autonomy/tool_args.h"

namespace pulse {

using nlohmann::json;

const char* GuardRuleName(GuardRule rule) {
  switch (rule) {
    case GuardRule::kWorkflowStep: return "workflow_step";
    case GuardRule::kRunLevel: return "run_level";
    case GuardRule::kOutwardLevel: return "outward_level";
    case GuardRule::kChangeLevel: return "change_level";
    case GuardRule::kUnclassified: return "unclassified";
    case GuardRule::kShellToolRoute: return "shell_tool_route";
    case GuardRule::kSoulMd: return "soul_md";
    case GuardRule::kProtectedPath: return "protected_path";
    case GuardRule::kGogReadOnly: return "gog_read_only";
    case GuardRule::kNotifyOwner: return "notify_owner";
    case GuardRule::kAlwaysRefused: return "always_refused";
    case GuardRule::kReadOnly: return "read_only";
    case GuardRule::kPulseRecord: return "pulse_record";
    case GuardRule::kFileWrite: return "file_write";
    case GuardRule::kNoPingPong: return "no_ping_pong";
    case GuardRule::kNoSelfAsk: return "no_self_ask";
    case GuardRule::kAskBuilderQuestion: return "ask_builder_question";
    case GuardRule::kAskBuilderFixForbidden: return "ask_builder_fix_forbidden";
    case GuardRule::kAskBuilderFixRunFailed: return "ask_builder_fix_run_failed";
    case GuardRule::kOwnerOnly: return "owner_only";
    case GuardRule::kSessionClosed: return "session_closed";
    case GuardRule::kHousekeepingOnly: return "housekeeping_only";
    case GuardRule::kAskBuilderPulseOnly: return "ask_builder_pulse_only";
  }
  return "unknown";
}

const char* GuardLevelName(GuardLevel level) {
  switch (level) {
    case GuardLevel::kNone: return "";
    case GuardLevel::kRun: return "run";
    case GuardLevel::kOutward: return "outward";
    case GuardLevel::kChange: return "change";
    case GuardLevel::kUnclassified: return "unclassified";
  }
  return "";
}

HeldLevels LevelsForTurn(TurnKind turn, const AutonomyLevels& levels, bool schedules_paused) {
  HeldLevels h;
  h.run = levels.run;
  h.outward = levels.outward;
  h.change = levels.change;
  h.unclassified_allowed = levels.unclassified == "allow";
  auto hold = [](Level* level, std::string* by, const std::string& why) {
    if (*level == Level::kAuto) *by = why;
    *level = Level::kAsk;
  };
  if (schedules_paused && IsGuardedTurn(turn)) {
    const std::string why = "the workflow's schedules are all paused: report-only, Run, Outward and Change held";
    hold(&h.run, &h.run_held_by, why);
    hold(&h.outward, &h.outward_held_by, why);
    hold(&h.change, &h.change_held_by, why);
    return h;
  }
  switch (turn) {
    case TurnKind::kRunFailed: {
      const std::string why = "a run_failed turn holds Run, Outward and Change";
      hold(&h.run, &h.run_held_by, why);
      hold(&h.outward, &h.outward_held_by, why);
      hold(&h.change, &h.change_held_by, why);
      break;
    }
    case TurnKind::kBuilderQuestion: {
      const std::string why = "a builder_question turn changes, runs and sends nothing";
      hold(&h.run, &h.run_held_by, why);
      hold(&h.outward, &h.outward_held_by, why);
      hold(&h.change, &h.change_held_by, why);
      break;
    }
    case TurnKind::kBuilderFix: {
      // Change only, and only as far as the workflow grants it: the fix was
      // sent under pulse.autonomy.change=auto, and lowering it revokes it.
      const std::string why = "a builder_fix turn may change, never run or send";
      hold(&h.run, &h.run_held_by, why);
      hold(&h.outward, &h.outward_held_by, why);
      break;
    }
    case TurnKind::kQaFix: {
      // A fix run checks and repairs what Pulse asked about; starting runs
      // stays the owner's or Pulse's own call.
      hold(&h.run, &h.run_held_by, "a qa_fix run never starts runs");
      break;
    }
    case TurnKind::kWorkflowReview: {
      // The review reads the plan and may mend it within the workflow's
      // change level; it precedes a run, so it never starts one itself.
      const std::string why = "a workflow_review turn reviews the plan: it never runs or sends";
      hold(&h.run, &h.run_held_by, why);
      hold(&h.outward, &h.outward_held_by, why);
      break;
    }
    case TurnKind::kHousekeeping: {
      // Backup and publish were ticked by the owner for this schedule; the
      // turn may do those and nothing else (HousekeepingToolAllowed).
      const std::string why = "a housekeeping turn only backs up and publishes";
      hold(&h.run, &h.run_held_by, why);
      hold(&h.change, &h.change_held_by, why);
      break;
    }
    default:
      break;
  }
  return h;
}

json DecisionToJson(const GuardDecision& d) {
  json out = {{"allowed", d.allowed}, {"reason", d.reason}, {"rule", GuardRuleName(d.rule)},
              {"tool", d.tool},       {"class", d.tool_class}};
  if (d.level != GuardLevel::kNone) out["level"] = GuardLevelName(d.level);
  return out;
}


// ---------------------------------------------------------------- the rules

namespace {

const char kInstead[] = "; create a decision request instead (create_decision_request)";

struct Ctx {
  TurnKind turn;
  HeldLevels held;
  std::string tool_display;
  bool nested = false;  // deciding a call a dispatch wrapper carries
};

std::string TurnPhrase(const Ctx& c) { return std::string("in this ") + TurnKindName(c.turn) + " turn"; }
// "this goal_work turn": for "..., which this goal_work turn never does".
std::string TurnNoun(const Ctx& c) { return TurnPhrase(c).substr(3); }

GuardDecision Make(bool allowed, GuardRule rule, std::string reason, GuardLevel level = GuardLevel::kNone) {
  GuardDecision d;
  d.allowed = allowed;
  d.rule = rule;
  d.reason = std::move(reason);
  d.level = level;
  return d;
}

// `what`: "update_step is a Change tool".
GuardDecision ByLevel(const Ctx& c, GuardLevel which, const std::string& what) {
  Level level = which == GuardLevel::kRun ? c.held.run : which == GuardLevel::kOutward ? c.held.outward : c.held.change;
  const std::string& held_by = which == GuardLevel::kRun       ? c.held.run_held_by
                               : which == GuardLevel::kOutward ? c.held.outward_held_by
                                                               : c.held.change_held_by;
  GuardRule rule = which == GuardLevel::kRun       ? GuardRule::kRunLevel
                   : which == GuardLevel::kOutward ? GuardRule::kOutwardLevel
                                                   : GuardRule::kChangeLevel;
  bool allowed = level == Level::kAuto;
  std::string setting = std::string("pulse.autonomy.") + GuardLevelName(which);
  std::string phrase = held_by.empty() ? setting + " is " + LevelName(level) + " " + TurnPhrase(c)
                                       : setting + " is held at ask " + TurnPhrase(c) + " (" + held_by + ")";
  return Make(allowed, rule,
              std::string(allowed ? "allowed: " : "refused: ") + what + " and " + phrase + (allowed ? "" : kInstead),
              which);
}

GuardDecision Unclassified(const Ctx& c, const std::string& what) {
  if (c.held.unclassified_allowed) {
    return Make(true, GuardRule::kUnclassified,
                "allowed: " + what + " and pulse.autonomy.unclassified is allow " + TurnPhrase(c),
                GuardLevel::kUnclassified);
  }
  return Make(false, GuardRule::kUnclassified,
              "refused: " + what + " and pulse.autonomy.unclassified is ask " + TurnPhrase(c) + kInstead,
              GuardLevel::kUnclassified);
}

// A normalised path for a reason line. Decoding may have produced bytes
// that are not text ("%ff"), and reasons are stored and sent as JSON, so
// anything but printable ASCII is shown as '?', and the line stays short.
std::string JoinSegments(const std::vector<std::string>& segs) {
  std::string out;
  for (const std::string& s : segs) out += (out.empty() ? "" : "/") + s;
  for (char& c : out) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  if (out.size() > 160) out = out.substr(0, 157) + "...";
  return out;
}

GuardDecision SoulRefusal(const Ctx& c, const std::string& how) {
  return Make(false, GuardRule::kSoulMd,
              "refused: " + c.tool_display + " " + how + " soul.md (the owner's goal), which " + TurnNoun(c) +
                  " never writes; propose the edit to the owner" + kInstead);
}

GuardDecision ProtectedRefusal(const Ctx& c, const std::string& what) {
  return Make(false, GuardRule::kProtectedPath,
              "refused: " + c.tool_display + " names " + what +
                  " (the workspace's .pulse/, a workflow's db/ and memory/goal.md are never a guarded turn's to "
                  "touch by path: the owner token, the database and goal memory are reached only through "
                  "Pulse's own tools)" + kInstead);
}

// Tools that may write what their arguments name: the file tools, and tools
// the catalog does not know (nothing says they only read).
bool MayWriteFiles(const ToolEntry* entry) { return !entry || entry->cls == ToolClass::kFileWrite; }

// Every path the arguments can name, for every tool but Pulse's own records
// (their strings are content Pulse stores, never a path it opens).
std::optional<GuardDecision> PathChecks(const Ctx& c, const ToolEntry* entry, const json& args) {
  if (entry && entry->cls == ToolClass::kPulseRecord) return std::nullopt;
  std::vector<std::vector<std::string>> all;
  bool writes = MayWriteFiles(entry);
  for (const std::string& p : ArgumentPaths(args)) {
    all.push_back(PathSegments(p));
    // A bare "db" or "memory" is a folder when a tool may move or delete it,
    // or when it is written as a path ("./db/").
    bool as_dir = writes || p.find_first_of("/\\") != std::string::npos;
    if (IsProtectedPath(all.back()) || (as_dir && IsProtectedDir(all.back()))) {
      return ProtectedRefusal(c, JoinSegments(all.back()));
    }
  }
  if (!writes) return std::nullopt;
  for (const auto& segs : all) {
    if (IsSoulPath(segs)) return SoulRefusal(c, "targets");
  }
  for (const auto& segs : all) {
    if (IsPlanPath(segs)) {
      GuardDecision d = ByLevel(c, GuardLevel::kChange,
                                c.tool_display + " on " + JoinSegments(segs) + " edits the plan or configuration (Change)");
      if (!d.allowed || entry) return d;
    }
  }
  return std::nullopt;
}

// Checks for text that may be run: shell tools and tools the catalog does
// not know (their arguments may carry a command or a script).
std::optional<GuardDecision> CommandChecks(const Ctx& c, const json& args) {
  std::vector<ArgString> strings = CollectStrings(args);
  for (const ArgString& s : strings) {
    if (CallsToolRoute(s.value)) {
      return Make(false, GuardRule::kShellToolRoute,
                  "refused: " + c.tool_display +
                      " calls the session's tool API (/s/<session>/tools/custom/, PULSE_TOOL_URL, MCP_API_URL, "
                      "MCP_API_TOKEN) from a script, which no guarded turn may do; call the tool directly, where it "
                      "is held like every call" + kInstead);
    }
  }
  for (const ArgString& s : strings) {
    if (MentionsProtectedPath(s.value)) return ProtectedRefusal(c, "a protected path in a command");
  }
  for (const ArgString& s : strings) {
    if (WritesSoulFromShell(s.value)) return SoulRefusal(c, "writes");
  }
  for (const ArgString& s : strings) {
    for (const std::vector<std::string>& call : GogInvocations(s.value)) {
      GogVerdict g = ClassifyGog(call);
      if (g.read_only) continue;
      GuardDecision d = ByLevel(c, GuardLevel::kOutward, c.tool_display + " runs gog " + g.summary + ", a Google write (Outward)");
      if (!d.allowed) return d;
    }
  }
  return std::nullopt;
}

GuardDecision Decide(const Ctx& c, const ToolEntry* entry, const json& args);

std::string LookalikeDisplay(const ToolEntry* entry) {
  return std::string(entry->name) + " (spelled with look-alike characters)";
}

// A name not in the catalog that may stand for catalogued ones: decided as
// each of them, the first refusal kept (a look-alike never allows a call).
// `*which`: the catalogued tool whose rule refused.
std::optional<GuardDecision> LookalikeChecks(const Ctx& c, const std::vector<const ToolEntry*>& lookalikes,
                                             const json& args, const ToolEntry** which) {
  for (const ToolEntry* entry : lookalikes) {
    Ctx lc = c;
    lc.tool_display = LookalikeDisplay(entry);
    GuardDecision d = Decide(lc, entry, args);
    if (!d.allowed) {
      *which = entry;
      return d;
    }
  }
  return std::nullopt;
}

// A wrapper ("call_tool", "invoke", anything unknown) carrying calls of
// catalogued tools, at any depth, is held as each of them: a refusal of any
// refuses the wrapper.
std::optional<GuardDecision> DispatchChecks(const Ctx& c, const json& args) {
  for (const DispatchedCall& call : DispatchedCalls(args)) {
    if (!call.name_type.empty()) {
      // {"name": ["delete_step"]}: a dispatcher may read any of these as a
      // name (JavaScript makes "delete_step" of that array); the guard does not guess.
      return Make(false, GuardRule::kUnclassified,
                  "refused: " + c.tool_display + " names the tool it dispatches with " + call.name_type + " under \"" +
                      JoinSegments({call.name}) + "\", not a string, so the guard cannot tell which tool it runs" +
                      kInstead,
                  GuardLevel::kUnclassified);
    }
    ToolLookup inner = LookupTool(call.name);
    std::vector<const ToolEntry*> entries = inner.lookalikes;
    if (inner.entry) entries.insert(entries.begin(), inner.entry);
    for (const ToolEntry* entry : entries) {
      Ctx ic = c;
      ic.tool_display = entry == inner.entry ? inner.normalized : LookalikeDisplay(entry);
      ic.nested = true;
      GuardDecision d = Decide(ic, entry, call.args);
      if (!d.allowed) {
        d.reason = "refused: " + c.tool_display + " dispatches " + d.reason.substr(std::strlen("refused: "));
        return d;
      }
    }
  }
  return std::nullopt;
}

GuardDecision DecideOutward(const Ctx& c, const ToolEntry& entry, const json& args) {
  const std::string& t = c.tool_display;
  if (entry.check == ArgCheck::kGoogleCli) {
    GogVerdict g = ClassifyGog(GogWords(args));
    std::string sub = g.summary.empty() ? std::string("with no subcommand") : g.summary;
    if (g.read_only) return Make(true, GuardRule::kGogReadOnly, "allowed: gog " + sub + " is a read-only Google command");
    return ByLevel(c, GuardLevel::kOutward,
                   "gog " + sub + " is a Google write (Outward; only read-only gog subcommands run without it)");
  }
  if (entry.check == ArgCheck::kRecipients) {
    std::string key = FindRecipientKey(args);
    std::string what = " reaches someone other than the owner (Outward)";
    if (key.empty()) {
      // Any other key may name where the message goes ("dm", "distribution"):
      // only the message's own keys leave it with the owner.
      key = FindNonMessageKey(args);
      what = " may name someone other than the owner (every key but the message's own counts; Outward)";
    }
    if (key.empty()) {
      return Make(true, GuardRule::kNotifyOwner, "allowed: " + t + " without recipients notifies the owner in the app");
    }
    return ByLevel(c, GuardLevel::kOutward, t + " with " + JoinSegments({key}) + what);
  }
  return ByLevel(c, GuardLevel::kOutward, t + " is an Outward tool");
}

GuardDecision DecideFileWrite(const Ctx& c, const json& args) {
  // soul.md, protected paths and plan files were decided by PathChecks.
  std::vector<std::string> paths = ArgumentPaths(args);
  if (paths.empty()) {
    return ByLevel(c, GuardLevel::kChange, c.tool_display + " with no path the guard can read is treated as a Change");
  }
  return Make(true, GuardRule::kFileWrite,
              "allowed: " + c.tool_display + " on " + JoinSegments(PathSegments(paths.front())) +
                  " writes no plan, configuration or soul.md");
}

GuardDecision DecideAskBuilderFix(const Ctx& c, const json& args) {
  // Folded like tool names: the Builder reads "dеlete" with a Cyrillic 'е'
  // or a hidden soft hyphen as the word it imitates.
  std::string text;
  for (const ArgString& s : CollectStrings(args)) text += AsciiLower(FoldConfusables(s.value)) + "\n";
  for (const char* word : {"soul.md", "delet", "migrat", "contract version", "contract_version", "create_plan",
                           "replace the plan", "replace_plan"}) {
    if (text.find(word) != std::string::npos) {
      return Make(false, GuardRule::kAskBuilderFixForbidden,
                  "refused: " + c.tool_display +
                      " fix touches soul.md, a deletion or a contract migration, which stay the owner's" + kInstead);
    }
  }
  if (c.turn == TurnKind::kRunFailed) {
    return Make(false, GuardRule::kAskBuilderFixRunFailed,
                "refused: " + c.tool_display +
                    " fix from a run_failed turn (questions only there; pulse.autonomy.change is held at ask)" + kInstead,
                GuardLevel::kChange);
  }
  return ByLevel(c, GuardLevel::kChange, c.tool_display + " fix asks the Builder chat to change the workflow (Change)");
}

GuardDecision DecidePulseAsk(const Ctx& c, const ToolEntry& entry, const json& args) {
  const std::string& t = c.tool_display;
  bool builder_turn = c.turn == TurnKind::kBuilderQuestion || c.turn == TurnKind::kBuilderFix;
  if (std::strcmp(entry.name, "ask_pulse") == 0) {
    if (builder_turn) {
      return Make(false, GuardRule::kNoPingPong,
                  "refused: " + t + " " + TurnPhrase(c) + " would ask back the Pulse that asked (no ping-pong)" + kInstead);
    }
    return Make(false, GuardRule::kNoSelfAsk, "refused: " + t + " " + TurnPhrase(c) + " would ask Pulse itself" + kInstead);
  }
  if (builder_turn) {
    return Make(false, GuardRule::kNoPingPong,
                "refused: " + t + " " + TurnPhrase(c) +
                    " would ask a Builder chat from the Builder chat Pulse asked (no ping-pong)" + kInstead);
  }
  // The turns around a run are not Pulse's: a review's break goes to its own
  // conversation and the stopped run, never into the owner's Builder chat,
  // and housekeeping only backs up and publishes. Refused before the Change
  // level is read, so a fix never becomes a "Make this fix" decision either.
  if (c.turn == TurnKind::kHousekeeping) {
    return Make(false, GuardRule::kHousekeepingOnly,
                "refused: " + t + " is neither a backup nor a publish action, the only things a housekeeping turn "
                "does" + kInstead);
  }
  if (c.turn == TurnKind::kWorkflowReview) {
    return Make(false, GuardRule::kAskBuilderPulseOnly,
                "refused: " + t + " " + TurnPhrase(c) +
                    " would reach the owner's Builder chat; a Workflow Review records its findings with "
                    "record_workflow_review" + kInstead);
  }
  std::string mode;
  bool has_question = false;
  if (args.is_object()) {
    for (auto it = args.begin(); it != args.end(); ++it) {
      std::string k = KeyCanon(it.key());
      if ((k == "mode" || k == "kind" || k == "type") && it.value().is_string()) mode = AsciiLower(it.value().get<std::string>());
      if (k == "question") has_question = true;
    }
  }
  if (mode == "question" || (mode.empty() && has_question)) {
    return Make(true, GuardRule::kAskBuilderQuestion,
                "allowed: " + t + " question asks the Builder chat, which then changes, runs and sends nothing");
  }
  return DecideAskBuilderFix(c, args);
}

GuardDecision DecideCatalogued(const Ctx& c, const ToolEntry& entry, const json& args) {
  const std::string& t = c.tool_display;
  switch (entry.cls) {
    case ToolClass::kRun:
      return ByLevel(c, GuardLevel::kRun, t + " is a Run tool");
    case ToolClass::kChange:
      return ByLevel(c, GuardLevel::kChange, t + " is a Change tool");
    case ToolClass::kOutward:
      return DecideOutward(c, entry, args);
    case ToolClass::kAlwaysRefused:
      return Make(false, GuardRule::kAlwaysRefused,
                  "refused: " + t + " is never allowed " + TurnPhrase(c) +
                      " (deleting steps or schedules, replacing the plan, migrations and contract-version changes "
                      "are the owner's, whatever pulse.autonomy says)" + kInstead);
    case ToolClass::kReadOnly:
      return Make(true, GuardRule::kReadOnly, "allowed: " + t + " is read-only");
    case ToolClass::kPulseRecord:
      return Make(true, GuardRule::kPulseRecord, "allowed: " + t + " is one of Pulse's own records");
    case ToolClass::kFileWrite:
      return DecideFileWrite(c, args);
    case ToolClass::kShell:
      if (auto d = CommandChecks(c, args)) return *d;
      return Unclassified(c, t + " runs commands the catalog cannot classify");
    case ToolClass::kPulseAsk:
      return DecidePulseAsk(c, entry, args);
    case ToolClass::kOwnerAnswer:
      return Make(false, GuardRule::kOwnerOnly,
                  "refused: " + t + " answers for the owner, which " + TurnNoun(c) +
                      " (an unattended session) never does; attach record_pulse_recommendation to the decision, or" +
                      std::string(kInstead).substr(1));
  }
  return Unclassified(c, t + " is not in the tool catalog");
}

GuardDecision Decide(const Ctx& c, const ToolEntry* entry, const json& args) {
  if (auto d = PathChecks(c, entry, args)) return *d;
  if (entry) return DecideCatalogued(c, *entry, args);
  if (auto d = CommandChecks(c, args)) return *d;
  if (!c.nested) {
    if (auto d = DispatchChecks(c, args)) return *d;
  }
  return Unclassified(c, c.tool_display + " is not in the tool catalog");
}

}  // namespace

GuardDecision DecideToolCall(TurnKind turn, const AutonomyLevels& levels, bool schedules_paused,
                             const std::string& tool, const json& args) {
  ToolLookup lk = LookupTool(tool);
  Ctx c{turn, LevelsForTurn(turn, levels, schedules_paused), lk.normalized.empty() ? std::string("(no name)") : lk.normalized};
  GuardDecision d;
  const ToolEntry* lookalike = nullptr;
  std::optional<GuardDecision> refused;
  // An unknown name is read as what it may imitate first; a catalogued one as itself (below).
  if (IsGuardedTurn(turn) && !lk.entry) refused = LookalikeChecks(c, lk.lookalikes, args, &lookalike);
  if (!IsGuardedTurn(turn)) {
    d = Make(true, GuardRule::kWorkflowStep,
             "allowed: a workflow_step session is not a Pulse turn; it keeps the platform's normal tools");
  } else if (refused) {
    d = *refused;
  } else {
    d = Decide(c, lk.entry, args);
    const bool reads = d.rule == GuardRule::kReadOnly || d.rule == GuardRule::kPulseRecord;
    if (turn == TurnKind::kHousekeeping && d.allowed && !reads &&
        lk.normalized.find("backup") == std::string::npos && lk.normalized.find("publish") == std::string::npos) {
      // The owner ticked backup and publish for this run; nothing else.
      d = Make(false, GuardRule::kHousekeepingOnly,
               "refused: " + lk.normalized + " is neither a backup nor a publish action, the only things a "
               "housekeeping turn does" + kInstead);
    }
    if (lk.entry && !lk.name_space.empty() && d.allowed) {
      // A catalog name under someone else's MCP server is that server's tool:
      // it must pass both its name's class and the unclassified rule.
      GuardDecision u = Unclassified(c, lk.normalized + " from the " + lk.name_space + " namespace is not the platform's own tool");
      if (!u.allowed) d = u;
    }
    if (lk.entry && d.allowed) {
      // Unknown characters may stand for letters: "ꪀꪀmove_step" may be remove_step too.
      if (auto other = LookalikeChecks(c, lk.lookalikes, args, &lookalike)) d = *other;
    }
  }
  const ToolEntry* entry = lookalike ? lookalike : lk.entry;
  d.tool = lookalike ? lookalike->name : lk.normalized;
  d.tool_namespace = lk.name_space;
  d.tool_class = entry ? ToolClassName(entry->cls) : "unclassified";
  return d;
}

// ------------------------------------------------------------ the dispatch

namespace {

Status RecordDecision(Db& db, const std::string& session, TurnKind turn, const std::string& tool_as_called,
                      const json& args, const GuardDecision& d, int64_t now) {
  GuardRecord r;
  r.session = session;
  r.turn = TurnKindName(turn);
  r.tool = tool_as_called;
  r.tool_normalized = d.tool;
  r.tool_class = d.tool_class;
  r.args_sha256 = Sha256Hex(args.dump());
  r.allowed = d.allowed;
  r.rule = GuardRuleName(d.rule);
  r.level = GuardLevelName(d.level);
  r.reason = d.reason;
  r.at = now;
  return AppendGuardRecord(db, r);
}

}  // namespace

Result<GuardDecision> GuardSessionCall(Db& db, const WorkflowConfig& config, const ToolSession& s,
                                       const std::string& tool, const json& args, int64_t now) {
  GuardDecision d = DecideToolCall(s.turn, config.autonomy, config.AllSchedulesPaused(), tool, args);
  if (d.allowed && d.tool == "ask_builder" && s.turn == TurnKind::kAskPulse) {
    // The chain guard: which chat started this ask_pulse turn is in the
    // asks table, not in the pure rule's arguments.
    std::string target;
    if (args.is_object() && args.contains("builder_session_id") && args["builder_session_id"].is_string()) {
      target = args["builder_session_id"].get<std::string>();
    }
    PULSE_ASSIGN_OR_RETURN(std::string chain, AskBuilderChainRefusal(db, s.id, target));
    if (!chain.empty()) {
      d.allowed = false;
      d.rule = GuardRule::kNoPingPong;
      d.level = GuardLevel::kNone;
      d.reason = "refused: ask_builder: " + chain + "; create a decision request instead (create_decision_request)";
    }
  }
  if (!s.usable()) {
    d.allowed = false;
    d.rule = GuardRule::kSessionClosed;
    d.level = GuardLevel::kNone;
    d.reason = "refused: session " + s.id + " is closed (its " + TurnKindName(s.turn) +
               " turn has ended); create a decision request instead (create_decision_request)";
  }
  PULSE_RETURN_IF_ERROR(RecordDecision(db, s.id, s.turn, tool, args, d, now));
  return d;
}

Result<GuardDecision> GuardBoundCall(Db& db, const WorkflowConfig& config, const std::string& session_id,
                                     const std::string& tool, const json& args, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(ToolSession s, LoadToolSession(db, session_id));
  return GuardSessionCall(db, config, s, tool, args, now);
}

Result<GuardDecision> GuardToolCall(Db& db, const WorkflowConfig& config, const std::string& session_id,
                                    const std::string& token, const std::string& tool, const json& args,
                                    int64_t now) {
  PULSE_ASSIGN_OR_RETURN(ToolSession s, AuthenticateSession(db, session_id, token));
  return GuardSessionCall(db, config, s, tool, args, now);
}

Result<GuardDecision> GuardTurnCall(Db* db, const WorkflowConfig& config, TurnKind turn, const std::string& tool,
                                    const json& args, int64_t now) {
  GuardDecision d = DecideToolCall(turn, config.autonomy, config.AllSchedulesPaused(), tool, args);
  if (db) {
    PULSE_RETURN_IF_ERROR(RecordDecision(*db, "", turn, tool, args, d, now));
  }
  return d;
}

}  // namespace pulse
