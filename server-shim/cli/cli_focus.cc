// `pulse focus propose|add|confirm|reject|drop|extend|track|close|list`,
// `pulse qa request|list`, `pulse requests` and `pulse tool` (one guarded
// tool call for a session token: the same dispatch as the HTTP tool route
// and MCP). Each calls the API method the server and the browser use.
#include <iostream>
#include <optional>

#include "agent/tools/agent_api.h"
#include "core/api/api.h"
#include "core/base/json_limits.h"
#include "server-shim/cli/cli.h"

namespace pulse::cli {
namespace {

using nlohmann::json;

void PrintArea(const json& a) {
  std::cout << JsonText(a["id"]) << " [" << JsonText(a["status"]) << "] " << JsonText(a["title"]);
  if (!JsonText(a["end_date"]).empty()) std::cout << " (until " << JsonText(a["end_date"]) << ")";
  std::cout << "\n";
  if (!JsonText(a["check"]).empty()) std::cout << "    check: " << JsonText(a["check"]) << "\n";
  for (const json& t : a.value("tracking", json::array())) std::cout << "    " << JsonText(t["date"]) << ": " << JsonText(t["note"]) << "\n";
  if (!JsonText(a["lesson"]).empty()) std::cout << "    lesson: " << JsonText(a["lesson"]) << "\n";
}

void PrintAreas(State& state, const json& doc) {
  if (state.globals.json) {
    // The list document (docs/focus-areas.md): {"focus_areas": [{id, title, status, end_date, check, lesson}, ...]}.
    PrintJson(json{{"focus_areas", doc["focus_areas"]}});
    return;
  }
  if (doc["focus_areas"].empty()) std::cout << "no focus areas\n";
  for (const json& a : doc["focus_areas"]) PrintArea(a);
}

struct FocusFlags {
  std::string id, title, end_date, check, note, lesson;
};

// One `pulse focus <action>` subcommand and the flags it takes.
void AddFocusAction(CLI::App* focus, State& state, const char* action, const char* help, bool id, bool title,
                    bool end_date, const char* text_flag) {
  static std::vector<std::unique_ptr<FocusFlags>> all;  // CLI11 binds to the fields
  all.push_back(std::make_unique<FocusFlags>());
  FocusFlags* f = all.back().get();
  auto* sub = focus->add_subcommand(action, help);
  AddCommonOptions(sub, state);
  if (id) sub->add_option("--id", f->id, "the focus area's id (fa-N)")->required();
  if (title) {
    sub->add_option("--title", f->title, "what to focus on")->required();
    sub->add_option("--check", f->check, "how success is checked");
  }
  if (end_date) {
    auto* d = sub->add_option("--end-date", f->end_date, "the last day (YYYY-MM-DD), not in the past");
    if (std::string(action) == "extend") d->required();
  }
  std::string* text = nullptr;
  if (text_flag && std::string(text_flag) == "--note") text = &f->note;
  if (text_flag && std::string(text_flag) == "--lesson") text = &f->lesson;
  if (text) sub->add_option(text_flag, *text, text_flag == std::string("--note") ? "today's line" : "what was learned")->required();
  std::string name = action;
  sub->callback([&state, f, name] {
    json args{{"action", name}};
    for (auto [k, v] : {std::pair<const char*, std::string*>{"id", &f->id}, {"title", &f->title},
                        {"end_date", &f->end_date}, {"check", &f->check}, {"note", &f->note}, {"lesson", &f->lesson}}) {
      if (!v->empty()) args[k] = *v;
    }
    auto out = CallOnWorkflow(state, "focus.change", args);
    if (!out) return;
    if (state.globals.json) return PrintJson(*out);
    std::cout << name << ": ";
    if (out->contains("focus_area")) PrintArea((*out)["focus_area"]);
    if (out->contains("lesson_in_memory") && !(*out)["lesson_in_memory"].get<bool>()) {
      std::cout << "    the lesson did not reach goal memory: " << JsonText((*out)["memory_error"]) << "\n";
    }
  });
}

void SetupFocus(CLI::App& app, State& state) {
  CLI::App* focus = app.add_subcommand("focus", "focus areas (workflow.json pulse.focus_area_details): at most three open");
  focus->require_subcommand(1);
  AddFocusAction(focus, state, "propose", "Pulse's proposal of a focus area (the owner confirms it)", false, true, true, nullptr);
  AddFocusAction(focus, state, "add", "the owner's focus area, active at once", false, true, true, nullptr);
  AddFocusAction(focus, state, "confirm", "the owner confirms a proposed area", true, false, false, nullptr);
  AddFocusAction(focus, state, "reject", "the owner rejects a proposed area", true, false, false, nullptr);
  AddFocusAction(focus, state, "drop", "the owner drops an open area", true, false, false, nullptr);
  AddFocusAction(focus, state, "extend", "moves an open area's end date", true, false, true, nullptr);
  AddFocusAction(focus, state, "track", "today's progress line on an active area (one a day)", true, false, false, "--note");
  AddFocusAction(focus, state, "close", "closes an active area with its lesson (also to goal memory)", true, false, false, "--lesson");
  static bool open_only = false;
  auto* list = focus->add_subcommand("list", "the focus areas");
  AddCommonOptions(list, state);
  list->add_flag("--open", open_only, "only proposed and active ones");
  list->callback([&state] {
    auto out = CallOnWorkflow(state, "focus.list", json{{"open", open_only}});
    if (out) PrintAreas(state, *out);
  });
}
PULSE_REGISTER_COMMAND("focus", SetupFocus);

void PrintRequests(State& state, const json& doc) {
  if (state.globals.json) return PrintJson(doc);
  if (doc["requests"].empty()) std::cout << "no requests\n";
  for (const json& r : doc["requests"]) {
    std::cout << "#" << r["id"] << " " << JsonText(r["kind"]) << " [" << JsonText(r["status"]) << "] " << JsonText(r["what"]);
    if (!JsonText(r["why"]).empty()) std::cout << " (why: " << JsonText(r["why"]) << ")";
    std::cout << " at " << JsonText(r["created_at"]) << "\n";
    if (r.contains("result")) std::cout << "    result: " << JsonText(r["result"]) << "\n";
  }
}

void SetupQa(CLI::App& app, State& state) {
  CLI::App* qa = app.add_subcommand("qa", "QA requests: what a fix run should check, and their results");
  qa->require_subcommand(1);
  static std::string what, why;
  auto* req = qa->add_subcommand("request", "records a QA request");
  AddCommonOptions(req, state);
  req->add_option("--what", what, "what to check")->required();
  req->add_option("--why", why, "why");
  req->callback([&state] {
    json args{{"what", what}};
    if (!why.empty()) args["why"] = why;
    auto out = CallOnWorkflow(state, "qa.request", args);
    if (!out) return;
    if (state.globals.json) PrintJson(*out);
    else std::cout << (*out)["request_id"].get<int64_t>() << "\n";
  });
  static std::string status;
  auto* list = qa->add_subcommand("list", "QA requests, newest first");
  AddCommonOptions(list, state);
  list->add_option("--status", status, "pending, taken or done");
  list->callback([&state] {
    json args{{"kind", "qa"}};
    if (!status.empty()) args["status"] = status;
    auto out = CallOnWorkflow(state, "request.list", args);
    if (out) PrintRequests(state, *out);
  });
}
PULSE_REGISTER_COMMAND("qa", SetupQa);

void SetupRequests(CLI::App& app, State& state) {
  static std::string kind, status;
  auto* sub = app.add_subcommand("requests", "every request Pulse recorded (qa, fast, builder_ask), newest first");
  AddCommonOptions(sub, state);
  sub->add_option("--kind", kind, "qa, fast or builder_ask");
  sub->add_option("--status", status, "a status to keep");
  sub->callback([&state] {
    json args = json::object();
    if (!kind.empty()) args["kind"] = kind;
    if (!status.empty()) args["status"] = status;
    auto out = CallOnWorkflow(state, "request.list", args);
    if (out) PrintRequests(state, *out);
  });
}
PULSE_REGISTER_COMMAND("requests", SetupRequests);

void SetupTool(CLI::App& app, State& state) {
  static SessionTokenFlags token_flags;
  static std::string tool, args_text;
  auto* sub = app.add_subcommand("tool", "one tool call for a session token, held by the autonomy guard exactly as "
                                         "over HTTP or MCP (prints the outcome; exit 1 when refused)");
  AddCommonOptions(sub, state);
  AddSessionTokenOptions(sub, token_flags, "the session's token (pulse session open)");
  sub->add_option("--tool", tool, "the tool's name")->required();
  sub->add_option("--args", args_text, "the tool's arguments as a JSON object (default {})");
  sub->callback([&state] {
    Result<std::string> token = SessionToken(token_flags, /*required=*/true);
    if (!token.ok()) {
      state.exit_code = Fail(token.status());
      return;
    }
    json arguments = json::object();
    if (!args_text.empty()) {
      Result<json> parsed = ParseJsonBounded(args_text, "--args");
      if (!parsed.ok() || !parsed->is_object()) {
        state.exit_code = Fail(parsed.ok() ? Status::InvalidArgument("--args: must be a JSON object") : parsed.status());
        return;
      }
      arguments = *parsed;
    }
    auto out = CallOnWorkflow(state, "pulse.tool_call", json{{"token", *token}, {"tool", tool}, {"arguments", arguments}});
    if (!out) return;
    PrintJson(*out);
    if (out->value("refused", false)) {
      std::cerr << "pulse: " << tool << " refused: " << JsonText((*out)["reason"]) << std::endl;
      state.exit_code = 1;
    }
  });
}
PULSE_REGISTER_COMMAND("tool", SetupTool);

}  // namespace
}  // namespace pulse::cli
