#include "server-shim/turns/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <pwd.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include "core/base/env.h"
#include "core/autonomy/shell_args.h"
#include "server-shim/turns/runner_tree.h"

namespace pulse::serve {

namespace {

using nlohmann::json;

// Rights newer than Debian's kernel headers.
constexpr uint64_t kRefer = 1ULL << 13;      // ABI 2
constexpr uint64_t kTruncate = 1ULL << 14;   // ABI 3
constexpr uint64_t kIoctlDev = 1ULL << 15;   // ABI 5
// Scopes (ABI 6), also newer than the headers.
constexpr uint64_t kScopeAbstractUnixSocket = 1ULL << 0;
constexpr uint64_t kScopeSignal = 1ULL << 1;

// struct landlock_ruleset_attr as of ABI 6: the headers know only the first
// field. The kernel takes the size it is given, so an older kernel is
// passed only the fields it knows.
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI 4; not handled here (runners keep the network)
  uint64_t scoped;              // ABI 6
};

constexpr uint64_t kReadRights =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
constexpr uint64_t kWriteRights =
    kReadRights | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM | kRefer | kTruncate;
// Rights that only make sense on directories; a rule on a file must not ask for them.
constexpr uint64_t kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
                                 LANDLOCK_ACCESS_FS_WRITE_FILE | kTruncate | kIoctlDev;

struct Probe {
  int abi = 0;
  std::string reason;
};

const Probe& GetProbe() {
  static Probe probe = [] {
    Probe p;
    long abi = ::syscall(__NR_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi > 0) {
      p.abi = static_cast<int>(abi);
    } else if (errno == ENOSYS) {
      p.reason = "the kernel has no Landlock (ENOSYS)";
    } else if (errno == EOPNOTSUPP) {
      p.reason = "Landlock is disabled in this kernel (EOPNOTSUPP: not in the lsm= boot list)";
    } else {
      p.reason = std::string("Landlock probe failed: ") + std::strerror(errno);
    }
    return p;
  }();
  return probe;
}

// Every filesystem right this kernel's ABI knows: all of them are handled
// (denied unless a rule grants them).
uint64_t HandledRights(int abi) {
  uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

Status AddRule(int ruleset, const std::string& path, uint64_t rights, uint64_t handled) {
  int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return Status::OK();  // nothing there to grant
  struct stat st;
  if (::fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= kFileRights;
  struct landlock_path_beneath_attr attr = {};
  attr.allowed_access = rights & handled;
  attr.parent_fd = fd;
  long rc = ::syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0);
  int err = errno;
  ::close(fd);
  if (rc != 0) return Status::Internal("sandbox: cannot grant " + path + ": " + std::strerror(err));
  return Status::OK();
}

// Closes `path` (a folder, never followed through a link) to "others", and
// to its group when that is the runner's.
void CloseToRunner(const std::string& path, const RunnerUser& user) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_uid != user.uid) {
    mode_t mode = st.st_mode & 07777;
    mode_t closed = mode & ~static_cast<mode_t>(st.st_gid == user.gid ? 0077 : 0007);
    if (closed != mode && ::fchmod(fd, closed) != 0) {
      spdlog::warn("sandbox: cannot close {} to runner user {}: {}", path, user.name, std::strerror(errno));
    }
  }
  ::close(fd);
}

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

