// Shared by the libFuzzer targets: a scratch workspace under $TMPDIR that
// lives as long as the fuzzing process (removed at exit), and the input as
// text. Nothing here may touch anything outside that directory.
#pragma once

#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "core/api/api.h"
#include "core/base/env.h"
#include "core/store/workspace.h"

namespace pulse::fuzz {

inline std::string Text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
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
