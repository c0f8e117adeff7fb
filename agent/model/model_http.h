// One model request over HTTP(S) (Debian's cpp-httplib client, OpenSSL):
// a hard timeout per request, the answer's size bounded while it is read
// (decompressed bytes count), and 429 / 5xx retried with backoff, honouring
// Retry-After, at most three tries. Errors are one line and never carry the
// request's headers (where the key travels).
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"

namespace pulse {

// A model's answer larger than this is refused (a reply is a few KB; a
// runaway or hostile server is not read into memory).
constexpr size_t kMaxModelResponseBytes = 4 << 20;
constexpr int kModelMaxTries = 3;

struct ModelHttpRequest {
  std::string url;  // the endpoint: http(s)://host[:port]/path
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  double timeout = 120;  // seconds for each try, from connect to the last byte
};

struct ModelHttpOptions {
  size_t max_body = kMaxModelResponseBytes;
  int max_tries = kModelMaxTries;
  double max_retry_wait = 60;                          // a longer Retry-After is capped to this
  std::chrono::steady_clock::time_point deadline = {};  // the turn's end; {}: none
  const std::atomic<bool>* stopping = nullptr;          // the server shutting down ends a try at once
};

struct ModelHttpAnswer {
  std::string body;                  // a 2xx answer's body
  int tries = 0;
  std::vector<std::string> retried;  // "429 (Retry-After 1 s)", ... for the log
};

// Refused for an answer that is not 2xx and not retried (401, 400, ...);
// IoError for a timeout, a body over the bound, a connection failure,
// retries spent or the server stopping.
Result<ModelHttpAnswer> PostModelRequest(const ModelHttpRequest& request, const ModelHttpOptions& options);

// Seconds a Retry-After value asks for (a count of seconds or an HTTP date
// measured from `now_unix`); -1 when it is neither.
double RetryAfterSeconds(const std::string& value, int64_t now_unix);

}  // namespace pulse