std::string Dirname(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string Basename(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool IsAssignment(const std::string& w) {
  size_t eq = w.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  for (size_t i = 0; i < eq; ++i) {
    char c = w[i];
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9'))) return false;
  }
  return true;
}

// `prog` as sh would find it: a path (relative to `cwd`), or the first
// executable file of that name in PATH. Its real path, or "".
std::string ResolveProgram(const std::string& prog, const std::string& cwd, const std::string& path_env) {
  if (prog.empty()) return "";
  if (prog.find('/') != std::string::npos) return RealPath(prog[0] == '/' ? prog : cwd + "/" + prog);
  size_t start = 0;
  while (start <= path_env.size()) {
    size_t colon = path_env.find(':', start);
    std::string dir = path_env.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty()) dir = cwd;
    std::string candidate = dir + "/" + prog;
    if (IsRegularFile(candidate) && ::access(candidate.c_str(), X_OK) == 0) return RealPath(candidate);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

// "#!/usr/bin/env python3" -> {"/usr/bin/env", "python3"}; empty without #!.
std::vector<std::string> Shebang(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[256] = {};
  in.read(head, sizeof head - 1);
  std::string first(head, static_cast<size_t>(in.gcount()));
  if (first.rfind("#!", 0) != 0) return {};
  first = first.substr(2, first.find('\n') == std::string::npos ? std::string::npos : first.find('\n') - 2);
  std::vector<std::string> words;
  size_t i = 0;
  while (i < first.size()) {
    while (i < first.size() && (first[i] == ' ' || first[i] == '\t' || first[i] == '\r')) ++i;
    size_t j = i;
    while (j < first.size() && first[j] != ' ' && first[j] != '\t' && first[j] != '\r') ++j;
    if (j > i) words.push_back(first.substr(i, j - i));
    i = j;
  }
  return words;
}

bool Beneath(const std::string& path, const std::string& root) {
  if (root.empty()) return false;
  if (root == "/") return true;
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/');
}

// The installation a program in <prefix>/bin/ belongs to.
std::string PrefixOf(const std::string& program) {
  std::string dir = Dirname(program);
  return Basename(dir) == "bin" ? Dirname(dir) : dir;
}

bool IsSystemPrefix(const std::string& prefix) { return prefix == "/" || prefix == "/usr" || prefix == "/usr/local"; }

void AddProgram(std::vector<NeededPath>& needs, const std::string& real, const std::string& role) {
  if (real.empty()) return;
  for (const NeededPath& n : needs) {
    if (n.path == real) return;
  }
  needs.push_back({real, role});
  // An interpreter outside the system (pyenv, nvm, conda) needs its
  // installation's lib/ too ("No module named 'encodings'" otherwise).
  std::string prefix = PrefixOf(real);
  std::string lib = prefix + "/lib";
  struct stat st;
  if (!IsSystemPrefix(prefix) && Basename(Dirname(real)) == "bin" && ::stat(lib.c_str(), &st) == 0 &&
      S_ISDIR(st.st_mode)) {
    needs.push_back({lib, "the library folder of " + real});
  }
}

}  // namespace

bool SandboxAvailable() { return GetProbe().abi > 0; }
int LandlockAbi() { return GetProbe().abi; }

std::string SandboxDescription() {
  const Probe& p = GetProbe();
  return p.abi > 0 ? "landlock abi " + std::to_string(p.abi) : "unavailable: " + p.reason;
}

Result<RunnerUser> ResolveRunnerUser(const std::string& flag) {
  RunnerUser u;
  const bool root = ::geteuid() == 0;
  std::string name = flag.empty() && root ? "nobody" : flag;
  if (name.empty()) {
    u.uid = ::geteuid();
    u.gid = ::getegid();
    u.name = "uid " + std::to_string(u.uid);
    return u;
  }
  struct passwd pw;
  struct passwd* found = nullptr;
  std::string buf(16384, '\0');
  char* end = nullptr;
  long numeric = std::strtol(name.c_str(), &end, 10);
  if (end && *end == '\0' && numeric >= 0) {
    ::getpwuid_r(static_cast<uid_t>(numeric), &pw, buf.data(), buf.size(), &found);
    if (!found) {
      u.uid = static_cast<uid_t>(numeric);
      u.gid = static_cast<gid_t>(numeric);
    }
  } else {
    ::getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found);
    if (!found) return Status::InvalidArgument("--runner-user: no user named \"" + name + "\" on this machine");
  }
  if (found) {
    u.uid = pw.pw_uid;
    u.gid = pw.pw_gid;
    u.home = pw.pw_dir ? pw.pw_dir : "";
  }
  u.name = name;
  if (!root) {
    if (u.uid != ::geteuid()) {
      return Status::InvalidArgument("--runner-user " + name +
                                     ": pulse is not running as root, so runners run as its own user");
    }
    return u;
  }
  u.drop = u.uid != 0;
  return u;
}

Status CheckSandboxOptions(const SandboxOptions& options) {
  Result<RunnerUser> user = ResolveRunnerUser(options.runner_user);
  if (!user.ok()) return user.status();
  Result<TreeMode> tree = ResolveRunnerTracking(options.tracking);
  if (!tree.ok()) return tree.status();
  return Status::OK();
}

json SandboxLegs(const SandboxOptions& options) {
  const Probe& probe = GetProbe();
  const std::string abi = "Landlock ABI " + std::to_string(probe.abi);
  Result<RunnerUser> user = ResolveRunnerUser(options.runner_user);
  const bool drop = user.ok() && user->drop;
  const std::string who = user.ok() ? user->name : "?";
  json legs = json::array();
  auto leg = [&legs](const char* name, bool enforced, const std::string& how) {
    legs.push_back({{"leg", name}, {"enforced", enforced}, {"how", how}});
  };
  if (probe.abi > 0) {
    leg("files", true, abi + ": writes only to pulse/work/, its temp dir, /dev and --sandbox-allow-write; reads the "
                       "system, its workflow folder but db/, and --sandbox-allow-read");
    leg("proc", true, abi + ": its own /proc/<pid> and whole-system files (cpuinfo, meminfo, stat, sys/); no other "
                      "process's /proc/<pid>");
  } else {
    leg("files", false,
        "no Landlock (" + probe.reason + ")" +
            (drop ? ": only file permissions hold runner user " + who +
                        " (it reads what every user may; .pulse/ and db/ are closed to it)"
                  : " and runners run as the server's user: they can write soul.md and read .pulse/ and db/"));
    leg("proc", false, "no Landlock (" + probe.reason + "): a runner reads every process's /proc/<pid>/cmdline");
  }
  if (probe.abi >= 6) {
    leg("signals", true, abi + " scope: no signal to a process outside its sandbox (the server, other runners)");
    leg("abstract_unix_sockets", true, abi + " scope: no connection to an abstract unix socket made outside it");
  } else {
    const std::string why = probe.abi > 0 ? abi + " has no scopes (ABI 6, Linux 6.12)" : "no Landlock";
    leg("signals", drop,
        drop ? "runs as " + who + ", so it cannot signal the server (" + why + "; runners can signal each other)"
             : why + " and runners run as the server's user: a runner can stop or kill the server");
    leg("abstract_unix_sockets", false, why + ": a runner can connect to abstract unix sockets");
  }
  Result<TreeMode> tree = ResolveRunnerTracking(options.tracking);
  if (!tree.ok()) {
    leg("descendants", false, tree.status().message());
  } else if (*tree == TreeMode::kCgroup) {
    leg("descendants", true, "a cgroup v2 per runner under " + RunnerCgroupBase() + ", cgroup.kill at the turn's end");
  } else {
    std::string why = CgroupUnavailableReason();
    leg("descendants", true,
        "a child subreaper per runner kills what it leaves at the turn's end (" +
            (why.empty() ? std::string("--runner-tracking subreaper") : "no runner cgroup: " + why) + ")");
  }
  if (!user.ok()) {
    leg("runner_user", false, user.status().message());
  } else if (drop) {
    leg("runner_user", true, "runs as " + who + " (uid " + std::to_string(user->uid) + ")");
  } else {
    leg("runner_user", false,
        ::geteuid() == 0 ? "runners run as root (--runner-user " + who + ")"
                         : "runners run as the server's own user (pulse is not root): only Landlock keeps them from "
                           ".pulse/ and db/");
  }
  leg("cleanup", true,
      "its temp dir is removed through directory descriptors (openat/unlinkat, O_NOFOLLOW): no link is followed");
  return legs;
}

json WithSandboxLegs(json health, const SandboxOptions& options) {
  static const json legs = SandboxLegs(options);
  static const json unenforced = [] {
    json names = json::array();
    for (const json& leg : legs) {
      if (leg["enforced"] != true) names.push_back(leg["leg"]);
    }
    return names;
  }();
  health["sandbox_legs"] = legs;
  health["sandbox_unenforced"] = unenforced;
  return health;
}

void SandboxProbeAndLog(const SandboxOptions& options) {
  static std::once_flag once;
  std::call_once(once, [&options] {
    spdlog::info("runner sandbox: {}", SandboxDescription());
    for (const json& leg : SandboxLegs(options)) {
      if (leg["enforced"] == true) continue;
      spdlog::warn("runner sandbox: {} not enforced: {}", leg["leg"].get<std::string>(), leg["how"].get<std::string>());
    }
  });
}

SandboxPolicy RunnerPolicy(const std::string& workflow_dir, const std::string& tmp_dir,
                           const std::vector<std::string>& extra_write, const std::vector<std::string>& extra_read) {
  SandboxPolicy p;
  // Of /proc only what describes the whole machine: another process's
  // /proc/<pid> (its cmdline may hold a secret) is not the runner's. Its
  // own /proc/<pid> is granted in the child (EnterSandbox). No links here:
  // /proc/self or /proc/mounts would resolve to the server's own folder.
  p.read = {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt", "/sys", "/run",
            "/var/lib/dpkg/alternatives", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/uptime",
            "/proc/loadavg", "/proc/version", "/proc/filesystems", "/proc/sys"};
  // The workflow folder, entry by entry, except its database: the runner
  // reads its goal (soul.md), runs and memory; it changes Pulse's state only
  // through its session's tools.
  if (DIR* d = ::opendir(workflow_dir.c_str())) {
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == ".." || name == "db") continue;
      p.read.push_back(workflow_dir + "/" + name);
    }
    ::closedir(d);
  }
  std::string work = workflow_dir + "/pulse/work";
  (void)DefaultEnv()->CreateDirs(work);
  p.write = {work, tmp_dir, "/dev"};
  for (const std::string& w : extra_write) p.write.push_back(w);
  for (const std::string& r : extra_read) p.read.push_back(r);
  return p;
}

