#include "server-shim/http/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "server-shim/http/http_conn.h"
#include "server-shim/http/http_util.h"

namespace pulse::serve {

namespace {

thread_local bool* t_close_after = nullptr;

// httplib does not say why a bind failed; a probe bind with the same
// options does.
std::string WhyBindFails(const std::string& host, int port) {
  struct addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  struct addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0 || !res) {
    return "not an address of this machine";
  }
  int err = 0;
  int fd = ::socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
  if (fd >= 0) {
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, res->ai_addr, res->ai_addrlen) != 0) err = errno;
    ::close(fd);
  }
  ::freeaddrinfo(res);
  if (err == EADDRINUSE) return "port in use (is another pulse serve running?)";
  if (err == EADDRNOTAVAIL) return "not an address of this machine";
  if (err == EACCES) return "permission denied (ports below 1024 need privileges)";
  return err ? std::strerror(err) : "port in use, or not an address of this machine";
}

}  // namespace

namespace {

// Input of this connection not yet read: buffered here, or waiting in the
// socket.
bool HasUnreadInput(const Conn* c) {
  if (!c->pending.empty()) return true;
  int n = 0;
  return ::ioctl(c->fd, FIONREAD, &n) == 0 && n > 0;
}

}  // namespace

void CloseConnectionAfterResponse() {
  if (t_close_after) *t_close_after = true;
}

// Owns every open connection: admission (caps), the parked set and the one
// thread that polls it, and closing.
class ConnectionGate {
 public:
  ConnectionGate(const ConnectionLimits& limits) : limits_(limits) {}
  ~ConnectionGate() { Stop(); }

  void Start(std::function<void(int)> dispatch, httplib::TaskQueue* queue) {
    std::lock_guard<std::mutex> l(mu_);
    dispatch_ = std::move(dispatch);
    queue_ = queue;
    stopping_ = false;
    if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
    thread_ = std::thread([this] { PollLoop(); });
  }

  // Closes every parked connection and stops the poller; afterwards Park
  // refuses, so workers close what they hold.
  void Stop() {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    Wake();
    if (thread_.joinable()) thread_.join();
    std::vector<int> parked;
    {
      std::lock_guard<std::mutex> l(mu_);
      for (auto& [fd, c] : parked_) parked.push_back(fd);
    }
    for (int fd : parked) Close(fd);
    for (int& fd : wake_) {
      if (fd >= 0) ::close(fd);
      fd = -1;
    }
  }

  // The connection for `fd`, admitting it (subject to the caps) when new;
  // null when refused (the fd is closed).
  Conn* Acquire(int fd) {
    std::unique_lock<std::mutex> l(mu_);
    auto it = conns_.find(fd);
    if (it != conns_.end()) return it->second.get();
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    SocketAddress(fd, /*peer=*/true, &c->addr, &c->port);
    // An answer goes out in more than one write (header, body); with Nagle's
    // algorithm the second waits for the client's delayed ACK, 40 ms on a
    // keep-alive connection.
    int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    // At a cap, the connection that has waited longest without a complete
    // request makes room: holding connections open cannot lock others out.
    // Only when every connection is busy with a request is the new one refused.
    std::vector<int> evicted;
    const char* refusal = nullptr;
    while (!refusal && static_cast<int>(conns_.size()) - static_cast<int>(evicted.size()) >= limits_.max_connections) {
      int victim = OldestParked(nullptr);
      if (victim < 0) refusal = "too many open connections"; else evicted.push_back(victim);
    }
    while (!refusal && per_client_[c->addr] >= limits_.max_per_client) {
      int victim = OldestParked(&c->addr);
      if (victim < 0) refusal = "too many open connections from this address"; else evicted.push_back(victim);
    }
    if (!refusal) {
      ++per_client_[c->addr];
      conns_[fd] = std::move(c);
    }
    l.unlock();
    for (int victim : evicted) Close(victim);
    if (refusal) {
      SendBestEffort(fd, 503, "Service Unavailable", refusal);
      ::close(fd);
      return nullptr;
    }
    std::lock_guard<std::mutex> again(mu_);
    return conns_.at(fd).get();
  }

