// Runner processes: /bin/sh -c COMMAND in its own process group, stdin fed
// from memory, stdout/stderr captured, a hard timeout. posix_spawn (not fork)
// because the server is multithreaded; the child gets a clean signal mask,
// since the server blocks SIGTERM/SIGINT in every thread for its signal
// waiter.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "server-shim/serve.h"

extern char** environ;

namespace pulse::serve {

namespace {

constexpr size_t kMaxOut = 1 << 20;
constexpr size_t kMaxErr = 16 << 10;

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

ProcessResult RunProcess(const std::string& command, const std::string& input,
                         const std::map<std::string, std::string>& extra_env, double timeout_s,
                         const std::atomic<bool>* stopping, double grace_s) {
  ProcessResult r;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.spawn_error = std::string("cannot create pipes: ") + std::strerror(errno);
    return r;
  }

  // Environment: ours plus the turn's variables (which win).
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    std::string key = kv.substr(0, kv.find('='));
    if (!extra_env.count(key)) env_strings.push_back(kv);
  }
  for (const auto& [k, v] : extra_env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string sh = "/bin/sh", dash_c = "-c", cmd = command;
  char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    r.spawn_error = std::string("cannot start the runner: ") + std::strerror(rc);
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return r;
  }

  SetNonBlocking(in_pipe[1]);
  SetNonBlocking(out_pipe[0]);
  SetNonBlocking(err_pipe[0]);
  int in_fd = in_pipe[1], out_fd = out_pipe[0], err_fd = err_pipe[0];
  size_t written = 0;
  if (input.empty()) { ::close(in_fd); in_fd = -1; }

  auto t0 = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point stop_seen{};
  bool killed = false;
  double kill_at = -1;  // seconds since t0 when SIGTERM went out
  bool exited = false;
  int wstatus = 0;
  char buf[8192];

  while (!exited) {
    // Deadline: the timeout, or the shutdown grace.
    if (!killed) {
      bool stop_now = stopping && stopping->load();
      if (stop_now && stop_seen == std::chrono::steady_clock::time_point{}) stop_seen = std::chrono::steady_clock::now();
      bool grace_over = stop_now && Since(stop_seen) >= grace_s;
      if (Since(t0) >= timeout_s || grace_over) {
        if (grace_over && Since(t0) < timeout_s) r.interrupted = true; else r.timed_out = true;
        ::kill(-pid, SIGTERM);
        killed = true;
        kill_at = Since(t0);
      }
    } else if (Since(t0) - kill_at > 2.0) {
      ::kill(-pid, SIGKILL);
    }

    struct pollfd fds[3];
    int n = 0;
    int idx_in = -1, idx_out = -1, idx_err = -1;
    if (in_fd >= 0) { fds[n] = {in_fd, POLLOUT, 0}; idx_in = n++; }
    if (out_fd >= 0) { fds[n] = {out_fd, POLLIN, 0}; idx_out = n++; }
    if (err_fd >= 0) { fds[n] = {err_fd, POLLIN, 0}; idx_err = n++; }
    if (n > 0) {
      ::poll(fds, n, 100);
    } else {
      ::usleep(20000);
    }
    if (idx_in >= 0 && fds[idx_in].revents) {
      if (fds[idx_in].revents & (POLLERR | POLLHUP)) {
        ::close(in_fd); in_fd = -1;
      } else {
        ssize_t w = ::write(in_fd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || written >= input.size()) { ::close(in_fd); in_fd = -1; }
      }
    }
    auto drain = [&](int& fd, int idx, std::string& into, size_t cap, bool keep_tail) {
      if (idx < 0 || !fds[idx].revents) return;
      ssize_t got = ::read(fd, buf, sizeof buf);
      if (got > 0) {
        into.append(buf, static_cast<size_t>(got));
        if (into.size() > cap) into = keep_tail ? into.substr(into.size() - cap) : into.substr(0, cap);
      } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        ::close(fd); fd = -1;
      }
    };
    drain(out_fd, idx_out, r.out, kMaxOut, false);
    drain(err_fd, idx_err, r.err, kMaxErr, true);

    pid_t w = ::waitpid(pid, &wstatus, WNOHANG);
    if (w == pid) exited = true;
  }
  // The shell is gone; grandchildren that kept the pipes open are killed with
  // the group so nothing outlives the turn.
  ::kill(-pid, SIGKILL);
  for (int fd : {in_fd, out_fd, err_fd}) {
    if (fd >= 0) {
      if (fd == out_fd) { ssize_t got; while ((got = ::read(fd, buf, sizeof buf)) > 0 && r.out.size() < kMaxOut) r.out.append(buf, got); }
      ::close(fd);
    }
  }
  if (WIFEXITED(wstatus)) r.exit_code = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) r.signal = WTERMSIG(wstatus);
  return r;
}

}  // namespace pulse::serve
