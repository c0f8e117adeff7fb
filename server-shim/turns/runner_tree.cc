#include "server-shim/turns/runner_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace pulse::serve {

namespace {

using Clock = std::chrono::steady_clock;

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool WriteSmall(const std::string& path, const char* text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text, std::strlen(text)) == static_cast<ssize_t>(std::strlen(text));
  ::close(fd);
  return ok;
}

bool Populated(const std::string& dir) {
  std::string events = ReadSmallFile(dir + "/cgroup.events");
  return events.find("populated 0") == std::string::npos;
}

// Kills what is in `dir` and waits until it is empty (up to `seconds`).
bool KillCgroup(const std::string& dir, double seconds) {
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (int round = 0;; ++round) {
    if (round % 50 == 0) WriteSmall(dir + "/cgroup.kill", "1");
    if (!Populated(dir)) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// The cgroup2 mount (mount point and the cgroup path it shows) from
// /proc/self/mountinfo: "id parent dev ROOT MOUNTPOINT opts ... - cgroup2 ...".
bool FindCgroup2(std::string* mount, std::string* root) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    size_t dash = line.find(" - cgroup2 ");
    if (dash == std::string::npos) continue;
    std::istringstream f(line.substr(0, dash));
    std::string id, parent, dev;
    if (f >> id >> parent >> dev >> *root >> *mount) return true;
  }
  return false;
}

// Runner cgroups of servers that died without removing theirs: what is in
// them is killed (a crashed server's runners do not outlive it either).
void RemoveStale(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  const std::string prefix = "pulse-runners-";
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    char* end = nullptr;
    long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (pid <= 0 || *end != '\0' || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::string base = dir + "/" + name;
    if (DIR* sub = ::opendir(base.c_str())) {
      while (struct dirent* t = ::readdir(sub)) {
        std::string turn = t->d_name;
        if (turn.rfind("turn-", 0) != 0 && turn != "probe") continue;
        KillCgroup(base + "/" + turn, 2);
        ::rmdir((base + "/" + turn).c_str());
      }
      ::closedir(sub);
    }
    ::rmdir(base.c_str());
  }
  ::closedir(d);
}

struct CgroupProbe {
  std::string base;
  std::string reason;
};

// Moves a forked child into `probe` and reports whether that worked.
std::string TryJoin(const std::string& procs) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    int err = fd < 0 ? errno : (::write(fd, "0", 1) == 1 ? 0 : errno);
    ::_exit(err & 0xff);
  }
  if (pid < 0) return std::string("cannot fork: ") + std::strerror(errno);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return "cannot move a process into " + procs + ": " +
         std::strerror(WIFEXITED(status) ? WEXITSTATUS(status) : EINVAL);
}

CgroupProbe ProbeCgroup() {
  CgroupProbe p;
  std::string mount, root;
  if (!FindCgroup2(&mount, &root)) {
    p.reason = "no cgroup v2 file system is mounted";
    return p;
  }
  std::string own;
  {
    std::ifstream in("/proc/self/cgroup");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("0::", 0) == 0) own = line.substr(3);
    }
  }
  if (own.empty()) {
    p.reason = "this process has no cgroup v2 (no 0:: line in /proc/self/cgroup)";
    return p;
  }
  if (root != "/" && own.rfind(root, 0) != 0) {
    p.reason = "this process's cgroup " + own + " is outside the cgroup v2 mount at " + mount;
    return p;
  }
  std::string rel = root == "/" ? own : own.substr(root.size());
  std::string dir = mount + (rel == "/" ? "" : rel);
  RemoveStale(dir);
  std::string base = dir + "/pulse-runners-" + std::to_string(::getpid());
  if (::mkdir(base.c_str(), 0755) != 0 && errno != EEXIST) {
    p.reason = "cannot create " + base + ": " + std::strerror(errno);
    return p;
  }
  std::string probe = base + "/probe";
  if (::mkdir(probe.c_str(), 0755) != 0 && errno != EEXIST) {
    p.reason = "cannot create " + probe + ": " + std::strerror(errno);
  } else if (::access((probe + "/cgroup.kill").c_str(), W_OK) != 0) {
    p.reason = "the kernel has no cgroup.kill (Linux 5.14)";
  } else {
    p.reason = TryJoin(probe + "/cgroup.procs");
  }
  KillCgroup(probe, 2);
  ::rmdir(probe.c_str());
  if (!p.reason.empty()) {
    ::rmdir(base.c_str());
    return p;
  }
  p.base = base;
  return p;
}

const CgroupProbe& Probe() {
  static CgroupProbe probe = ProbeCgroup();
  // The base goes with the process (its turn cgroups are gone by then).
  static struct Remover {
    std::string base;
    ~Remover() {
      if (!base.empty()) ::rmdir(base.c_str());
    }
  } remover{probe.base};
  return probe;
}

std::atomic<uint64_t> g_turns{0};

}  // namespace

std::string CgroupUnavailableReason() { return Probe().reason; }
std::string RunnerCgroupBase() { return Probe().base; }

Result<TreeMode> ResolveRunnerTracking(const std::string& flag) {
  if (flag == "subreaper") return TreeMode::kSubreaper;
  if (flag == "auto" || flag.empty()) return Probe().base.empty() ? TreeMode::kSubreaper : TreeMode::kCgroup;
  if (flag == "cgroup") {
    if (Probe().base.empty()) return Status::InvalidArgument("--runner-tracking cgroup: " + Probe().reason);
    return TreeMode::kCgroup;
  }
  return Status::InvalidArgument("--runner-tracking: \"" + flag + "\" is not auto, cgroup or subreaper");
}

TurnCgroup::TurnCgroup(std::string dir) : dir_(std::move(dir)), procs_(dir_ + "/cgroup.procs") {}

Result<std::unique_ptr<TurnCgroup>> TurnCgroup::Create() {
  const std::string& base = Probe().base;
  if (base.empty()) return Status::IoError("no runner cgroup: " + Probe().reason);
  std::string dir = base + "/turn-" + std::to_string(++g_turns);
  if (::mkdir(dir.c_str(), 0755) != 0) {
    return Status::IoError("cannot create the turn's cgroup " + dir + ": " + std::strerror(errno));
  }
  return std::unique_ptr<TurnCgroup>(new TurnCgroup(dir));
}

void TurnCgroup::Kill() { WriteSmall(dir_ + "/cgroup.kill", "1"); }

bool TurnCgroup::KillAndWait(double seconds) { return KillCgroup(dir_, seconds); }

TurnCgroup::~TurnCgroup() {
  KillCgroup(dir_, 5);
  for (int i = 0; i < 100 && ::rmdir(dir_.c_str()) != 0 && errno == EBUSY; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace pulse::serve
