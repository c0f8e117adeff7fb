// Runner processes: /bin/sh -c COMMAND in its own process group, stdin fed
// from memory, stdout/stderr captured, a hard timeout, everything it starts
// ended with it (runner_tree.h), and (with a ProcessSandbox) its own temp
// dir, the workflow folder as its working directory, the runner user and
// Landlock (sandbox.h).
//
// fork, not posix_spawn, because Landlock must be entered between fork and
// exec; the child only makes raw system calls (safe in a multithreaded
// parent). It gets a clean signal mask and default dispositions, since the
// server blocks SIGTERM/SIGINT in every thread for its signal waiter.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "server-shim/turns/sandbox.h"
#include "core/base/remove_tree.h"
#include "server-shim/turns/runner_tree.h"
#include "server-shim/serve.h"

extern char** environ;

namespace pulse::serve {

namespace {

constexpr size_t kMaxOut = 1 << 20;
constexpr size_t kMaxErr = 16 << 10;
constexpr unsigned kCloseRangeCloexec = 1U << 2;  // CLOSE_RANGE_CLOEXEC (Linux 5.11)

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::mutex g_hidden_mu;
std::vector<std::string> g_hidden;  // the model's key variables (SetHiddenEnvironment)

// Variables a runner never inherits from the server: its own session's
// values are set explicitly, and nothing of the owner's may ride along —
// the model's key least of all.
bool Inheritable(const std::string& key) {
  if (key.rfind("PULSE_", 0) == 0 || key.rfind("MCP_", 0) == 0 || key == "TMPDIR") return false;
  std::lock_guard<std::mutex> l(g_hidden_mu);
  for (const std::string& h : g_hidden) {
    if (key == h) return false;
  }
  return true;
}

std::vector<std::string> ChildEnvironment(const std::map<std::string, std::string>& extra_env) {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    std::string key = kv.substr(0, kv.find('='));
    if (Inheritable(key) && !extra_env.count(key)) out.push_back(kv);
  }
  for (const auto& [k, v] : extra_env) out.push_back(k + "=" + v);
  return out;
}

// What the child reports when it cannot exec: the stage, errno, and which
// path (of `reads` or `writes`) was refused.
enum Stage : int {
  kPipes = 1,
  kWorkDir = 2,
  kSandbox = 3,
  kExec = 4,
  kCgroup = 5,
  kRead = 6,
  kWrite = 7,
  kSupervisor = 8,
};

// Everything the child needs, prepared before fork.
struct Launch {
  std::vector<std::string> env_strings;
  std::vector<char*> envp;
  std::string sh = "/bin/sh", dash_c = "-c", cmd;
  char* argv[4] = {nullptr, nullptr, nullptr, nullptr};
  std::string cwd;
  std::string cgroup_procs;      // cgroup mode: the turn's cgroup.procs
  bool subreaper = false;        // subreaper mode: a supervisor forks the runner
  SandboxEntry sandbox;          // ruleset and runner user
  std::vector<NeededPath> reads; // opened after the sandbox is entered
  std::vector<std::string> writes;  // checked writable for the runner user
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1};
};

void CloseAll(Launch& l) {
  for (int* p : {l.in, l.out, l.err, l.report}) {
    for (int i = 0; i < 2; ++i) {
      if (p[i] >= 0) ::close(p[i]);
      p[i] = -1;
    }
  }
  if (l.sandbox.ruleset >= 0) ::close(l.sandbox.ruleset);
  l.sandbox.ruleset = -1;
}

