// Shared test helpers: every test works only inside its own temp directory.
#pragma once

#include <string>

#include <memory>

#include "core/base/env.h"
#include "core/store/db.h"
#include "core/base/time_util.h"

namespace pulse::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it
// when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Join(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

// Writes `content` to `path`, creating parent directories.
void WriteFile(const std::string& path, const std::string& content);
std::string ReadFileOrDie(const std::string& path);

// A workspace with one workflow folder holding `workflow_json`; returns the
// workspace path (inside `dir`).
std::string MakeWorkspace(const TempDir& dir, const std::string& workflow, const std::string& workflow_json);

// A database at `path` with every Pulse table, as an opened workflow has it
// (the modules' functions require the schema: core/store/schema.h).
Result<std::unique_ptr<Db>> OpenWithSchema(const std::string& path);

// Parses an RFC 3339 time or aborts the test.
int64_t T(const std::string& text);

}  // namespace pulse::testing
