// What the command line says to a person: each command's --help (its flags
// without CLI11's type and default noise, one example, the exit codes), and
// the one-line error for a mistyped command or flag ("did you mean",
// pointing to that command's own --help).
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "server-shim/cli/cli.h"

namespace pulse::cli {
namespace {

// One example per command, by its path after `pulse`.
const std::map<std::string, std::string>& Examples() {
  static const std::map<std::string, std::string> kExamples = {
      {"", "pulse status --workspace ws"},
      {"observe", "pulse observe --workspace ws --workflow substack --metric subscribers --value 412 --source workflow_run --run-id r-0042"},
      {"finalize-run", "pulse finalize-run --workspace ws --workflow substack --run-dir ws/Workflow/substack/runs/iteration-42/default"},
      {"check", "pulse check --workspace ws --workflow substack --fail-on not_measured,off_track"},
      {"status", "pulse status --workspace ws --json"},
      {"info", "pulse info --workspace ws --workflow substack"},
      {"agent-log", "pulse agent-log show --workspace ws --workflow substack --status running"},
      {"agent-log started", "pulse agent-log started --workspace ws --workflow substack --session s-1 --agent gate-1 --name Gate"},
      {"agent-log completed", "pulse agent-log completed --workspace ws --workflow substack --session s-1 --agent gate-1 --duration 41s"},
      {"agent-log batch", "pulse agent-log batch --workspace ws --workflow substack < events.jsonl"},
      {"agent-log show", "pulse agent-log show --workspace ws --workflow substack --status stuck"},
      {"agent-log prune", "pulse agent-log prune --workspace ws --workflow substack --older-than 90 --dry-run"},
      {"agent-log export-otlp", "pulse agent-log export-otlp --workspace ws --workflow substack --since 2026-09-01T00:00:00Z --otlp-endpoint http://127.0.0.1:4318"},
      {"guard", "pulse guard --workspace ws --workflow substack --turn goal_check --tool run_workflow"},
      {"session", "pulse session open --workspace ws --workflow substack --turn goal_work"},
      {"session open", "pulse session open --workspace ws --workflow substack --turn goal_work"},
      {"session close", "pulse session close --workspace ws --workflow substack --session SESSION"},
      {"session resolve", "pulse session resolve --workspace ws --workflow substack --token-file token.txt"},
      {"session decisions", "pulse session decisions --workspace ws --workflow substack --json"},
      {"outbox", "pulse outbox list --workspace ws --workflow substack"},
      {"outbox list", "pulse outbox list --workspace ws --workflow substack --json"},
      {"decision", "pulse decision list --workspace ws --workflow substack --status pending"},
      {"decision create", "pulse decision create --workspace ws --workflow substack --question \"Resume the schedules?\" --option Yes --option No"},
      {"decision recommend", "pulse decision recommend --workspace ws --workflow substack --id 3 --option Yes --why \"nothing runs\" --confidence high"},
      {"decision answer", "pulse decision answer --workspace ws --workflow substack --id 3 --accept"},
      {"decision outcome", "pulse decision outcome --workspace ws --workflow substack --id 3 --result \"runs resumed; 2 readings since\""},
      {"decision list", "pulse decision list --workspace ws --workflow substack --status pending"},
      {"decision apply-defaults", "pulse decision apply-defaults --workspace ws --workflow substack"},
      {"memory", "pulse memory show --workspace ws --workflow substack"},
      {"memory show", "pulse memory show --workspace ws --workflow substack"},
      {"memory add", "pulse memory add --workspace ws --workflow substack --section learned --source owner --text \"counts on Mondays\""},
      {"memory consolidate", "pulse memory consolidate --workspace ws --workflow substack"},
      {"memory save", "pulse memory save --workspace ws --workflow substack --file goal.md"},
      {"serve", "pulse serve --workspace ws --port 8080"},
      {"ticks", "pulse ticks --workspace ws --workflow substack --limit 5"},
      {"token", "pulse token rotate --workspace ws"},
      {"token rotate", "pulse token rotate --workspace ws"},
      {"facts", "pulse facts --workspace ws --workflow substack --json"},
      {"conversation", "pulse conversation show --workspace ws --workflow substack"},
      {"conversation show", "pulse conversation show --workspace ws --workflow substack --generation 1"},
      {"conversation stop", "pulse conversation stop --workspace ws --workflow substack"},
      {"talk", "pulse talk --workspace ws --workflow substack --message \"Why is nothing measured?\" --account ana"},
      {"pass", "pulse pass --workspace ws --workflow substack --kind fast"},
      {"focus", "pulse focus list --workspace ws --workflow substack --open"},
      {"focus propose", "pulse focus propose --workspace ws --workflow substack --title \"Weekly growth experiment\" --end-date 2026-11-01"},
      {"focus add", "pulse focus add --workspace ws --workflow substack --title \"Weekly growth experiment\" --check \"subscribers +30 a week\""},
      {"focus confirm", "pulse focus confirm --workspace ws --workflow substack --id fa-1"},
      {"focus reject", "pulse focus reject --workspace ws --workflow substack --id fa-1"},
      {"focus drop", "pulse focus drop --workspace ws --workflow substack --id fa-1"},
      {"focus extend", "pulse focus extend --workspace ws --workflow substack --id fa-1 --end-date 2026-11-15"},
      {"focus track", "pulse focus track --workspace ws --workflow substack --id fa-1 --note \"+34 this week\""},
      {"focus close", "pulse focus close --workspace ws --workflow substack --id fa-1 --lesson \"Monday posts bring the most\""},
      {"focus list", "pulse focus list --workspace ws --workflow substack --json"},
      {"qa", "pulse qa list --workspace ws --workflow substack --status pending"},
      {"qa request", "pulse qa request --workspace ws --workflow substack --what \"growth_funnel records a reading\""},
      {"qa list", "pulse qa list --workspace ws --workflow substack --status pending"},
      {"requests", "pulse requests --workspace ws --workflow substack --kind qa"},
      {"ask", "pulse ask --workspace ws --workflow substack --caller builder --session b-1 --message \"Is the reading step safe to change?\""},
      {"pre-run", "pulse pre-run --workspace ws --workflow substack --step s1 --json"},
      {"migrate", "pulse migrate --workspace ws --workflow substack"},
      {"tool", "pulse tool --workspace ws --workflow substack --token-file token.txt --tool create_decision_request --args '{\"question\": \"Resume?\"}'"},
  };
  return kExamples;
}

const char kExitCodes[] =
    "Exit status: 0 success; 1 the command ran and found a problem it reports; 2 bad usage or bad input "
    "(one line on stderr says what).";

// Flags as a person reads them: "--port PORT", "--option TEXT ...",
// "--workspace TEXT (required)"; no "{false}", no validator ranges.
class PlainFormatter : public CLI::Formatter {
 public:
  // A negated flag ("!--no-tick") is named with its value ("--no-tick{false}").
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
    std::string name = CLI::Formatter::make_option_name(opt, is_positional);
    size_t brace;
    while ((brace = name.find('{')) != std::string::npos) {
      size_t end = name.find('}', brace);
      if (end == std::string::npos) break;
      name.erase(brace, end - brace + 1);
    }
    return name;
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string out;
    // A flag takes no value: nothing after its name.
    if (opt->get_type_size() != 0 && opt->get_expected_max() > 0 && !opt->get_type_name().empty()) {
      std::string label = opt->get_type_name();
      size_t cut = label.find_first_of(": ");
      if (cut != std::string::npos) label = label.substr(0, cut);
      if (label.empty()) label = "VALUE";
      out += " " + label;
      if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
      if (opt->get_required()) out += " (required)";
    }
    return out;
  }
};

void Decorate(CLI::App* app, const std::string& path, const std::shared_ptr<PlainFormatter>& fmt) {
  app->formatter(fmt);
  std::string footer;
  auto ex = Examples().find(path);
  if (ex != Examples().end()) footer += "\nExample:\n  " + ex->second + "\n";
  if (path.empty()) footer += "\nEach command's --help has its flags and an example.\n";
  footer += std::string("\n") + kExitCodes;
  app->footer(footer);
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) {
    Decorate(sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), fmt);
  }
}

