#include "tests/cpp/test_util.h"

#include "core/store/schema.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace pulse::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  const char* base = getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/pulse-test-XXXXXX";
  char* made = mkdtemp(tmpl.data());
  if (!made) abort();
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(path_, ec);
}

void WriteFile(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string MakeWorkspace(const TempDir& dir, const std::string& workflow, const std::string& workflow_json) {
  std::string ws = dir.Join("ws");
  WriteFile(ws + "/Workflow/" + workflow + "/workflow.json", workflow_json);
  return ws;
}

int64_t T(const std::string& text) {
  Result<int64_t> t = ParseTime(text);
  if (!t.ok()) {
    ADD_FAILURE() << t.status().message();
    return 0;
  }
  return *t;
}

Result<std::unique_ptr<Db>> OpenWithSchema(const std::string& path) {
  PULSE_ASSIGN_OR_RETURN(std::unique_ptr<Db> db, Db::Open(path));
  PULSE_RETURN_IF_ERROR(EnsureSchema(*db));
  return db;
}

}  // namespace pulse::testing
