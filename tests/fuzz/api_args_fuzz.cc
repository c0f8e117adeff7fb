// The WASM facade's arguments: what the browser passes to Pulse.call — a
// method name and its arguments as JSON text — into the facade itself
// (wasm/pulse_facade.cc, plain C++ compiled natively here) over a workflow
// database opened in the scratch workspace, then the reply rendered as the
// bindings render it. The first byte picks the method; methods the browser
// build leaves out answer not_found there and run here.
//
// Property (a differential; a violation aborts): the answer is the same
// through the command line's path — the workflow opened from its folder,
// ServerContext, CallApi — and through the facade on a database of its own
// that has seen the same calls: both succeed with the same document, or both
// refuse with the same code and message. What may differ is masked: a
// session's token (random), goal memory's `storage` (the file natively, the
// database copy in the browser), and the goal facts' `sources` (the outside
// files a native check snapshots from the folder first: here all missing,
// listed natively, none in the browser). Methods whose answer depends on the
// workflow's folder by design, or list each side's own methods (kFolderMethods),
// are not compared; they run
// through the facade alone, on a third workflow, for the sanitizers.
#include <cstring>

#include "agent/tools/agent_api.h"
#include "core/base/json_limits.h"
#include "tests/fuzz/fuzz_util.h"
#include "wasm/pulse_facade.h"

namespace {

using nlohmann::json;
using pulse::fuzz::Check;

constexpr int64_t kNow = 1791363600;  // 2026-10-07T09:00:00Z, fuzz_util's clock

// The folder's files are the answer: outside files snapshotted (goal.facts),
// the plan and its review record (review.*), workflow.json edited in place
// (focus.*, workflow.migrate), the after-run hook's source hash. And the
// method list, which is each side's own (the server's has the agent's). And
// the guard, which the WebAssembly module refuses by design (it decides tool
// calls only in `pulse serve` and `pulse guard`).
const char* const kFolderMethods[] = {"goal.facts",       "review.state",       "focus.list",    "focus.change",
                                      "focus.expire",     "workflow.migrate",   "schedule.after_run",
                                      "pulse.methods",    "autonomy.guard"};

bool ComparedMethod(const std::string& method) {
  for (const char* m : kFolderMethods) {
    if (method == m) return false;
  }
  return true;
}

// The two sides, reset together so that they always hold the same calls.
struct Sides {
  pulse::fuzz::Scratch cli_ws, wasm_ws;
  std::unique_ptr<pulse::fuzz::Opened> cli, wasm;
  unsigned uses = 0;

  static std::unique_ptr<pulse::fuzz::Opened> Open(const pulse::fuzz::Scratch& scratch) {
    auto o = std::make_unique<pulse::fuzz::Opened>();
    std::error_code ignored;
    std::filesystem::remove_all(scratch.workspace() + "/Workflow/fz/db", ignored);
    std::filesystem::remove_all(scratch.workspace() + "/Workflow/fz/memory", ignored);
    pulse::Result<pulse::OpenedWorkflow> w = pulse::OpenWorkflow(o->env, scratch.workspace(), "fz");
    if (!w.ok()) abort();
    o->w = std::move(w).value();
    o->ctx = pulse::ServerContext(o->w, o->env);
    return o;
  }
  void Next() {
    if (cli && ++uses % 512 != 0) return;
    cli.reset();
    wasm.reset();
    cli = Open(cli_ws);
    wasm = Open(wasm_ws);
  }
};

Sides& TheSides() {
  static Sides sides;
  return sides;
}

// What may differ between the two paths, taken out of an answer.
void Mask(json& doc) {
  if (doc.is_object()) {
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (it.key() == "token" && it->is_string()) *it = "<token>";
      else if (it.key() == "storage" && it->is_string()) *it = "<storage>";
      else if (it.key() == "sources" && it->is_array()) *it = "<sources>";
      else Mask(*it);
    }
  } else if (doc.is_array()) {
    for (json& v : doc) Mask(v);
  }
}

std::string Shown(const pulse::Result<json>& r) {
  if (!r.ok()) return std::string(pulse::CodeName(r.status().code())) + ": " + r.status().message();
  json masked = *r;
  Mask(masked);
  return masked.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  if (size == 0) return 0;
  const std::vector<ApiMethod>& methods = CoreApi().methods();
  std::string method = methods[data[0] % methods.size()].name;
  const std::string args = fuzz::Text(data + 1, size - 1);
  if (!ComparedMethod(method)) {
    fuzz::Opened& o = fuzz::TheWorkflow();
    wasm::Facade facade(o.w.db->handle());
    Result<json> out = facade.Call(method, args, kNow);
    std::string reply = out.ok() ? json{{"result", *out}}.dump() : out.status().message();
    (void)reply;
    return 0;
  }
  Sides& sides = TheSides();
  sides.Next();
  wasm::Facade facade(sides.wasm->w.db->handle());
  Result<json> via_wasm = facade.Call(method, args, kNow);
  // The command line's path: the arguments as the facade reads them (the same
  // bound), then the method on the workflow opened from its folder.
  Result<json> parsed = ParseJsonBounded(args.empty() ? "{}" : args, method + ": arguments");
  Result<json> via_cli = parsed.ok() ? CallApi(sides.cli->ctx, method, *parsed) : Result<json>(parsed.status());
  const std::string a = Shown(via_cli), b = Shown(via_wasm);
  if (a == b) return 0;
  size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
  const size_t from = at > 200 ? at - 200 : 0;
  Check(false, "the command line's path and the WASM facade answer differently",
        method + " " + args.substr(0, 200) + "\n  first difference at byte " + std::to_string(at) +
            "\n  cli:  ..." + a.substr(from, 500) + "\n  wasm: ..." + b.substr(from, 500));
  return 0;
}