size_t Distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The closest of `names` to `typed`, or "" when none is close.

std::vector<std::string> LongNames(CLI::App* app) {
  std::vector<std::string> out = {"--help"};
  for (const CLI::Option* o : app->get_options()) {
    for (const std::string& n : o->get_lnames()) out.push_back("--" + n);
  }
  return out;
}

std::vector<std::string> SubNames(CLI::App* app) {
  std::vector<std::string> out;
  for (CLI::App* s : app->get_subcommands([](CLI::App*) { return true; })) out.push_back(s->get_name());
  return out;
}

}  // namespace

std::string Nearest(const std::string& typed, const std::vector<std::string>& names) {
  std::string best;
  size_t best_d = std::max<size_t>(2, typed.size() / 3) + 1;
  for (const std::string& n : names) {
    size_t d = Distance(typed, n);
    if (d < best_d || (!n.empty() && n.rfind(typed, 0) == 0 && typed.size() >= 3 && d < best_d + 4 && best.empty())) {
      best_d = d;
      best = n;
    }
  }
  return best;
}

void FinishHelp(CLI::App& app) { Decorate(&app, "", std::make_shared<PlainFormatter>()); }

std::string UsageError(CLI::App& app, int argc, char** argv, const std::string& error) {
  CLI::App* cur = &app;
  std::string path = "pulse";
  std::string hint;
  for (int i = 1; i < argc; ++i) {
    std::string tok = argv[i];
    if (tok == "--") break;
    if (tok.rfind("-", 0) == 0) {
      std::string name = tok.substr(0, tok.find('='));
      CLI::Option* opt = cur->get_option_no_throw(name);
      if (opt == nullptr && name != "--help" && name != "-h" && name != "--version") {
        std::string near = Nearest(name, LongNames(cur));
        hint = "unknown flag " + name + " for " + path + (near.empty() ? "" : "; did you mean " + near + "?");
        break;
      }
      if (opt != nullptr && opt->get_type_size() != 0 && tok.find('=') == std::string::npos) ++i;  // its value
      continue;
    }
    CLI::App* sub = nullptr;
    for (CLI::App* s : cur->get_subcommands([](CLI::App*) { return true; })) {
      if (s->get_name() == tok) sub = s;
    }
    if (sub != nullptr) {
      cur = sub;
      path += " " + tok;
      continue;
    }
    std::vector<std::string> subs = SubNames(cur);
    if (!subs.empty()) {
      std::string near = Nearest(tok, subs);
      hint = "unknown command \"" + tok + "\" for " + path + (near.empty() ? "" : "; did you mean \"" + near + "\"?");
      break;
    }
  }
  std::string line = hint.empty() ? error : hint;
  return line + " (see " + path + " --help)";
}

}  // namespace pulse::cli