void PrepareForRunnerUser(const RunnerUser& user, const std::string& workspace, const std::string& workflow_dir,
                          int tmp_fd) {
  if (!user.drop) return;
  if (tmp_fd >= 0 && ::fchown(tmp_fd, user.uid, user.gid) != 0) {
    spdlog::warn("sandbox: cannot give the runner's temp dir to {}: {}", user.name, std::strerror(errno));
  }
  int wf = ::open(workflow_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int pulse = wf < 0 ? -1 : ::openat(wf, "pulse", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int work = pulse < 0 ? -1 : ::openat(pulse, "work", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (work >= 0 && ::fstat(work, &st) == 0 && (st.st_uid != user.uid || st.st_gid != user.gid) &&
      ::fchown(work, user.uid, user.gid) != 0) {
    spdlog::warn("sandbox: cannot give {}/pulse/work to {}: {}", workflow_dir, user.name, std::strerror(errno));
  }
  for (int fd : {work, pulse, wf}) {
    if (fd >= 0) ::close(fd);
  }
  CloseToRunner(workspace + "/.pulse", user);
  CloseToRunner(workflow_dir + "/db", user);
}

void GiveToRunnerUser(const RunnerUser& user, const std::string& path) {
  if (!user.drop) return;
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (::fstat(fd, &st) == 0 && (st.st_uid != user.uid || st.st_gid != user.gid) &&
      ::fchown(fd, user.uid, user.gid) != 0) {
    spdlog::warn("sandbox: cannot give {} to {}: {}", path, user.name, std::strerror(errno));
  }
  ::close(fd);
}

std::string FindProgramOnPath(const std::string& prog, const std::string& path_env) {
  return ResolveProgram(prog, "/", path_env);
}

Result<int> BuildSandboxRuleset(const SandboxPolicy& policy) {
  const Probe& probe = GetProbe();
  if (probe.abi <= 0) return -1;
  uint64_t handled = HandledRights(probe.abi);
  RulesetAttr attr = {};
  attr.handled_access_fs = handled;
  size_t size = sizeof attr.handled_access_fs;
  if (probe.abi >= 6) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    size = sizeof attr;
  }
  long fd = ::syscall(__NR_landlock_create_ruleset, &attr, size, 0);
  if (fd < 0) return Status::Internal(std::string("sandbox: cannot create a Landlock ruleset: ") + std::strerror(errno));
  int ruleset = static_cast<int>(fd);
  ::fcntl(ruleset, F_SETFD, FD_CLOEXEC);
  for (const std::string& path : policy.read) {
    Status s = AddRule(ruleset, path, kReadRights, handled);
    if (!s.ok()) return (::close(ruleset), s);
  }
  for (const std::string& path : policy.write) {
    Status s = AddRule(ruleset, path, kWriteRights | kIoctlDev, handled);
    if (!s.ok()) return (::close(ruleset), s);
  }
  return ruleset;
}

SandboxEntry MakeSandboxEntry(int ruleset, const RunnerUser& user) {
  SandboxEntry e;
  e.ruleset = ruleset;
  e.own_proc_rights = kReadRights & HandledRights(GetProbe().abi);
  e.user = user;
  return e;
}

int EnterSandbox(const SandboxEntry& e) {
  if (e.ruleset >= 0) {
    // The child's own /proc/<pid> (what /proc/self names from here on).
    int self = ::open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (self >= 0) {
      struct landlock_path_beneath_attr attr = {};
      attr.allowed_access = e.own_proc_rights;
      attr.parent_fd = self;
      (void)::syscall(__NR_landlock_add_rule, e.ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0);
      ::close(self);
    }
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  if (e.user.drop) {
    // Raw calls: this thread only (the child has no other), without libc's
    // all-threads broadcast.
    if (::syscall(SYS_setgroups, 0, nullptr) != 0) return errno;
    if (::syscall(SYS_setresgid, e.user.gid, e.user.gid, e.user.gid) != 0) return errno;
    if (::syscall(SYS_setresuid, e.user.uid, e.user.uid, e.user.uid) != 0) return errno;
  }
  if (e.ruleset >= 0 && ::syscall(__NR_landlock_restrict_self, e.ruleset, 0) != 0) return errno;
  return 0;
}

std::vector<NeededPath> RunnerNeeds(const std::string& command, const std::string& cwd, const std::string& path_env) {
  std::vector<NeededPath> needs;
  std::vector<std::string> words = ShellWords(command);
  size_t i = 0;
  while (i < words.size() && IsAssignment(words[i])) ++i;
  if (i < words.size() && words[i] == "exec") ++i;
  if (i < words.size() && Basename(words[i]) == "env") {
    for (++i; i < words.size() && (words[i][0] == '-' || IsAssignment(words[i]));) ++i;
  }
  if (i >= words.size() || IsSeparatorWord(words[i])) return needs;
  const std::string program = ResolveProgram(words[i], cwd, path_env);
  if (program.empty()) return needs;
  AddProgram(needs, program, "the runner's program");
  std::vector<std::string> bang = Shebang(program);
  if (!bang.empty()) {
    std::string interpreter = Basename(bang[0]) == "env" && bang.size() > 1 ? ResolveProgram(bang[1], cwd, path_env)
                                                                           : RealPath(bang[0]);
    AddProgram(needs, interpreter, "the interpreter of " + program);
  }
  // The script an interpreter is given: its first word that is not an option.
  for (size_t j = i + 1; j < words.size() && !IsSeparatorWord(words[j]); ++j) {
    const std::string& w = words[j];
    if (w == "-c" || w == "-e" || w == "-m" || w == "--eval") break;  // code or a module follows, not a file
    if (w[0] == '-') continue;
    std::string script = RealPath(w[0] == '/' ? w : cwd + "/" + w);
    if (!script.empty() && IsRegularFile(script)) needs.push_back({script, "its script"});
    break;
  }
  return needs;
}

std::string ExecIfSimple(const std::string& command, const std::string& cwd, const std::string& path_env) {
  // Quotes are fine; anything else sh would interpret is not a plain command.
  if (command.find_first_of(";&|<>()$`\\\n*?[]{}~#!") != std::string::npos) return command;
  std::vector<std::string> words = ShellWords(command);
  if (words.empty() || IsAssignment(words[0])) return command;
  for (const char* special : {"exec", "eval", "exit", "export", "readonly", "set", "shift", "trap", "unset", "cd",
                              "command", "if", "while", "until", "for", "case", "time"}) {
    if (words[0] == special) return command;
  }
  if (ResolveProgram(words[0], cwd, path_env).empty()) return command;
  return "exec " + command;
}

std::string DeniedPathMessage(const NeededPath& need, int err, const SandboxPolicy& policy, const RunnerUser& user,
                              bool landlock) {
  bool granted = false;
  for (const auto* list : {&policy.read, &policy.write}) {
    for (const std::string& p : *list) granted = granted || Beneath(need.path, RealPath(p));
  }
  if (landlock && !granted) {
    // The folder to grant: an installation's prefix for a program or its
    // lib/, the file itself for a script.
    std::string grant = need.path;
    if (need.role.rfind("the library folder", 0) == 0) {
      grant = Dirname(need.path);
    } else if (need.role.rfind("its script", 0) != 0) {
      grant = PrefixOf(need.path);
    }
    return "the runner sandbox does not let the runner read " + need.path + " (" + need.role +
           "); allow it with --sandbox-allow-read " + grant;
  }
  if (user.drop) {
    return "user " + user.name + " (--runner-user) cannot read " + need.path + " (" + need.role +
           "): " + std::strerror(err) +
           "; make it readable for that user (and every folder above it searchable) or name another --runner-user";
  }
  return "cannot read " + need.path + " (" + need.role + "): " + std::strerror(err);
}

}  // namespace pulse::serve
