// The listening side of `pulse serve`: cpp-httplib's Server with its
// connection handling replaced, so that no client can starve the others.
//
// cpp-httplib gives every connection a worker thread for its whole life: a
// client that sends its request one byte at a time, or opens a connection
// and says nothing, holds a worker until its read timeout, and 32 of them
// stop the server. Here a worker only ever handles a connection whose request
// header has fully arrived; until then (and between keep-alive requests) the
// connection waits in one poll() thread that costs nothing per connection,
// with a deadline for the header and for idleness, a cap on connections in
// total and per client address. Request bodies are counted while they are
// read, whatever the transfer encoding, and refused past --max-body before
// any handler runs.
#pragma once

#include <httplib.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace pulse::serve {

struct ConnectionLimits {
  size_t max_body = 1 << 20;       // bytes of request body (decoded), else 413
  int threads = 32;                // workers handling complete requests
  int max_connections = 2048;      // open at once, all clients together
  int max_per_client = 512;        // open at once from one address
  double header_timeout = 10;      // seconds for a request's header to arrive in full
  double idle_timeout = 5;         // seconds a keep-alive connection may wait for its next request
  double request_timeout = 60;     // seconds to read one request's body and write its response
  int max_requests_per_connection = 1000;
};

class ConnectionGate;

class HttpServer : public httplib::Server {
 public:
  explicit HttpServer(const ConnectionLimits& limits);
  ~HttpServer() override;

  // Route registration as in httplib::Server, except that the body is read
  // here, counted against max_body as it arrives (Content-Length, chunked or
  // neither), and the handler only runs for a body that fits.
  HttpServer& Post(const std::string& pattern, Handler handler);
  HttpServer& Put(const std::string& pattern, Handler handler);
  HttpServer& Get(const std::string& pattern, Handler handler);

  // Told the route (its pattern as registered), the method and the seconds
  // each request took, body read included; set before routes are added.
  using RequestObserver = std::function<void(const std::string& pattern, const char* method, double seconds)>;
  void SetRequestObserver(RequestObserver observer) { observer_ = std::move(observer); }

  // Binds `host:port` (0: any free port) without SO_REUSEPORT, so a second
  // server on the same port fails instead of sharing it. Returns the port,
  // or -1 with `*error` set.
  int Bind(const std::string& host, int port, std::string* error);
  // Serves until stop(); parked connections are closed on the way out.
  bool Run();

  // Connections open right now (for /api/health).
  int OpenConnections() const;

 private:
  bool process_and_close_socket(socket_t sock) override;
  HandlerWithContentReader WithBodyLimit(Handler handler) const;
  // `handler`, timed for the observer when there is one.
  HandlerWithContentReader Timed(const std::string& pattern, const char* method, HandlerWithContentReader handler) const;

  ConnectionLimits limits_;
  std::unique_ptr<ConnectionGate> gate_;
  RequestObserver observer_;
};

// For handlers: the connection this request came on is closed after the
// response (its unread body must not be taken for the next request).
void CloseConnectionAfterResponse();

}  // namespace pulse::serve
