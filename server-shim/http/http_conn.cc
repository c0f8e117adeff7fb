#include "server-shim/http/http_conn.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pulse::serve {

namespace {

// Larger than any header a browser or curl sends; a request whose header
// does not end within it gets 431.
constexpr size_t kMaxHeaderBytes = 64 << 10;
// The longest request line or header field (CRLF included) the HTTP parser
// (cpp-httplib: CPPHTTPLIB_REQUEST_URI_MAX_LENGTH, CPPHTTPLIB_HEADER_MAX_LENGTH)
// takes; a longer one is refused as soon as it is seen.
constexpr size_t kMaxHeaderLineBytes = 8192;
// An answer up to this size goes out in one send.
constexpr size_t kGatherBytes = 64 << 10;

}  // namespace

void SocketAddress(int fd, bool peer, std::string* addr, int* port) {
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  char host[INET6_ADDRSTRLEN] = "";
  *port = 0;
  int got = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len)
                 : ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  if (got == 0) {
    if (ss.ss_family == AF_INET) {
      auto* a = reinterpret_cast<sockaddr_in*>(&ss);
      ::inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
      *port = ntohs(a->sin_port);
    } else if (ss.ss_family == AF_INET6) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
      ::inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
      *port = ntohs(a->sin6_port);
    }
  }
  *addr = host;
}

double SecondsUntil(Clock::time_point t) { return std::chrono::duration<double>(t - Clock::now()).count(); }

bool WaitFor(int fd, short events, double seconds) {
  if (seconds < 0) seconds = 0;
  struct pollfd p = {fd, events, 0};
  int ms = static_cast<int>(seconds * 1000);
  for (;;) {
    int n = ::poll(&p, 1, ms);
    if (n < 0 && errno == EINTR) continue;
    return n > 0 && (p.revents & (events | POLLHUP | POLLERR));
  }
}

void SendBestEffort(int fd, int status, const char* reason, const std::string& error) {
  std::string body = "{\"error\":\"" + error + "\"}";
  std::string msg = "HTTP/1.1 " + std::to_string(status) + " " + reason +
                    "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n" + body;
  (void)!::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

bool GateStream::is_readable() const {
  return !c_->pending.empty() || WaitFor(c_->fd, POLLIN, std::min(read_timeout_, SecondsUntil(deadline_)));
}

bool GateStream::is_writable() const {
  return WaitFor(c_->fd, POLLOUT, std::min(write_timeout_, SecondsUntil(deadline_)));
}

ssize_t GateStream::read(char* ptr, size_t size) {
  if (!c_->pending.empty()) {
    size_t n = std::min(size, c_->pending.size());
    std::memcpy(ptr, c_->pending.data(), n);
    c_->pending.erase(0, n);
    return static_cast<ssize_t>(n);
  }
  // What was written goes out before waiting for the client (an interim
  // "100 Continue" it waits for before sending the body).
  if (!Flush() || !is_readable()) return -1;
  ssize_t n = ::recv(c_->fd, ptr, size, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return is_readable() ? ::recv(c_->fd, ptr, size, MSG_DONTWAIT) : -1;
  return n;
}

ssize_t GateStream::write(const char* ptr, size_t size) {
  if (out_.size() + size <= kGatherBytes) {
    out_.append(ptr, size);
    return static_cast<ssize_t>(size);
  }
  if (!Flush() || !SendAll(ptr, size)) return -1;
  return static_cast<ssize_t>(size);
}

bool GateStream::Flush() {
  if (out_.empty()) return true;
  bool ok = SendAll(out_.data(), out_.size());
  out_.clear();
  return ok;
}

bool GateStream::SendAll(const char* ptr, size_t size) {
  while (size > 0) {
    // Sent at once when the socket has room (it nearly always has); waited
    // for only when it is full.
    ssize_t n = ::send(c_->fd, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      ptr += n;
      size -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN && is_writable()) continue;
    return false;
  }
  return true;
}

void GateStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = c_->addr;
  port = c_->port;
}

void GateStream::get_local_ip_and_port(std::string& ip, int& port) const {
  // Asked once per connection, not once per request on it.
  if (c_->local_port < 0) SocketAddress(c_->fd, /*peer=*/false, &c_->local_addr, &c_->local_port);
  ip = c_->local_addr;
  port = c_->local_port;
}

// httplib answers 500 for sockets at or past FD_SETSIZE because its own
// streams use select(); this one uses poll(), so any descriptor is fine.
socket_t GateStream::socket() const { return c_->fd < FD_SETSIZE ? c_->fd : INVALID_SOCKET; }

namespace {

// The first line of the header longer than the parser takes, if any: the
// request line (index 0) or a field. Only the header is looked at, not a
// pipelined request or body after it.
HeaderState LongLine(const std::string& pending) {
  size_t end = pending.find("\r\n\r\n");
  if (end == std::string::npos) end = pending.find("\n\n");
  if (end == std::string::npos) end = pending.size();
  size_t start = 0;
  for (int line = 0; start <= end; ++line) {
    size_t nl = pending.find('\n', start);
    size_t stop = nl == std::string::npos || nl > end ? end : nl + 1;
    if (stop - start > kMaxHeaderLineBytes) return line == 0 ? HeaderState::kUriTooLong : HeaderState::kLineTooLong;
    if (nl == std::string::npos || nl >= end) break;
    start = nl + 1;
  }
  return HeaderState::kIncomplete;
}

}  // namespace

HeaderState ReadHeader(Conn* c) {
  char buf[16 << 10];
  for (;;) {
    HeaderState long_line = LongLine(c->pending);
    if (long_line != HeaderState::kIncomplete) return long_line;
    if (c->pending.find("\r\n\r\n") != std::string::npos || c->pending.find("\n\n") != std::string::npos) {
      return HeaderState::kComplete;
    }
    if (c->pending.size() > kMaxHeaderBytes) return HeaderState::kTooLarge;
    ssize_t n = ::recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      // A keep-alive connection's next request gets the whole header
      // timeout from its first byte.
      if (c->pending.empty() && c->served > 0) c->waiting_since = Clock::now();
      c->pending.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return HeaderState::kIncomplete;
    return HeaderState::kClosed;
  }
}

}  // namespace pulse::serve
