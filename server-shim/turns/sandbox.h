// The runner sandbox: on Linux, every runner process starts under Landlock
// (unprivileged, stackable, inherited by everything it starts), so a runner
// that ignores its charter still cannot write the workflow's soul.md, its
// database or memory, nor read the workspace's .pulse/ (where the owner
// token's hash lives) or other workflows. What it may do is an allow-list:
//   read + execute: the system (/usr, /lib*, /bin, /sbin, /etc, /opt, /proc,
//                   /sys, /dev, /run, /tmp entries it creates), its workflow
//                   folder except db/, paths the operator adds;
//   write:          the workflow's pulse/work/, its own temp dir ($TMPDIR),
//                   /dev (null, tty...), paths the operator adds.
// Where the kernel has no Landlock the runner runs unconfined, and the
// server says so once in its log and in /api/health.
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"

namespace pulse::serve {

// "landlock abi N", or "unavailable: <why>" (probed once).
std::string SandboxDescription();
bool SandboxAvailable();
// Logs the sandbox state once (a warning when unavailable).
void SandboxProbeAndLog();

struct SandboxPolicy {
  std::vector<std::string> read;   // read and execute beneath each path
  std::vector<std::string> write;  // read, write, create, remove beneath each path
};

// The policy of a runner working on `workflow_dir` with `tmp_dir` as its
// temp dir; `extra_write`/`extra_read` come from --sandbox-allow-write/-read.
// Creates <workflow_dir>/pulse/work/ when missing.
SandboxPolicy RunnerPolicy(const std::string& workflow_dir, const std::string& tmp_dir,
                           const std::vector<std::string>& extra_write, const std::vector<std::string>& extra_read);

// Builds a Landlock ruleset for `policy` (in the parent: allocates, opens
// paths). Returns its fd (close it after the child started), or -1 when the
// kernel has no Landlock. Paths that do not exist are skipped.
[[nodiscard]] Result<int> BuildSandboxRuleset(const SandboxPolicy& policy);

// In the child between fork and exec (raw system calls only, safe after
// fork in a threaded program): no_new_privs, then the ruleset. 0 or errno.
int EnterSandbox(int ruleset_fd);

}  // namespace pulse::serve
