#include "agent/model/model_http.h"

#include <httplib.h>

#include <cctype>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <thread>

#include "agent/model/model_wire.h"

namespace pulse {

namespace {

using Clock = std::chrono::steady_clock;

struct Target {
  std::string origin;  // scheme://host[:port]
  std::string path;
};

Target SplitUrl(const std::string& url) {
  size_t scheme = url.find("://");
  size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (slash == std::string::npos) return {url, "/"};
  return {url.substr(0, slash), url.substr(slash)};
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// What one try came to.
struct Try {
  bool sent = false;      // an answer's status line arrived
  int status = 0;
  std::string retry_after;
  std::string body;
  bool too_large = false;
  bool timed_out = false;
  bool stopped = false;
  bool complete = false;  // the whole answer was read
  std::string error;      // the client's, when no answer came
};

// Ends a try that runs past its time or the server's shutdown: the client's
// own timeouts bound each read, not a server trickling bytes.
class Watch {
 public:
  Watch(httplib::Client& cli, Clock::time_point until, const std::atomic<bool>* stopping, Try* t)
      : thread_([this, &cli, until, stopping, t] {
          std::unique_lock<std::mutex> l(mu_);
          while (!done_) {
            if (stopping && stopping->load()) t->stopped = true;
            else if (Clock::now() >= until) t->timed_out = true;
            if (t->stopped || t->timed_out) {
              cli.stop();
              return;
            }
            cv_.wait_for(l, std::chrono::milliseconds(20));
          }
        }) {}
  ~Watch() {
    {
      std::lock_guard<std::mutex> l(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

Try OneTry(const ModelHttpRequest& r, const ModelHttpOptions& o, double timeout) {
  Try t;
  const Target target = SplitUrl(r.url);
  httplib::Client cli(target.origin);
  const time_t whole = static_cast<time_t>(timeout);
  const time_t micros = static_cast<time_t>((timeout - static_cast<double>(whole)) * 1e6);
  cli.set_connection_timeout(whole, micros);
  cli.set_read_timeout(whole, micros);
  cli.set_write_timeout(whole, micros);
  httplib::Request req;
  req.method = "POST";
  req.path = target.path;
  for (const auto& [k, v] : r.headers) req.set_header(k, v);
  req.set_header("Content-Type", "application/json");
  req.body = r.body;
  req.response_handler = [&t](const httplib::Response& res) {
    t.sent = true;
    t.status = res.status;
    t.retry_after = res.get_header_value("Retry-After");
    return true;
  };
  req.content_receiver = [&t, &o](const char* data, size_t n, uint64_t, uint64_t) {
    if (t.body.size() + n > o.max_body) {
      t.too_large = true;
      return false;
    }
    t.body.append(data, n);
    return true;
  };
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  bool ok = false;
  const Clock::time_point t0 = Clock::now();
  {
    Watch watch(cli, Clock::now() + std::chrono::microseconds(static_cast<int64_t>(timeout * 1e6)), o.stopping, &t);
    ok = cli.send(req, res, err);
  }
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  t.complete = ok;
  if (!ok && !t.too_large) {
    // The client's own read timeout ends a silent server as a read error.
    if (took >= timeout - 0.05) t.timed_out = true;
    t.error = httplib::to_string(err);
  }
  return t;
}

// Sleeps `seconds` in short slices; false when the server began stopping.
bool Wait(double seconds, const std::atomic<bool>* stopping) {
  const auto until = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
  while (Clock::now() < until) {
    if (stopping && stopping->load()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(until - Clock::now(), std::chrono::milliseconds(50)));
  }
  return !(stopping && stopping->load());
}

bool Retryable(int status) { return status == 429 || (status >= 500 && status <= 599); }

}  // namespace

double RetryAfterSeconds(const std::string& value, int64_t now_unix) {
  std::string v = value;
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(0, 1);
  if (v.empty() || v.size() > 64) return -1;
  bool digits = true;
  for (char c : v) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (digits) return v.size() > 9 ? 1e9 : std::stod(v);
  struct tm tm = {};
  const char* end = ::strptime(v.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end != '\0') return -1;
  const double at = static_cast<double>(::timegm(&tm));
  return at > static_cast<double>(now_unix) ? at - static_cast<double>(now_unix) : 0;
}

Result<ModelHttpAnswer> PostModelRequest(const ModelHttpRequest& request, const ModelHttpOptions& options) {
  ModelHttpAnswer out;
  const bool has_deadline = options.deadline != Clock::time_point{};
  const std::string where = "the model at " + request.url;
  for (int attempt = 1;; ++attempt) {
    double timeout = request.timeout;
    if (has_deadline) {
      const double left = std::chrono::duration<double>(options.deadline - Clock::now()).count();
      if (left <= 0) return Status::IoError(where + ": the turn's time ran out before try " + std::to_string(attempt));
      timeout = std::min(timeout, left);
    }
    Try t = OneTry(request, options, timeout);
    out.tries = attempt;
    if (t.stopped) return Status::IoError(where + ": not answered: the server is shutting down");
    if (t.too_large) {
      return Status::IoError(where + " answered more than " + std::to_string(options.max_body) +
                             " bytes; the answer was refused");
    }
    if (t.timed_out) return Status::IoError(where + " did not answer within " + Seconds(timeout) + " s (--model-timeout)");
    if (!t.sent) return Status::IoError(where + ": request failed: " + t.error);
    if (!t.complete) return Status::IoError(where + ": the answer broke off: " + t.error);
    if (t.status >= 200 && t.status <= 299) {
      out.body = std::move(t.body);
      return out;
    }
    const std::string said = std::to_string(t.status) + " " + ModelErrorText(t.body);
    if (!Retryable(t.status)) return Status::Refused(where + " answered " + said);
    if (attempt >= options.max_tries) {
      return Status::IoError(where + " answered " + said + " (" + std::to_string(attempt) + " tries)");
    }
    double wait = RetryAfterSeconds(t.retry_after, static_cast<int64_t>(std::time(nullptr)));
    const bool asked = wait >= 0;
    if (!asked) wait = attempt == 1 ? 1.0 : 2.0;  // backoff: 1 s, then 2 s
    if (wait > options.max_retry_wait) wait = options.max_retry_wait;
    if (has_deadline && Clock::now() + std::chrono::microseconds(static_cast<int64_t>(wait * 1e6)) >= options.deadline) {
      return Status::IoError(where + " answered " + said + "; waiting " + Seconds(wait) +
                             " s to try again would pass the turn's time");
    }
    out.retried.push_back(std::to_string(t.status) + (asked ? " (Retry-After " + Seconds(wait) + " s)" : " (backoff " + Seconds(wait) + " s)"));
    if (!Wait(wait, options.stopping)) return Status::IoError(where + ": not answered: the server is shutting down");
  }
}

}  // namespace pulse
