#include "server-shim/turns/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "core/base/env.h"

namespace pulse::serve {

namespace {

// Rights newer than Debian's kernel headers.
constexpr uint64_t kRefer = 1ULL << 13;      // ABI 2
constexpr uint64_t kTruncate = 1ULL << 14;   // ABI 3
constexpr uint64_t kIoctlDev = 1ULL << 15;   // ABI 5

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

}  // namespace

bool SandboxAvailable() { return GetProbe().abi > 0; }

std::string SandboxDescription() {
  const Probe& p = GetProbe();
  return p.abi > 0 ? "landlock abi " + std::to_string(p.abi) : "unavailable: " + p.reason;
}

void SandboxProbeAndLog() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (SandboxAvailable()) {
      spdlog::info("runner sandbox: {}", SandboxDescription());
    } else {
      spdlog::warn("runner sandbox {}; runners run unconfined (they can write soul.md and read .pulse/)",
                   SandboxDescription());
    }
  });
}

SandboxPolicy RunnerPolicy(const std::string& workflow_dir, const std::string& tmp_dir,
                           const std::vector<std::string>& extra_write, const std::vector<std::string>& extra_read) {
  SandboxPolicy p;
  p.read = {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt",
            "/proc", "/sys", "/run", "/var/lib/dpkg/alternatives"};
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

Result<int> BuildSandboxRuleset(const SandboxPolicy& policy) {
  const Probe& probe = GetProbe();
  if (probe.abi <= 0) return -1;
  uint64_t handled = HandledRights(probe.abi);
  struct landlock_ruleset_attr attr = {};
  attr.handled_access_fs = handled;
  long fd = ::syscall(__NR_landlock_create_ruleset, &attr, sizeof attr, 0);
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

int EnterSandbox(int ruleset_fd) {
  if (ruleset_fd < 0) return 0;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  if (::syscall(__NR_landlock_restrict_self, ruleset_fd, 0) != 0) return errno;
  return 0;
}

}  // namespace pulse::serve
