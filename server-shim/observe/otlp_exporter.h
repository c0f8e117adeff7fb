// The agent log to an OpenTelemetry collector (OTLP/HTTP, JSON encoding):
// `pulse serve --otlp-endpoint URL` sends every finished agent-log row and
// every guarded tool call as spans to URL/v1/traces, and `pulse agent-log
// export-otlp --since T` sends a workflow's history once. What a span is and
// where the durable cursor lives are core rules (core/agent_log/otlp_export.h);
// this file holds the POST and the exporter's thread.
//
// The exporter never slows or fails the agent log, the tick or a turn: it
// runs on its own thread below the HTTP side, reads the log from its own
// connection a batch at a time (the log itself is its queue, so nothing
// waits in memory but the one batch in flight), and a collector that is
// down or hangs only delays it (retries with backoff up to a minute; each
// request times out after a few seconds).
#pragma once

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/base/env.h"
#include "core/base/status.h"
#include "server-shim/db_stamp.h"

namespace pulse::serve {

struct ServeOptions;
class ServerMetrics;

struct OtlpTarget {
  std::string url;     // what the operator gave (for messages)
  std::string origin;  // scheme://host[:port]
  std::string path;    // <the URL's path>/v1/traces
  httplib::Headers headers;
};

// --otlp-endpoint (http:// or https://, no query) and the --otlp-header
// K=V pairs (a header name, a value without line breaks); InvalidArgument
// naming the flag and the problem.
Result<OtlpTarget> ParseOtlpTarget(const std::string& endpoint,
                                   const std::vector<std::pair<std::string, std::string>>& headers);
// "K=V" -> {K, V}; InvalidArgument naming --otlp-header.
Result<std::pair<std::string, std::string>> ParseOtlpHeader(const std::string& text);
// Every --otlp-header as given, in order; the first bad one's error.
Result<std::vector<std::pair<std::string, std::string>>> ParseOtlpHeaders(const std::vector<std::string>& texts);

struct OtlpPostResult {
  int status = 0;               // the HTTP status, when there was an answer
  std::string transport_error;  // why there was none
  std::string body;             // the answer (capped), for messages
};
OtlpPostResult PostOtlp(const OtlpTarget& target, const std::string& body, double timeout_s);

class OtlpExporter {
 public:
  OtlpExporter(Env* env, const ServeOptions& options, OtlpTarget target, ServerMetrics* metrics);
  ~OtlpExporter();
  void Start();
  void Stop();

 private:
  enum class Outcome { kDrained, kFailed };
  void Loop();
  // Sends a workflow's new spans until none is left or the collector fails;
  // `*quiet` is the database's stamp taken before the read that found
  // nothing more.
  Outcome ExportWorkflow(const std::string& workflow, DbStamp* quiet);

  Env* env_;
  const ServeOptions& options_;
  OtlpTarget target_;
  ServerMetrics* metrics_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  int failures_ = 0;                     // failed POSTs in a row
  std::map<std::string, DbStamp> quiet_;  // workflows with nothing new since this stamp
  std::string last_error_;               // logged once until an export succeeds
};

}  // namespace pulse::serve
