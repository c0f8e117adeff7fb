// Runner processes: /bin/sh -c COMMAND in its own process group, stdin fed
// from memory, stdout/stderr captured, a hard timeout, and (with a
// ProcessSandbox) its own temp dir, the workflow folder as its working
// directory and Landlock (sandbox.h).
//
// fork, not posix_spawn, because Landlock must be entered between fork and
// exec; the child only makes raw system calls (safe in a multithreaded
// parent). It gets a clean signal mask and default dispositions, since the
// server blocks SIGTERM/SIGINT in every thread for its signal waiter.
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "server-shim/turns/sandbox.h"
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

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }

// Everything the child needs, prepared before fork.
struct Launch {
  std::vector<std::string> env_strings;
  std::vector<char*> envp;
  std::string sh = "/bin/sh", dash_c = "-c", cmd;
  char* argv[4] = {nullptr, nullptr, nullptr, nullptr};
  std::string cwd;
  int ruleset = -1;
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1};
};

void CloseAll(Launch& l) {
  for (int* p : {l.in, l.out, l.err, l.report}) {
    for (int i = 0; i < 2; ++i) {
      if (p[i] >= 0) ::close(p[i]);
      p[i] = -1;
    }
  }
  if (l.ruleset >= 0) ::close(l.ruleset);
  l.ruleset = -1;
}

// Nothing but 0/1/2 crosses exec: the server's listening socket and its
// clients' connections are not the runner's business.
bool MarkInheritedCloseOnExec() {
  if (::syscall(__NR_close_range, 3, ~0U, kCloseRangeCloexec) == 0) return true;
  for (int fd = 3; fd < 65536; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  return true;
}

// The child: pipes onto 0/1/2, clean signals, own group, working directory,
// sandbox, exec. On failure it writes {stage, errno} to the report pipe.
[[noreturn]] void ChildMain(Launch& l) {
  sigset_t empty;
  sigemptyset(&empty);
  for (int sig : {SIGTERM, SIGINT, SIGPIPE}) ::signal(sig, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);
  ::setpgid(0, 0);
  int stage = 0, err = 0;
  if (::dup2(l.in[0], 0) < 0 || ::dup2(l.out[1], 1) < 0 || ::dup2(l.err[1], 2) < 0) {
    stage = 1, err = errno;
  } else if (!MarkInheritedCloseOnExec()) {
    stage = 1, err = errno;
  } else if (!l.cwd.empty() && ::chdir(l.cwd.c_str()) != 0) {
    stage = 2, err = errno;
  } else if ((err = EnterSandbox(l.ruleset)) != 0) {
    stage = 3;
  } else {
    ::execve(l.argv[0], l.argv, l.envp.data());
    stage = 4, err = errno;
  }
  int msg[2] = {stage, err};
  (void)!::write(l.report[1], msg, sizeof msg);
  ::_exit(127);
}

std::string SpawnError(int stage, int err) {
  static const char* what[] = {"", "cannot set up its pipes", "cannot enter the workflow folder",
                               "cannot enter the sandbox", "cannot execute /bin/sh"};
  return std::string("cannot start the runner: ") + what[stage < 5 ? stage : 0] + ": " + std::strerror(err);
}

// Forks the runner; returns its pid, or -1 with `*error` set.
pid_t Spawn(Launch& l, std::string* error) {
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
  if (pid == 0) ChildMain(l);
  if (pid < 0) {
    *error = std::string("cannot start the runner: ") + std::strerror(errno);
    return -1;
  }
  ::setpgid(pid, pid);  // also here, so a kill(-pid) right away finds the group
  ::close(l.report[1]);
  l.report[1] = -1;
  int msg[2] = {0, 0};
  ssize_t got;
  do {
    got = ::read(l.report[0], msg, sizeof msg);
  } while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof msg)) {
    ::waitpid(pid, nullptr, 0);
    *error = SpawnError(msg[0], msg[1]);
    return -1;
  }
  return pid;
}

