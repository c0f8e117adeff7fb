// One client connection of `pulse serve` as the HttpServer (http_server.h)
// sees it: what arrived so far, reading the rest of a request header without
// waiting, and the httplib Stream a worker serves one request through.
#pragma once

#include <httplib.h>

#include <chrono>
#include <string>

namespace pulse::serve {

using Clock = std::chrono::steady_clock;

double SecondsUntil(Clock::time_point t);
// The address and port of `fd`'s other end (`peer`) or of this one; "" and 0
// when the socket cannot say.
void SocketAddress(int fd, bool peer, std::string* addr, int* port);
// poll() for `events` on one fd, for at most `seconds` (≥ 0).
bool WaitFor(int fd, short events, double seconds);
// A short JSON error answer written without waiting (the connection closes next).
void SendBestEffort(int fd, int status, const char* reason, const std::string& error);

// One client connection between requests: its address, the bytes already
// read (the next request's header, maybe the start of its body) and since
// when it has been waiting.
struct Conn {
  int fd = -1;
  std::string addr;
  int port = 0;
  std::string local_addr;  // this end, asked once (local_port < 0: not yet)
  int local_port = -1;
  std::string pending;
  int served = 0;
  Clock::time_point waiting_since = Clock::now();
};

// httplib's Stream over a Conn: serves `pending` first, then the socket, and
// gives up at the request's deadline however slowly the client trickles.
// What is written is gathered (up to 64 KiB) and sent by Flush: httplib
// writes an answer's header and body apart, and one send instead of two
// saves a system call and a packet per answer on both ends.
class GateStream : public httplib::Stream {
 public:
  GateStream(Conn* c, Clock::time_point deadline, double read_timeout, double write_timeout)
      : c_(c), deadline_(deadline), read_timeout_(read_timeout), write_timeout_(write_timeout) {}
  ~GateStream() override { Flush(); }
  // Sends what was gathered; false when the client cannot take it in time.
  bool Flush();

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override;

 private:
  // Sends all of [ptr, ptr + size), waiting for room up to the deadline.
  bool SendAll(const char* ptr, size_t size);

  Conn* c_;
  Clock::time_point deadline_;
  double read_timeout_;
  double write_timeout_;
  std::string out_;
};

enum class HeaderState { kComplete, kIncomplete, kClosed, kTooLarge, kLineTooLong, kUriTooLong };

// Reads what the socket has without waiting, until the request header is
// complete (or too large: past 64 KiB). A line longer than the HTTP parser
// takes (8 KiB, CRLF included) is refused as soon as it is seen, ended or
// not: kUriTooLong for the request line, kLineTooLong for a header field.
HeaderState ReadHeader(Conn* c);

}  // namespace pulse::serve