  // Hands a connection waiting for (the rest of) a request to the poller.
  // False when stopping (the caller closes it).
  bool Park(Conn* c) {
    Clock::time_point deadline =
        c->waiting_since + ToDuration(c->pending.empty() && c->served > 0 ? limits_.idle_timeout : limits_.header_timeout);
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopping_) return false;
      parked_[c->fd] = Parked{deadline, false};
    }
    Wake();
    return true;
  }

  // Closes a connection whose request body was not read to its end. Closing
  // with unread input makes the kernel send a reset, which can destroy the
  // answer before the client reads it; so the write side is shut, the rest
  // is read and dropped by the poller, and the socket closes when the client
  // does (at most 2 s or 16 MiB later).
  void Linger(Conn* c) {
    ::shutdown(c->fd, SHUT_WR);
    {
      std::lock_guard<std::mutex> l(mu_);
      if (!stopping_) {
        c->pending.clear();
        c->served = 0;  // reused as the count of dropped bytes
        parked_[c->fd] = Parked{Clock::now() + std::chrono::seconds(2), true};
        Wake();
        return;
      }
    }
    Close(c->fd);
  }

  void Close(int fd) {
    {
      std::lock_guard<std::mutex> l(mu_);
      parked_.erase(fd);
      auto it = conns_.find(fd);
      if (it == conns_.end()) return;
      // An evicted connection left its client's count already.
      bool counted = evicting_.erase(fd) == 0;
      auto pc = per_client_.find(it->second->addr);
      if (pc != per_client_.end() && (counted ? --pc->second : pc->second) <= 0) per_client_.erase(pc);
      conns_.erase(it);
    }
    ::shutdown(fd, SHUT_RDWR);
    ::close(fd);
  }

  int Open() const {
    std::lock_guard<std::mutex> l(mu_);
    return static_cast<int>(conns_.size());
  }

 private:
  static Clock::duration ToDuration(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }

  void Wake() {
    if (wake_[1] >= 0) (void)!::write(wake_[1], "x", 1);
  }

  void PollLoop();
  bool DropInput(int fd);

  // The parked connection (of `addr`, when given) waiting the longest; it
  // leaves the parked set and its client's count at once, so the caller can
  // close it after unlocking. -1 when none. REQUIRES: mu_.
  int OldestParked(const std::string* addr) {
    int best = -1;
    Clock::time_point since = Clock::time_point::max();
    for (auto& [fd, p] : parked_) {
      const Conn& c = *conns_.at(fd);
      if ((addr && c.addr != *addr) || c.waiting_since >= since) continue;
      best = fd;
      since = c.waiting_since;
    }
    if (best >= 0) {
      parked_.erase(best);
      auto pc = per_client_.find(conns_.at(best)->addr);
      if (pc != per_client_.end()) --pc->second;
      evicting_.insert(best);
    }
    return best;
  }

  ConnectionLimits limits_;
  mutable std::mutex mu_;
  std::map<int, std::unique_ptr<Conn>> conns_;
  std::map<std::string, int> per_client_;
  std::set<int> evicting_;  // taken by OldestParked, closed right after
  struct Parked {
    Clock::time_point deadline;
    bool draining = false;  // answered and half-closed: read and discard until the client closes
  };
  std::map<int, Parked> parked_;
  std::function<void(int)> dispatch_;
  httplib::TaskQueue* queue_ = nullptr;
  bool stopping_ = true;
  int wake_[2] = {-1, -1};
  std::thread thread_;
};

