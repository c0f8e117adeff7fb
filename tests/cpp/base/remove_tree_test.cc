// RemoveTreeNoFollow against a program that fights back: another thread
// swaps a folder of the tree for a link to the folder holding soul.md while
// the tree is being removed (the attack of issue #32 on the runner's temp
// dir). The target must survive every round; a removal that goes by full
// paths (nftw + remove) loses it within a few rounds.
#include "core/base/remove_tree.h"

#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>

#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::TempDir;
using testing::WriteFile;

bool Exists(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0;
}

TEST(RemoveTree, RemovesFilesFoldersAndLinksButNotWhatLinksPointTo) {
  TempDir dir;
  WriteFile(dir.Join("keep/soul.md"), "# goal\n");
  WriteFile(dir.Join("t/a/b/c.txt"), "x");
  WriteFile(dir.Join("t/f"), "y");
  ASSERT_EQ(::symlink(dir.Join("keep").c_str(), dir.Join("t/a/link-to-dir").c_str()), 0);
  ASSERT_EQ(::symlink(dir.Join("keep/soul.md").c_str(), dir.Join("t/link-to-file").c_str()), 0);
  ASSERT_EQ(::mkfifo(dir.Join("t/a/fifo").c_str(), 0600), 0);
  ASSERT_TRUE(RemoveTreeNoFollow(dir.Join("t")).ok());
  EXPECT_FALSE(Exists(dir.Join("t")));
  EXPECT_EQ(testing::ReadFileOrDie(dir.Join("keep/soul.md")), "# goal\n");
  // Missing: nothing to do.
  EXPECT_TRUE(RemoveTreeNoFollow(dir.Join("t")).ok());
}

TEST(RemoveTree, ATopThatIsALinkIsRemovedAsALink) {
  TempDir dir;
  WriteFile(dir.Join("keep/soul.md"), "# goal\n");
  ASSERT_EQ(::symlink(dir.Join("keep").c_str(), dir.Join("t").c_str()), 0);
  ASSERT_TRUE(RemoveTreeNoFollow(dir.Join("t")).ok());
  EXPECT_FALSE(Exists(dir.Join("t")));
  EXPECT_TRUE(Exists(dir.Join("keep/soul.md")));
}

TEST(RemoveTree, ATreeDeeperThanTheDescriptorBoundIsRemoved) {
  TempDir dir;
  std::string p = dir.Join("t");
  ::mkdir(p.c_str(), 0700);
  // 120 levels: deeper than the walk keeps open at once (48).
  for (int i = 0; i < 120; ++i) {
    p += "/d";
    ASSERT_EQ(::mkdir(p.c_str(), 0700), 0) << i;
  }
  WriteFile(p + "/leaf", "x");
  ASSERT_TRUE(RemoveTreeNoFollow(dir.Join("t")).ok());
  EXPECT_FALSE(Exists(dir.Join("t")));
}

// The race, as a runner's leftover child plays it: `t/d/` holds names that
// also exist beside soul.md, and soul.md itself; the moment the first of them
// is removed (inotify), d is moved away and a link to keep/ put in its place.
// A removal by full paths then goes on through the link, into keep/, and
// removes keep/soul.md (nftw + remove, as the server did: in every run
// tried); one that holds d open never leaves it. The names are hard links
// of one file: creating inodes is slow on some disks, linking is not.
TEST(RemoveTree, AFolderSwappedForALinkDuringRemovalNeverLosesTheTarget) {
  TempDir dir;
  const std::string keep = dir.Join("keep"), target = keep + "/soul.md", seed = dir.Join("seed");
  WriteFile(seed, "x");
  ::mkdir(keep.c_str(), 0700);
  for (int round = 0; round < 10; ++round) {
    (void)::link(seed.c_str(), target.c_str());
    const std::string t = dir.Join("t" + std::to_string(round)), d = t + "/d";
    ASSERT_EQ(::mkdir(t.c_str(), 0700), 0);
    ASSERT_EQ(::mkdir(d.c_str(), 0700), 0);
    for (int i = 0; i < 300; ++i) {
      const std::string name = "/p" + std::to_string(i);
      (void)::link(seed.c_str(), (keep + name).c_str());
      ASSERT_EQ(::link(seed.c_str(), (d + name).c_str()), 0);
    }
    ASSERT_EQ(::link(seed.c_str(), (d + "/soul.md").c_str()), 0);
    int watch = ::inotify_init1(IN_CLOEXEC);
    ASSERT_GE(watch, 0);
    ASSERT_GE(::inotify_add_watch(watch, d.c_str(), IN_DELETE), 0);
    std::thread swapper([&] {
      char events[4096];
      if (::read(watch, events, sizeof events) <= 0) return;
      const std::string aside = dir.Join("aside" + std::to_string(round));
      if (::rename(d.c_str(), aside.c_str()) == 0) (void)::symlink(keep.c_str(), d.c_str());
    });
    Status removed = RemoveTreeNoFollow(t);
    swapper.join();
    ::close(watch);
    ASSERT_TRUE(Exists(target)) << "round " << round << ": soul.md was removed through the link";
    // What the swapper moved aside is the tree's own: nothing of keep/ went.
    EXPECT_TRUE(Exists(keep + "/p0")) << round;
    if (Exists(t)) ASSERT_TRUE(RemoveTreeNoFollow(t).ok()) << removed.message();
  }
}

}  // namespace
}  // namespace pulse