// Nothing but 0/1/2 crosses exec: the server's listening socket and its
// clients' connections are not the runner's business.
bool MarkInheritedCloseOnExec() {
  if (::syscall(__NR_close_range, 3, ~0U, kCloseRangeCloexec) == 0) return true;
  for (int fd = 3; fd < 65536; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  return true;
}

[[noreturn]] void Report(const Launch& l, int stage, int err, int index = -1) {
  int msg[3] = {stage, err, index};
  (void)!::write(l.report[1], msg, sizeof msg);
  ::_exit(127);
}

// The child: clean signals, its cgroup, pipes onto 0/1/2, sandbox and
// runner user, working directory, the paths it needs, exec. On failure it
// writes {stage, errno, index} to the report pipe.
[[noreturn]] void ChildMain(const Launch& l, bool own_group) {
  sigset_t empty;
  sigemptyset(&empty);
  for (int sig : {SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGUSR1, SIGCHLD}) ::signal(sig, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);
  if (own_group) ::setpgid(0, 0);
  if (!l.cgroup_procs.empty()) {
    // Into the turn's cgroup while nothing else of the turn exists.
    int fd = ::open(l.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::write(fd, "0", 1) != 1) Report(l, kCgroup, errno);
    ::close(fd);
  }
  if (::dup2(l.in[0], 0) < 0 || ::dup2(l.out[1], 1) < 0 || ::dup2(l.err[1], 2) < 0) Report(l, kPipes, errno);
  MarkInheritedCloseOnExec();
  if (int err = EnterSandbox(l.sandbox)) Report(l, kSandbox, err);
  // As the runner user, inside the sandbox: what fails here would fail the
  // runner's first steps, with a message nobody can act on.
  if (!l.cwd.empty() && ::chdir(l.cwd.c_str()) != 0) Report(l, kWorkDir, errno);
  for (size_t i = 0; i < l.reads.size(); ++i) {
    int fd = ::open(l.reads[i].path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd >= 0) {
      ::close(fd);
    } else if (errno == EACCES || errno == EPERM) {
      Report(l, kRead, errno, static_cast<int>(i));
    }
  }
  for (size_t i = 0; i < l.writes.size(); ++i) {
    if (::access(l.writes[i].c_str(), W_OK) != 0 && errno == EACCES) Report(l, kWrite, errno, static_cast<int>(i));
  }
  ::execve(l.argv[0], l.argv, l.envp.data());
  Report(l, kExec, errno);
}

// pid -> its parent's pid, from /proc/<pid>/stat (raw calls only).
pid_t ParentOf(const char* pid_name) {
  char path[64] = "/proc/";
  size_t n = 6;
  for (const char* c = pid_name; *c && n < sizeof path - 6; ++c) path[n++] = *c;
  std::memcpy(path + n, "/stat", 6);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[512];
  ssize_t got = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (got <= 0) return -1;
  buf[got] = 0;
  // "pid (comm) S ppid ...": comm may hold anything, so from the last ')'.
  char* close_paren = nullptr;
  for (char* c = buf; *c; ++c) {
    if (*c == ')') close_paren = c;
  }
  if (!close_paren || close_paren[1] != ' ' || !close_paren[2] || close_paren[3] != ' ') return -1;
  pid_t ppid = 0;
  for (char* c = close_paren + 4; *c >= '0' && *c <= '9'; ++c) ppid = ppid * 10 + (*c - '0');
  return ppid;
}

// SIGKILL to every child of this process (raw calls only).
void KillChildren() {
  const pid_t self = ::getpid();
  int proc = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return;
  alignas(8) char buf[8192];
  for (;;) {
    long got = ::syscall(SYS_getdents64, proc, buf, sizeof buf);
    if (got <= 0) break;
    for (long off = 0; off < got;) {
      // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
      unsigned short reclen;
      std::memcpy(&reclen, buf + off + 16, sizeof reclen);
      const char* name = buf + off + 19;
      off += reclen;
      if (name[0] < '1' || name[0] > '9') continue;
      if (ParentOf(name) != self) continue;
      pid_t pid = 0;
      for (const char* c = name; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
      ::kill(pid, SIGKILL);
    }
  }
  ::close(proc);
}

// Subreaper mode: this process (the supervisor) is a child subreaper, so
// whatever the runner leaves is re-parented here. When the runner ends, or
// the server sends SIGUSR1, it kills its children until none is left, then
// ends as the runner ended. Raw calls only (a child of a threaded server).
[[noreturn]] void SupervisorMain(const Launch& l) {
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGPIPE}) ::signal(sig, SIG_IGN);  // the group's SIGTERM is the runner's
  sigset_t wait_for;
  sigemptyset(&wait_for);
  sigaddset(&wait_for, SIGCHLD);
  sigaddset(&wait_for, SIGUSR1);
  ::sigprocmask(SIG_SETMASK, &wait_for, nullptr);
  ::setpgid(0, 0);
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) Report(l, kSupervisor, errno);
  pid_t runner = ::fork();
  if (runner == 0) ChildMain(l, /*own_group=*/false);
  if (runner < 0) Report(l, kSupervisor, errno);
  // The supervisor holds nothing open: the pipes' EOF is the runner's.
  ::syscall(__NR_close_range, 3, ~0U, 0);
  int status = 0;
  bool runner_done = false;
  auto reap = [&] {
    int st;
    pid_t w;
    while ((w = ::waitpid(-1, &st, WNOHANG)) > 0) {
      if (w == runner) status = st, runner_done = true;
    }
    return w;
  };
  for (;;) {
    int sig = ::sigwaitinfo(&wait_for, nullptr);
    if (sig == SIGUSR1) break;
    reap();
    if (runner_done) break;
  }
  for (;;) {
    if (!runner_done) ::kill(runner, SIGKILL);
    KillChildren();
    if (reap() < 0 && errno == ECHILD) break;
    struct timespec pause = {0, 2000000};
    ::nanosleep(&pause, nullptr);
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    struct rlimit no_core = {0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    ::signal(sig, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    ::kill(::getpid(), sig);
    ::_exit(128 + sig);
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

std::string SpawnError(const Launch& l, const SandboxPolicy& policy, int stage, int err, int index) {
  const RunnerUser& user = l.sandbox.user;
  const std::string as_user = user.drop ? "user " + user.name + " (--runner-user) " : "";
  std::string why;
  switch (stage) {
    case kPipes: why = std::string("cannot set up its pipes: ") + std::strerror(err); break;
    case kWorkDir:
      why = as_user + "cannot enter the workflow folder " + l.cwd + ": " + std::strerror(err);
      if (user.drop && err == EACCES) {
        why += "; every folder above it must be searchable by that user (chmod o+x), or name another --runner-user";
      }
      break;
    case kSandbox: why = std::string("cannot enter the sandbox: ") + std::strerror(err); break;
    case kExec: why = std::string("cannot execute /bin/sh: ") + std::strerror(err); break;
    case kCgroup: why = "cannot join the turn's cgroup " + l.cgroup_procs + ": " + std::strerror(err); break;
    case kRead:
      if (index >= 0 && static_cast<size_t>(index) < l.reads.size()) {
        why = DeniedPathMessage(l.reads[index], err, policy, user, l.sandbox.ruleset >= 0);
      }
      break;
    case kWrite:
      if (index >= 0 && static_cast<size_t>(index) < l.writes.size()) {
        why = as_user + "cannot write " + l.writes[index] + " (--sandbox-allow-write): " + std::strerror(err) +
              "; make it writable for that user or name another --runner-user";
      }
      break;
    case kSupervisor: why = std::string("cannot start its supervisor (subreaper): ") + std::strerror(err); break;
    default: break;
  }
  if (why.empty()) why = std::string("stage ") + std::to_string(stage) + ": " + std::strerror(err);
  return "cannot start the runner: " + why;
}

// Forks the runner (or, in subreaper mode, its supervisor); returns its
// pid, or -1 with `*error` set.
pid_t Spawn(Launch& l, const SandboxPolicy& policy, std::string* error) {
  if (::pipe2(l.in, O_CLOEXEC) != 0 || ::pipe2(l.out, O_CLOEXEC) != 0 || ::pipe2(l.err, O_CLOEXEC) != 0 ||
      ::pipe2(l.report, O_CLOEXEC) != 0) {
    *error = std::string("cannot create pipes: ") + std::strerror(errno);
    return -1;
  }
  for (std::string& s : l.env_strings) l.envp.push_back(s.data());
  l.envp.push_back(nullptr);
  l.argv[0] = l.sh.data();
  l.argv[1] = l.dash_c.data();
  l.argv[2] = l.cmd.data();
  pid_t pid = ::fork();
  if (pid == 0) {
    if (l.subreaper) SupervisorMain(l);
    ChildMain(l, /*own_group=*/true);
  }
  if (pid < 0) {
    *error = std::string("cannot start the runner: ") + std::strerror(errno);
    return -1;
  }
  ::setpgid(pid, pid);  // also here, so a kill(-pid) right away finds the group
  ::close(l.report[1]);
  l.report[1] = -1;
  int msg[3] = {0, 0, -1};
  ssize_t got;
  do {
    got = ::read(l.report[0], msg, sizeof msg);
  } while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof msg)) {
    ::waitpid(pid, nullptr, 0);
    *error = SpawnError(l, policy, msg[0], msg[1], msg[2]);
    return -1;
  }
  return pid;
}

// How a turn's processes are ended: its cgroup, or its supervisor.
struct Tree {
  std::unique_ptr<TurnCgroup> cgroup;
  bool subreaper = false;
  pid_t pid = -1;

  // Everything the turn started, now.
  void KillAll() {
    if (cgroup) cgroup->Kill();
    if (pid > 0) ::kill(subreaper ? pid : -pid, subreaper ? SIGUSR1 : SIGKILL);
  }
  // After the runner (or its supervisor) was reaped.
  void Finish() {
    if (cgroup && !cgroup->KillAndWait(5)) spdlog::warn("runner cgroup: processes still there after 5 s");
  }
};

// Moves stdin/stdout/stderr until the child exits, enforcing the timeout and
// the shutdown grace.
class Pump {
 public:
  Pump(pid_t pid, Tree* tree, const std::string& input, int in_fd, int out_fd, int err_fd, ProcessResult* r,
       size_t out_head)
      : pid_(pid), tree_(tree), input_(input), in_(in_fd), out_(out_fd), err_(err_fd), r_(r), out_head_(out_head) {
    for (int fd : {in_, out_, err_}) SetNonBlocking(fd);
    if (input_.empty()) CloseFd(in_);
  }

  int Run(double timeout_s, const std::atomic<bool>* stopping, double grace_s);

 private:
  void Deadlines(double timeout_s, const std::atomic<bool>* stopping, double grace_s);
  void Drain(int& fd, short revents, std::string& into, size_t cap, bool keep_tail, size_t keep_head = 0);
  void Finish();
  static void CloseFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }

  pid_t pid_;
  Tree* tree_;
  const std::string& input_;
  int in_, out_, err_;
  ProcessResult* r_;
  size_t out_head_;  // past the cap: keep this much of the head, the rest from the tail
  size_t written_ = 0;
  Clock::time_point t0_ = Clock::now();
  Clock::time_point stop_seen_{};
  bool killed_ = false;
  bool killed_all_ = false;
  double kill_at_ = -1;
};

