// Shared by the libFuzzer targets: a scratch workspace under $TMPDIR that
// lives as long as the fuzzing process (removed at exit), the input as text,
// and Check for the targets' properties. Nothing here may touch anything
// outside that directory.
#pragma once

#include <stdio.h>
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "core/api/api.h"
#include "core/base/env.h"
#include "core/store/workspace.h"

namespace pulse::fuzz {

inline std::string Text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A property of a target: when it does not hold, says which (with the first
// bytes of `detail`) and aborts, so libFuzzer reports the input as a crash
// and keeps it (scripts/fuzz.sh fails the run).
inline void Check(bool holds, const char* property, const std::string& detail) {
  if (holds) return;
  fprintf(stderr, "PROPERTY VIOLATED: %s\n  %.1200s%s\n", property, detail.c_str(), detail.size() > 1200 ? " ..." : "");
  abort();
}

// A reply the server sends (HTTP or MCP): a JSON object, bounded: within
// kMaxReplyBytes plus a few times the request (an answer may quote what was
// sent: a saved text and its entries); a refusal within kMaxRefusalBytes (its
// reason names the input, it does not carry it back: BoundedReason) with a
// one-line reason: HTTP's "error", JSON-RPC's error.message, a tool error's
// text (result.isError).
constexpr size_t kMaxRefusalBytes = 8192;
constexpr size_t kMaxReplyBytes = 256 * 1024;
inline void CheckReply(const std::string& body, size_t request_bytes, const char* where) {
  using nlohmann::json;
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  Check(!doc.is_discarded() && doc.is_object(), "a reply is not a JSON object", std::string(where) + ": " + body);
  Check(body.size() <= kMaxReplyBytes + 8 * request_bytes, "a reply is larger than its bound",
        std::string(where) + ": " + std::to_string(body.size()) + " bytes for a request of " + std::to_string(request_bytes));
  const json* reason = nullptr;
  if (doc.contains("error")) {
    reason = doc["error"].is_object() && doc["error"].contains("message") ? &doc["error"]["message"] : &doc["error"];
  } else if (doc.contains("result") && doc["result"].is_object() && doc["result"].value("isError", false)) {
    const json& content = doc["result"]["content"];
    Check(content.is_array() && !content.empty() && content[0].contains("text"), "a tool error has no text",
          std::string(where) + ": " + body);
    reason = &content[0]["text"];
  }
  if (!reason) return;
  Check(reason->is_string(), "a refusal's reason is not a text", std::string(where) + ": " + body);
  Check(body.size() <= kMaxRefusalBytes, "a refusal is larger than its bound",
        std::string(where) + ": " + std::to_string(body.size()) + " bytes: " + body);
  Check(reason->get<std::string>().find('\n') == std::string::npos, "a refusal's reason is not one line",
        std::string(where) + ": " + body);
}

// The file's bytes, or "" when it cannot be read (missing).
inline std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// One workflow, "fz", with a goal, in a fresh temporary workspace.
class Scratch {
 public:
  Scratch() {
    const char* tmp = getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/pulse-fuzz-XXXXXX";
    char* made = mkdtemp(pattern.data());
    if (!made) abort();
    root_ = made;
    std::filesystem::create_directories(root_ + "/Workflow/fz");
    std::ofstream(root_ + "/Workflow/fz/workflow.json")
        << R"({"pulse": {"enabled": true}, "goal": {"primary_metric": {"name": "subscribers", "route": "growth",)"
           R"( "target": 1000, "baseline": 200, "baseline_at": "2026-08-01T00:00:00Z", "deadline": "2026-12-31T00:00:00Z"}},)"
           R"( "schedules": [{"id": "daily", "cron": "0 9 * * *", "enabled": true}]})";
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  const std::string& workspace() const { return root_; }

 private:
  std::string root_;
};

inline Scratch& TheScratch() {
  static Scratch scratch;
  return scratch;
}

// The workflow opened once (database made on first use), as the command line
// and the server open it; the clock is fixed so that runs reproduce.
struct Opened {
  FixedClockEnv env{DefaultEnv(), 1791363600};  // 2026-10-07T09:00:00Z
  OpenedWorkflow w;
  ApiContext ctx;
};

inline std::unique_ptr<Opened> OpenFresh() {
  auto o = std::make_unique<Opened>();
  std::error_code ignored;
  std::filesystem::remove_all(TheScratch().workspace() + "/Workflow/fz/db", ignored);
  std::filesystem::remove_all(TheScratch().workspace() + "/Workflow/fz/memory", ignored);
  Result<OpenedWorkflow> w = OpenWorkflow(o->env, TheScratch().workspace(), "fz");
  if (!w.ok()) abort();
  o->w = std::move(w).value();
  o->ctx = ApiContext{o->w.db.get(), &o->env, o->w.paths.name, o->w.config, o->w.paths.dir};
  return o;
}

// Writes `text` as the scratch workflow's file `rel` (its folders made), as
// the platform or a person leaves the outside files Pulse reads.
inline void WriteWorkflowFile(const std::string& rel, const std::string& text) {
  std::filesystem::path path = std::filesystem::path(TheScratch().workspace()) / "Workflow/fz" / rel;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// The workflow, opened as the command line and the server open it. Made
// afresh every few hundred inputs so that rows piling up across a long run
// do not slow every later input down.
inline Opened& TheWorkflow() {
  static std::unique_ptr<Opened> opened;
  static unsigned uses = 0;
  if (!opened || ++uses % 512 == 0) {
    opened.reset();
    opened = OpenFresh();
  }
  return *opened;
}

}  // namespace pulse::fuzz
