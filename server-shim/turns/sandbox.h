// The runner sandbox: on Linux, every runner process starts under Landlock
// (unprivileged, stackable, inherited by everything it starts), so a runner
// that ignores its charter still cannot write the workflow's soul.md, its
// database or memory, nor read the workspace's .pulse/ (where the owner
// token's hash lives) or other workflows. What it may do is an allow-list:
//   read + execute: the system (/usr, /lib*, /bin, /sbin, /etc, /opt, /sys,
//                   /run, a few whole-system /proc files and its own
//                   /proc/<pid>, never another process's), its workflow
//                   folder except db/, paths the operator adds;
//   write:          the workflow's pulse/work/, its own temp dir ($TMPDIR),
//                   /dev (null, tty...), paths the operator adds.
// Landlock ABI 6 adds scopes: a runner cannot signal a process outside its
// sandbox (the server, other runners) nor connect to an abstract unix socket
// made outside it. When the server runs as root, runners also drop to an
// unprivileged user (--runner-user, default nobody), which keeps them from
// .pulse/, db/ and the server's signals even on a kernel without Landlock.
// Where the kernel lacks a part, the server says which (SandboxLegs, in its
// log and in /api/health).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/status.h"

namespace pulse::serve {

// The operator's say over the sandbox: the flags of every command that runs
// a runner or the Builder command (pulse serve, ask, pre-run, talk, pass).
struct SandboxOptions {
  std::vector<std::string> allow_write;  // --sandbox-allow-write: more paths runners may write
  std::vector<std::string> allow_read;   // --sandbox-allow-read: more paths runners may read
  std::string runner_user;               // --runner-user: "" = nobody when root, else the server's own user
  std::string tracking = "auto";         // --runner-tracking: auto, cgroup or subreaper (runner_tree.h)
};

// Who runners run as.
struct RunnerUser {
  bool drop = false;  // the child switches to uid/gid (and no supplementary groups)
  uid_t uid = 0;
  gid_t gid = 0;
  std::string name;   // as given or found, for messages
  std::string home;   // its home folder ($HOME of the runner)
};

// --runner-user: when this process is root, "" means nobody; "root" (or 0)
// keeps runners as root (then /api/health says the leg is not enforced).
// When it is not root, runners run as its own user and naming another is
// an error. InvalidArgument naming --runner-user for an unknown user.
[[nodiscard]] Result<RunnerUser> ResolveRunnerUser(const std::string& flag);

// Checks every sandbox flag once, before anything runs (exit 2 on a bad one).
[[nodiscard]] Status CheckSandboxOptions(const SandboxOptions& options);

// "landlock abi N", or "unavailable: <why>" (probed once).
std::string SandboxDescription();
bool SandboxAvailable();
int LandlockAbi();
// What is and is not enforced for runners started with `options`, one
// entry per leg: [{"leg", "enforced", "how"}] (files, proc, signals,
// abstract_unix_sockets, descendants, runner_user, cleanup).
nlohmann::json SandboxLegs(const SandboxOptions& options);
// `health` (the /api/health document) with "sandbox_legs" and
// "sandbox_unenforced" (the names of the legs not enforced) added; the legs
// are worked out once per process.
nlohmann::json WithSandboxLegs(nlohmann::json health, const SandboxOptions& options);
// Logs the sandbox state once (a warning naming each leg not enforced).
void SandboxProbeAndLog(const SandboxOptions& options);

struct SandboxPolicy {
  std::vector<std::string> read;   // read and execute beneath each path
  std::vector<std::string> write;  // read, write, create, remove beneath each path
};

// The policy of a runner working on `workflow_dir` with `tmp_dir` as its
// temp dir; `extra_write`/`extra_read` come from --sandbox-allow-write/-read.
// Creates <workflow_dir>/pulse/work/ when missing.
SandboxPolicy RunnerPolicy(const std::string& workflow_dir, const std::string& tmp_dir,
                           const std::vector<std::string>& extra_write, const std::vector<std::string>& extra_read);

// Makes what a runner running as `user` needs its own (pulse/work/ and its
// temp dir `tmp_fd`, without following links) and keeps the workspace's
// .pulse/ and the workflow's db/ from it (no access for "others"). Nothing
// to do when the runner keeps the server's user.
void PrepareForRunnerUser(const RunnerUser& user, const std::string& workspace, const std::string& workflow_dir,
                          int tmp_fd);

// Makes the folder `path` (not followed through a link) `user`'s own, when
// the runner runs as another user than the server: a preset program's home.
void GiveToRunnerUser(const RunnerUser& user, const std::string& path);

// `prog` found as sh would find it on `path_env` (or a path): its real path,
// or "" when there is none that may be executed.
std::string FindProgramOnPath(const std::string& prog, const std::string& path_env);

// Builds a Landlock ruleset for `policy` (in the parent: allocates, opens
// paths). Returns its fd (close it after the child started), or -1 when the
// kernel has no Landlock. Paths that do not exist are skipped.
[[nodiscard]] Result<int> BuildSandboxRuleset(const SandboxPolicy& policy);

// Everything the child does to confine itself, prepared in the parent.
struct SandboxEntry {
  int ruleset = -1;           // BuildSandboxRuleset's fd (-1: no Landlock)
  uint64_t own_proc_rights = 0;  // granted on the child's own /proc/<pid>
  RunnerUser user;
};
SandboxEntry MakeSandboxEntry(int ruleset, const RunnerUser& user);

// In the child between fork and exec (raw system calls only, safe after
// fork in a threaded program): its own /proc/<pid> into the ruleset,
// no_new_privs, the runner user, then the ruleset. 0 or errno.
int EnterSandbox(const SandboxEntry& entry);

// A file the runner cannot start without, found before it starts: the
// program (PATH), a script's interpreter (#!, also through env), the script
// an interpreter is given, and an interpreter's lib/ outside the system.
struct NeededPath {
  std::string path;  // real path
  std::string role;  // "the runner's program", "its interpreter", "its script", ...
};
std::vector<NeededPath> RunnerNeeds(const std::string& command, const std::string& cwd, const std::string& path_env);

// `command` with "exec " in front when it is a plain program call (words,
// quotes, nothing else sh interprets) naming a program on PATH: the program
// then is the runner process itself, the one that has its /proc/<pid> (a
// process it starts sees no /proc/<pid>, its own included). Otherwise as is.
std::string ExecIfSimple(const std::string& command, const std::string& cwd, const std::string& path_env);

// The one-line reason a runner could not open `need` (errno `err`) inside
// its sandbox: the path, and the flag that allows it (--sandbox-allow-read
// with the folder to grant, or --runner-user).
std::string DeniedPathMessage(const NeededPath& need, int err, const SandboxPolicy& policy, const RunnerUser& user,
                              bool landlock);

}  // namespace pulse::serve