void Pump::Deadlines(double timeout_s, const std::atomic<bool>* stopping, double grace_s) {
  if (killed_) {
    if (!killed_all_ && Since(t0_) - kill_at_ > 2.0) {
      tree_->KillAll();
      killed_all_ = true;
    }
    return;
  }
  bool stop_now = stopping && stopping->load();
  if (stop_now && stop_seen_ == Clock::time_point{}) stop_seen_ = Clock::now();
  bool grace_over = stop_now && Since(stop_seen_) >= grace_s;
  if (Since(t0_) >= timeout_s || grace_over) {
    if (grace_over && Since(t0_) < timeout_s) r_->interrupted = true; else r_->timed_out = true;
    ::kill(-pid_, SIGTERM);
    killed_ = true;
    kill_at_ = Since(t0_);
  }
}

void Pump::Drain(int& fd, short revents, std::string& into, size_t cap, bool keep_tail, size_t keep_head) {
  if (fd < 0 || !revents) return;
  char buf[8192];
  ssize_t got = ::read(fd, buf, sizeof buf);
  if (got > 0) {
    into.append(buf, static_cast<size_t>(got));
    if (into.size() > cap && keep_head > 0 && keep_head < cap) {
      into.erase(keep_head, into.size() - cap);
    } else if (into.size() > cap) {
      into = keep_tail ? into.substr(into.size() - cap) : into.substr(0, cap);
    }
  } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
    CloseFd(fd);
  }
}