// Moves stdin/stdout/stderr until the child exits, enforcing the timeout and
// the shutdown grace.
class Pump {
 public:
  Pump(pid_t pid, const std::string& input, int in_fd, int out_fd, int err_fd, ProcessResult* r)
      : pid_(pid), input_(input), in_(in_fd), out_(out_fd), err_(err_fd), r_(r) {
    for (int fd : {in_, out_, err_}) SetNonBlocking(fd);
    if (input_.empty()) CloseFd(in_);
  }

  int Run(double timeout_s, const std::atomic<bool>* stopping, double grace_s);

 private:
  void Deadlines(double timeout_s, const std::atomic<bool>* stopping, double grace_s);
  void Drain(int& fd, short revents, std::string& into, size_t cap, bool keep_tail);
  void Finish();
  static void CloseFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }

  pid_t pid_;
  const std::string& input_;
  int in_, out_, err_;
  ProcessResult* r_;
  size_t written_ = 0;
  Clock::time_point t0_ = Clock::now();
  Clock::time_point stop_seen_{};
  bool killed_ = false;
  double kill_at_ = -1;
};

void Pump::Deadlines(double timeout_s, const std::atomic<bool>* stopping, double grace_s) {
  if (killed_) {
    if (Since(t0_) - kill_at_ > 2.0) ::kill(-pid_, SIGKILL);
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

void Pump::Drain(int& fd, short revents, std::string& into, size_t cap, bool keep_tail) {
  if (fd < 0 || !revents) return;
  char buf[8192];
  ssize_t got = ::read(fd, buf, sizeof buf);
  if (got > 0) {
    into.append(buf, static_cast<size_t>(got));
    if (into.size() > cap) into = keep_tail ? into.substr(into.size() - cap) : into.substr(0, cap);
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
    Drain(out_, fds[1].revents, r_->out, kMaxOut, false);
    Drain(err_, fds[2].revents, r_->err, kMaxErr, true);
    if (::waitpid(pid_, &wstatus, WNOHANG) == pid_) break;
  }
  Finish();
  return wstatus;
}

// The shell is gone; grandchildren that kept the pipes open are killed with
// the group so nothing outlives the turn.
void Pump::Finish() {
  ::kill(-pid_, SIGKILL);
  if (out_ >= 0) {
    char buf[8192];
    ssize_t got;
    while ((got = ::read(out_, buf, sizeof buf)) > 0 && r_->out.size() < kMaxOut) r_->out.append(buf, got);
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
  box.workflow_dir = workflow_dir;
  box.extra_write = options.sandbox_allow_write;
  box.extra_read = options.sandbox_allow_read;
  return box;
}

ProcessResult RunProcess(const std::string& command, const std::string& input,
                         const std::map<std::string, std::string>& extra_env, double timeout_s,
                         const std::atomic<bool>* stopping, double grace_s, const ProcessSandbox* sandbox) {
  ProcessResult r;
  Launch l;
  l.cmd = command;
  std::map<std::string, std::string> env = extra_env;
  std::string tmp_dir;
  if (sandbox) {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/pulse-runner-XXXXXX";
    if (::mkdtemp(tmpl.data())) tmp_dir = tmpl;
    if (!tmp_dir.empty()) env["TMPDIR"] = tmp_dir;
    l.cwd = sandbox->workflow_dir;
    Result<int> ruleset = BuildSandboxRuleset(
        RunnerPolicy(sandbox->workflow_dir, tmp_dir, sandbox->extra_write, sandbox->extra_read));
    if (!ruleset.ok()) {
      r.spawn_error = ruleset.status().message();
      return r;
    }
    l.ruleset = *ruleset;
  }
  l.env_strings = ChildEnvironment(env);
  pid_t pid = Spawn(l, &r.spawn_error);
  if (pid > 0) {
    int in_fd = l.in[1], out_fd = l.out[0], err_fd = l.err[0];
    l.in[1] = l.out[0] = l.err[0] = -1;  // the pump owns these now
    CloseAll(l);
    Pump pump(pid, input, in_fd, out_fd, err_fd, &r);
    int wstatus = pump.Run(timeout_s, stopping, grace_s);
    if (WIFEXITED(wstatus)) r.exit_code = WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus)) r.signal = WTERMSIG(wstatus);
  }
  CloseAll(l);
  if (!tmp_dir.empty()) ::nftw(tmp_dir.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
  return r;
}

}  // namespace pulse::serve
