#include "core/base/env.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::ReadFileOrDie;
using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

TEST(Env, DefaultClockIsTheSystemClockInWholeSeconds) {
  const int64_t before = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
  const int64_t now = DefaultEnv()->NowSeconds();
  const int64_t after = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_GE(now, before);
  EXPECT_LE(now, after);
}

TEST(Env, ReadFileNamesTheProblem) {
  TempDir dir;
  Env* env = DefaultEnv();
  Result<std::string> missing = env->ReadFile(dir.Join("nope.txt"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_EQ(missing.status().message(), dir.Join("nope.txt") + ": no such file");

  Result<std::string> a_dir = env->ReadFile(dir.path());
  ASSERT_FALSE(a_dir.ok());
  EXPECT_EQ(a_dir.status().code(), Code::kInvalidArgument);
  EXPECT_NE(a_dir.status().message().find("is a directory"), std::string::npos);

  // Bytes come back exactly, NUL and invalid UTF-8 included.
  const std::string bytes("a\0b\xff\n", 5);
  WriteFile(dir.Join("bin"), bytes);
  Result<std::string> back = env->ReadFile(dir.Join("bin"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, bytes);
  WriteFile(dir.Join("empty"), "");
  EXPECT_EQ(*env->ReadFile(dir.Join("empty")), "");
}

// A file a runner or a hostile workspace put there: a FIFO (whose open would
// wait for a writer), a device that never ends, a file over the bound. Each
// is refused at once with one line naming it; the bound itself is read.
TEST(Env, ReadFileRefusesWhatIsNotABoundedRegularFile) {
  TempDir dir;
  Env* env = DefaultEnv();
  const std::string fifo = dir.Join("schedule-runs.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Result<std::string> from_fifo = env->ReadFile(fifo);
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_EQ(from_fifo.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(from_fifo.status().message(), fifo + ": not a regular file");

  const std::string zero = dir.Join("zero");
  fs::create_symlink("/dev/zero", zero);
  Result<std::string> from_zero = env->ReadFile(zero);
  ASSERT_FALSE(from_zero.ok());
  EXPECT_EQ(from_zero.status().message(), zero + ": not a regular file");

  // Sparse: the size is there without the disk space.
  const std::string big = dir.Join("big");
  WriteFile(big, "");
  ASSERT_EQ(::truncate(big.c_str(), kMaxReadFileBytes + 1), 0);
  Result<std::string> from_big = env->ReadFile(big);
  ASSERT_FALSE(from_big.ok());
  EXPECT_EQ(from_big.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(from_big.status().message(), big + ": too large (" + std::to_string(kMaxReadFileBytes + 1) +
                                             " bytes; the bound is " + std::to_string(kMaxReadFileBytes) + ")");
  ASSERT_EQ(::truncate(big.c_str(), kMaxReadFileBytes), 0);
  Result<std::string> at_bound = env->ReadFile(big);
  ASSERT_TRUE(at_bound.ok()) << at_bound.status().message();
  EXPECT_EQ(static_cast<int64_t>(at_bound->size()), kMaxReadFileBytes);
}

TEST(Env, WriteFileAtomicReplacesWholeAndLeavesNoTempFile) {
  TempDir dir;
  Env* env = DefaultEnv();
  const std::string path = dir.Join("goal.md");
  ASSERT_TRUE(env->WriteFileAtomic(path, "first\n").ok());
  EXPECT_EQ(ReadFileOrDie(path), "first\n");
  ASSERT_TRUE(env->WriteFileAtomic(path, std::string(100000, 'x')).ok());
  EXPECT_EQ(ReadFileOrDie(path), std::string(100000, 'x'));
  ASSERT_TRUE(env->WriteFileAtomic(path, "").ok());
  EXPECT_EQ(ReadFileOrDie(path), "");
  EXPECT_EQ(*env->ListDir(dir.path()), std::vector<std::string>{"goal.md"});
}

TEST(Env, WriteFileAtomicFailsCleanlyWhereItCannotWrite) {
  TempDir dir;
  Env* env = DefaultEnv();
  // The parent does not exist: nothing is created.
  Status s = env->WriteFileAtomic(dir.Join("missing/goal.md"), "x");
  EXPECT_EQ(s.code(), Code::kIoError);
  EXPECT_NE(s.message().find(dir.Join("missing/goal.md") + ": cannot write"), std::string::npos);
  EXPECT_FALSE(env->FileExists(dir.Join("missing")));
  // The target is a directory: the rename fails and the temp file is removed.
  ASSERT_TRUE(env->CreateDirs(dir.Join("taken")).ok());
  s = env->WriteFileAtomic(dir.Join("taken"), "x");
  EXPECT_EQ(s.code(), Code::kIoError);
  EXPECT_NE(s.message().find("rename failed"), std::string::npos);
  EXPECT_EQ(*env->ListDir(dir.path()), std::vector<std::string>{"taken"});
  EXPECT_TRUE(env->IsDirectory(dir.Join("taken")));
}

TEST(Env, DirectoriesAndListing) {
  TempDir dir;
  Env* env = DefaultEnv();
  ASSERT_TRUE(env->CreateDirs(dir.Join("a/b/c")).ok());
  ASSERT_TRUE(env->CreateDirs(dir.Join("a/b/c")).ok());  // again: fine
  EXPECT_TRUE(env->IsDirectory(dir.Join("a/b")));
  EXPECT_TRUE(env->FileExists(dir.Join("a/b")));
  WriteFile(dir.Join("a/zeta"), "");
  WriteFile(dir.Join("a/Alpha"), "");
  WriteFile(dir.Join("a/.hidden"), "");
  // Sorted byte-wise, names only, hidden entries included.
  EXPECT_EQ(*env->ListDir(dir.Join("a")), (std::vector<std::string>{".hidden", "Alpha", "b", "zeta"}));
  EXPECT_FALSE(env->IsDirectory(dir.Join("a/zeta")));
  Result<std::vector<std::string>> none = env->ListDir(dir.Join("a/zeta"));
  EXPECT_EQ(none.status().code(), Code::kNotFound);
  // A file where a directory should go.
  Status s = env->CreateDirs(dir.Join("a/zeta/sub"));
  EXPECT_EQ(s.code(), Code::kIoError);
  EXPECT_NE(s.message().find("cannot create directory"), std::string::npos);
}

TEST(Env, ModifiedAtReadsTheFileTime) {
  TempDir dir;
  Env* env = DefaultEnv();
  WriteFile(dir.Join("f"), "x");
  const std::string path = dir.Join("f");
  struct timespec times[2] = {{0, 0}, {1791363600, 0}};  // 2026-10-07T09:00:00Z
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  EXPECT_EQ(*env->ModifiedAt(path), testing::T("2026-10-07T09:00:00Z"));
  EXPECT_EQ(env->ModifiedAt(dir.Join("gone")).status().code(), Code::kNotFound);
}

TEST(Env, FixedClockStandsStillUntilMovedAndDelegatesTheRest) {
  TempDir dir;
  FixedClockEnv env(DefaultEnv(), 1000);
  EXPECT_EQ(env.NowSeconds(), 1000);
  EXPECT_EQ(env.NowSeconds(), 1000);
  env.Advance(86400);
  EXPECT_EQ(env.NowSeconds(), 87400);
  env.Advance(-400);
  EXPECT_EQ(env.NowSeconds(), 87000);
  env.Set(5);
  EXPECT_EQ(env.NowSeconds(), 5);
  ASSERT_TRUE(env.WriteFileAtomic(dir.Join("f"), "via the base").ok());
  EXPECT_EQ(*env.ReadFile(dir.Join("f")), "via the base");
  EXPECT_TRUE(env.FileExists(dir.Join("f")));
}

TEST(Env, CapturingEnvKeepsEveryLogLineAtEveryLevel) {
  CapturingEnv env(DefaultEnv(), 0);
  env.Log(LogLevel::kDebug, "d");
  env.Log(LogLevel::kWarn, "w");
  env.Log(LogLevel::kError, "e");
  EXPECT_EQ(env.lines, (std::vector<std::string>{"d", "w", "e"}));
}

// Only what a subclass overrides changes; everything else reaches the base.
class ReadOnlyEnv : public DelegatingEnv {
 public:
  using DelegatingEnv::DelegatingEnv;
  Status WriteFileAtomic(const std::string& path, const std::string&) override {
    return Status::IoError(path + ": read-only");
  }
};

TEST(Env, DelegatingEnvForwardsWhatIsNotOverridden) {
  TempDir dir;
  WriteFile(dir.Join("f"), "kept");
  ReadOnlyEnv env(DefaultEnv());
  EXPECT_EQ(env.WriteFileAtomic(dir.Join("f"), "new").code(), Code::kIoError);
  EXPECT_EQ(*env.ReadFile(dir.Join("f")), "kept");
  EXPECT_EQ(*env.ListDir(dir.path()), std::vector<std::string>{"f"});
}

}  // namespace
}  // namespace pulse