int Pump::Run(double timeout_s, const std::atomic<bool>* stopping, double grace_s) {
  int wstatus = 0;
  for (;;) {
    Deadlines(timeout_s, stopping, grace_s);
    struct pollfd fds[3] = {{in_, POLLOUT, 0}, {out_, POLLIN, 0}, {err_, POLLIN, 0}};
    if (in_ >= 0 || out_ >= 0 || err_ >= 0) {
      ::poll(fds, 3, 100);  // negative fds are ignored by poll
    } else {
      ::usleep(20000);
    }
    if (in_ >= 0 && fds[0].revents) {
      ssize_t w = (fds[0].revents & (POLLERR | POLLHUP)) ? -1 : ::write(in_, input_.data() + written_, input_.size() - written_);
      if (w > 0) written_ += static_cast<size_t>(w);
      if ((w < 0 && errno != EAGAIN && errno != EINTR) || written_ >= input_.size()) CloseFd(in_);
    }
    Drain(out_, fds[1].revents, r_->out, kMaxOut, false, out_head_);
    Drain(err_, fds[2].revents, r_->err, kMaxErr, true);
    if (::waitpid(pid_, &wstatus, WNOHANG) == pid_) break;
  }
  Finish();
  return wstatus;
}

// The runner is gone; whatever it started (that kept the pipes open, or
// detached) is killed with its cgroup, or was by its supervisor, so nothing
// outlives the turn.
void Pump::Finish() {
  tree_->Finish();
  if (out_ >= 0) {
    char buf[8192];
    ssize_t got;
    while ((got = ::read(out_, buf, sizeof buf)) > 0) {
      r_->out.append(buf, got);
      if (r_->out.size() <= kMaxOut) continue;
      if (out_head_ == 0 || out_head_ >= kMaxOut) {
        r_->out.resize(kMaxOut);
        break;
      }
      r_->out.erase(out_head_, r_->out.size() - kMaxOut);
    }
  }
  for (int* fd : {&in_, &out_, &err_}) CloseFd(*fd);
}

}  // namespace

