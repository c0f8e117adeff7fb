// Every process a runner starts ends with its turn, however it tries to get
// away (setsid, double forks, a new process group). Two ways, chosen once
// per process (--runner-tracking, docs/security.md):
//
//   cgroup     each runner starts in a cgroup v2 of its own (beneath the
//              server's own cgroup: <cgroup2 mount><own>/pulse-runners-<pid>/
//              turn-<n>); at the turn's end `cgroup.kill` kills everything
//              in it at once, forks in flight included, and the cgroup is
//              removed once empty. Needs a writable cgroup v2 with
//              cgroup.kill (Linux 5.14): root, or a delegated subtree.
//   subreaper  where that is missing (containers with a read-only
//              /sys/fs/cgroup, a user without delegation), each runner is
//              started by a small supervisor process that is a child
//              subreaper (PR_SET_CHILD_SUBREAPER): everything the runner
//              leaves behind is re-parented to it, and when the runner ends
//              (or the server asks, with SIGUSR1) it kills its children
//              until it has none, then exits with the runner's status.
//
// cgroup is preferred: it is atomic, needs no process in the middle and
// nothing in the tree can leave it (a runner cannot write cgroup.procs of
// another cgroup: it runs as another user, and Landlock denies /sys). The
// subreaper's sweep kills a generation at a time, so a process that forks
// and exits in a tight loop could keep ahead of it for a while.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "core/base/status.h"

namespace pulse::serve {

enum class TreeMode { kCgroup, kSubreaper };

// "auto" (cgroup when this process can make one, else subreaper), "cgroup"
// (InvalidArgument naming --runner-tracking when it cannot) or "subreaper".
[[nodiscard]] Result<TreeMode> ResolveRunnerTracking(const std::string& flag);
// Why cgroup mode is not available here, or "" (probed once).
std::string CgroupUnavailableReason();
// Where this process's runner cgroups go ("" when unavailable).
std::string RunnerCgroupBase();

// One turn's cgroup. The child writes "0" into procs_file() before it execs
// (moving itself in while nothing else of the turn exists).
class TurnCgroup {
 public:
  static Result<std::unique_ptr<TurnCgroup>> Create();
  ~TurnCgroup();  // kills what is left, waits until empty, removes the cgroup
  TurnCgroup(const TurnCgroup&) = delete;
  TurnCgroup& operator=(const TurnCgroup&) = delete;

  const std::string& procs_file() const { return procs_; }
  // cgroup.kill: SIGKILL to every process in it, atomically.
  void Kill();
  // Kill() and wait (up to `seconds`) until no process is left; true when empty.
  bool KillAndWait(double seconds);

 private:
  explicit TurnCgroup(std::string dir);
  std::string dir_, procs_;
};

}  // namespace pulse::serve