void ConnectionGate::PollLoop() {
  std::vector<struct pollfd> fds;
  for (;;) {
    Clock::time_point next = Clock::now() + std::chrono::seconds(1);
    std::vector<std::pair<int, bool>> expired;  // fd, a header had started
    fds.clear();
    fds.push_back({wake_[0], POLLIN, 0});
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopping_) return;
      Clock::time_point now = Clock::now();
      for (auto& [fd, p] : parked_) {
        if (p.deadline <= now) {
          auto it = conns_.find(fd);
          expired.push_back({fd, !p.draining && it != conns_.end() && !it->second->pending.empty()});
        } else {
          fds.push_back({fd, POLLIN, 0});
          next = std::min(next, p.deadline);
        }
      }
      for (auto& e : expired) parked_.erase(e.first);
    }
    // A connection that started a request and did not finish its header gets
    // a reason; an idle one is just closed.
    for (auto& [fd, started] : expired) {
      if (started) SendBestEffort(fd, 408, "Request Timeout", "the request header did not arrive in time");
      Close(fd);
    }
    int ms = std::max(0, static_cast<int>(SecondsUntil(next) * 1000) + 1);
    int n = ::poll(fds.data(), fds.size(), ms);
    if (n <= 0) continue;
    if (fds[0].revents) {
      char buf[256];
      while (::read(wake_[0], buf, sizeof buf) > 0) {
      }
    }
    std::vector<int> ready, drained;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopping_) return;
      for (size_t i = 1; i < fds.size(); ++i) {
        auto it = fds[i].revents ? parked_.find(fds[i].fd) : parked_.end();
        if (it == parked_.end()) continue;
        if (it->second.draining) {
          if (!DropInput(fds[i].fd)) drained.push_back(fds[i].fd);
        } else {
          parked_.erase(it);
          ready.push_back(fds[i].fd);
        }
      }
    }
    for (int fd : drained) Close(fd);
    for (int fd : ready) queue_->enqueue([this, fd] { dispatch_(fd); });
  }
}

// Reads and drops what a lingering connection sends; false once it is done
// (closed by the client, an error, or more than it may send). REQUIRES: mu_.
bool ConnectionGate::DropInput(int fd) {
  auto it = conns_.find(fd);
  if (it == conns_.end()) return false;
  char buf[16 << 10];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      it->second->served += static_cast<int>(n >> 10);
      if (it->second->served > (16 << 10)) return false;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && errno == EAGAIN;
  }
}

namespace {

// The worker pool, with the gate started on creation and stopped (parked
// connections closed) before the workers are joined.
class GateQueue : public httplib::TaskQueue {
 public:
  GateQueue(size_t threads, ConnectionGate* gate, std::function<void(int)> dispatch) : pool_(threads), gate_(gate) {
    gate_->Start(std::move(dispatch), &pool_);
  }
  void enqueue(std::function<void()> fn) override { pool_.enqueue(std::move(fn)); }
  void shutdown() override {
    gate_->Stop();
    pool_.shutdown();
  }

 private:
  httplib::ThreadPool pool_;
  ConnectionGate* gate_;
};

}  // namespace

HttpServer::HttpServer(const ConnectionLimits& limits) : limits_(limits), gate_(std::make_unique<ConnectionGate>(limits)) {
  set_payload_max_length(limits_.max_body);
  int threads = limits_.threads;
  new_task_queue = [this, threads] {
    return new GateQueue(static_cast<size_t>(threads), gate_.get(), [this](int fd) { process_and_close_socket(fd); });
  };
  // Only SO_REUSEADDR (a restart may bind while old connections linger in
  // TIME_WAIT); httplib's default adds SO_REUSEPORT, which lets a second
  // server bind the same port and take half the requests.
  set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
}

HttpServer::~HttpServer() = default;

int HttpServer::OpenConnections() const { return gate_->Open(); }

bool HttpServer::process_and_close_socket(socket_t sock) {
  Conn* c = gate_->Acquire(sock);
  if (!c) return false;
  for (;;) {
    HeaderState st = ReadHeader(c);
    if (st == HeaderState::kIncomplete) {
      if (gate_->Park(c)) return true;
      st = HeaderState::kClosed;
    }
    if (st == HeaderState::kTooLarge) SendBestEffort(sock, 431, "Request Header Fields Too Large", "request header too large");
    if (st == HeaderState::kLineTooLong) {
      SendBestEffort(sock, 431, "Request Header Fields Too Large", "a request header line is longer than 8192 bytes");
    }
    if (st == HeaderState::kUriTooLong) {
      SendBestEffort(sock, 414, "URI Too Long", "the request line is longer than 8192 bytes");
    }
    if (st != HeaderState::kComplete) {
      gate_->Close(sock);
      return false;
    }
    bool close_after = false;
    t_close_after = &close_after;
    GateStream strm(c, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(limits_.request_timeout)),
                    static_cast<double>(read_timeout_sec_), static_cast<double>(write_timeout_sec_));
    bool last = ++c->served >= limits_.max_requests_per_connection;
    bool connection_closed = false;
    bool ok = process_request(strm, last, connection_closed, nullptr);
    // Sent before the connection is closed, lingered or waited on.
    ok = strm.Flush() && ok;
    t_close_after = nullptr;
    if (close_after) {
      gate_->Linger(c);
      return ok;
    }
    if (!ok || last || connection_closed) {
      // Bytes the client sent past this request (after a request with
      // neither Content-Length nor chunked, whose body is empty, they are
      // the next request's) would make close() reset the connection and
      // destroy the answer: the write side is shut and they are drained.
      if (ok && HasUnreadInput(c)) {
        gate_->Linger(c);
        return ok;
      }
      gate_->Close(sock);
      return ok;
    }
    c->waiting_since = Clock::now();
  }
}