void SetHiddenEnvironment(const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> l(g_hidden_mu);
  for (const std::string& n : names) {
    if (std::find(g_hidden.begin(), g_hidden.end(), n) == g_hidden.end()) g_hidden.push_back(n);
  }
}

ProcessSandbox RunnerSandbox(const ServeOptions& options, const std::string& workflow_dir) {
  ProcessSandbox box;
  box.workspace = options.workspace;
  box.workflow_dir = workflow_dir;
  box.options = options.sandbox;
  return box;
}

namespace {

// The sandbox around one runner, set up in the parent: its temp dir (made
// the runner user's), $TMPDIR/$HOME/$USER, the Landlock ruleset, the runner
// user, the paths the child checks before exec and the command (exec'd when
// plain). "" or the reason it cannot start.
std::string PrepareSandbox(const ProcessSandbox& box, const std::string& command, Launch& l,
                           std::map<std::string, std::string>& env, std::string* tmp_dir, SandboxPolicy* policy) {
  Result<RunnerUser> user = ResolveRunnerUser(box.options.runner_user);
  if (!user.ok()) return user.status().message();
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/pulse-runner-XXXXXX";
  if (::mkdtemp(tmpl.data())) *tmp_dir = tmpl;
  int tmp_fd = tmp_dir->empty() ? -1 : ::open(tmp_dir->c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (!tmp_dir->empty()) env["TMPDIR"] = *tmp_dir;
  if (user->drop) {
    // Its own user's names; a home it cannot use is its temp dir.
    struct stat st;
    bool home_ok = !user->home.empty() && ::stat(user->home.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    env["HOME"] = home_ok ? user->home : *tmp_dir;
    env["USER"] = env["LOGNAME"] = user->name;
  }
  l.cwd = box.workflow_dir;
  std::vector<std::string> writes = box.options.allow_write;
  std::vector<std::string> reads = box.options.allow_read;
  reads.insert(reads.end(), box.read.begin(), box.read.end());
  if (!box.home.empty()) {
    // A preset program's home: its own, whoever it runs as.
    env["HOME"] = box.home;
    writes.push_back(box.home);
    GiveToRunnerUser(*user, box.home);
  }
  *policy = RunnerPolicy(box.workflow_dir, *tmp_dir, writes, reads);
  PrepareForRunnerUser(*user, box.workspace, box.workflow_dir, tmp_fd);
  if (tmp_fd >= 0) ::close(tmp_fd);
  Result<int> ruleset = BuildSandboxRuleset(*policy);
  if (!ruleset.ok()) return ruleset.status().message();
  l.sandbox = MakeSandboxEntry(*ruleset, *user);
  const char* path_env = std::getenv("PATH");
  const std::string path = path_env ? path_env : "/usr/bin:/bin";
  l.reads = RunnerNeeds(command, l.cwd, path);
  l.cmd = ExecIfSimple(command, l.cwd, path);
  if (user->drop) l.writes = box.options.allow_write;
  return "";
}

}  // namespace

ProcessResult RunProcess(const std::string& command, const std::string& input,
                         const std::map<std::string, std::string>& extra_env, double timeout_s,
                         const std::atomic<bool>* stopping, double grace_s, const ProcessSandbox* sandbox) {
  ProcessResult r;
  Launch l;
  l.cmd = command;
  Tree tree;
  Result<TreeMode> mode = ResolveRunnerTracking(sandbox ? sandbox->options.tracking : "auto");
  if (!mode.ok()) {
    r.spawn_error = mode.status().message();
    return r;
  }
  if (*mode == TreeMode::kCgroup) {
    Result<std::unique_ptr<TurnCgroup>> cg = TurnCgroup::Create();
    if (!cg.ok()) {
      r.spawn_error = "cannot start the runner: " + cg.status().message();
      return r;
    }
    tree.cgroup = std::move(cg).value();
    l.cgroup_procs = tree.cgroup->procs_file();
  } else {
    tree.subreaper = l.subreaper = true;
  }
  std::map<std::string, std::string> env = extra_env;
  std::string tmp_dir;
  SandboxPolicy policy;
  if (sandbox) r.spawn_error = PrepareSandbox(*sandbox, command, l, env, &tmp_dir, &policy);
  l.env_strings = ChildEnvironment(env);
  pid_t pid = r.spawn_error.empty() ? Spawn(l, policy, &r.spawn_error) : -1;
  if (pid > 0) {
    tree.pid = pid;
    int in_fd = l.in[1], out_fd = l.out[0], err_fd = l.err[0];
    l.in[1] = l.out[0] = l.err[0] = -1;  // the pump owns these now
    CloseAll(l);
    Pump pump(pid, &tree, input, in_fd, out_fd, err_fd, &r, sandbox ? sandbox->out_head : 0);
    int wstatus = pump.Run(timeout_s, stopping, grace_s);
    if (WIFEXITED(wstatus)) r.exit_code = WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus)) r.signal = WTERMSIG(wstatus);
  } else {
    tree.Finish();
  }
  CloseAll(l);
  // Nothing of the turn is left to race the removal, and the removal
  // follows no link anyway (core/base/remove_tree.h).
  if (!tmp_dir.empty()) {
    Status removed = RemoveTreeNoFollow(tmp_dir);
    if (!removed.ok()) spdlog::warn("runner temp dir: {}", removed.message());
  }
  return r;
}

}  // namespace pulse::serve