httplib::Server::HandlerWithContentReader HttpServer::WithBodyLimit(Handler handler) const {
  size_t max = limits_.max_body;
  return [handler, max](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    // A request with neither Content-Length nor Transfer-Encoding has no
    // body (RFC 9112 6.3): nothing is read (httplib would read until the
    // client closes, and `curl -X POST` waits for the answer instead).
    if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding")) {
      const_cast<httplib::Request&>(req).body.clear();
      return handler(req, res);
    }
    std::string body;
    bool too_large = false;
    bool ok = reader([&](const char* data, size_t n) {
      if (body.size() + n > max) {
        too_large = true;
        return false;
      }
      body.append(data, n);
      return true;
    });
    if (too_large || !ok) {
      // What is left of the body is never read: the connection cannot carry
      // another request.
      CloseConnectionAfterResponse();
      res.set_header("Connection", "close");
      if (too_large || res.status == 413) {
        return ReplyError(res, 413, "request body is larger than the server accepts (" + std::to_string(max) + " bytes)");
      }
      return ReplyError(res, 400, "request body: could not be read (malformed chunked encoding, or the client stopped sending)");
    }
    // The server's own Request object (httplib hands handlers a const view).
    const_cast<httplib::Request&>(req).body = std::move(body);
    handler(req, res);
  };
}

HttpServer& HttpServer::Post(const std::string& pattern, Handler handler) {
  httplib::Server::Post(pattern, WithBodyLimit(std::move(handler)));
  return *this;
}

HttpServer& HttpServer::Put(const std::string& pattern, Handler handler) {
  httplib::Server::Put(pattern, WithBodyLimit(std::move(handler)));
  return *this;
}

int HttpServer::Bind(const std::string& host, int port, std::string* error) {
  // Idle connections cost a descriptor each: take what the hard limit allows
  // and keep the connection cap inside it.
  struct rlimit rl;
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rlim_t want = std::min<rlim_t>(rl.rlim_max, 65536);
    if (rl.rlim_cur < want) {
      rl.rlim_cur = want;
      ::setrlimit(RLIMIT_NOFILE, &rl);
      ::getrlimit(RLIMIT_NOFILE, &rl);
    }
    int room = static_cast<int>(std::min<rlim_t>(rl.rlim_cur, 1 << 20)) - 256;
    limits_.max_connections = std::max(16, std::min(limits_.max_connections, room));
    gate_ = std::make_unique<ConnectionGate>(limits_);
  }
  int bound = port;
  if (port == 0) {
    bound = bind_to_any_port(host);
  } else if (!bind_to_port(host, port)) {
    bound = -1;
  }
  if (bound < 0) {
    *error = port == 0 ? "no free port" : WhyBindFails(host, port);
    return -1;
  }
  // httplib listens with a backlog of 5: a burst of new connections would
  // see dropped SYNs and one-second retries.
  socket_t fd = svr_sock_;
  if (fd != INVALID_SOCKET) {
    ::listen(fd, 1024);
    // A connection is handed to accept() once its first bytes arrived (or
    // after a second without any): the worker that takes it finds the
    // request header there instead of parking it in the poller and waiting
    // for a second wake-up.
    int defer_seconds = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer_seconds, sizeof defer_seconds);
  }
  return bound;
}

bool HttpServer::Run() {
  // Bodies sent to no route are read under the same limit, then refused.
  auto none = WithBodyLimit([](const httplib::Request& req, httplib::Response& res) {
    ReplyError(res, 404, "no such route: " + req.method + " " + req.path);
  });
  httplib::Server::Post(".*", none);
  httplib::Server::Put(".*", none);
  httplib::Server::Patch(".*", none);
  httplib::Server::Delete(".*", none);
  return listen_after_bind();
}

}  // namespace pulse::serve
