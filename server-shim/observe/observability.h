// What `pulse serve` shows the tools operators already watch
// (docs/observability.md): the counters and histograms, GET /metrics with the
// per-workflow gauges, and the OTLP trace export. One object owns them for
// the server's life: created before anything is counted (it installs the
// core's observe sink and the server's metrics), started once the workflows'
// reads exist, stopped after the turns have drained.
#pragma once

#include <memory>

#include "core/base/env.h"
#include "server-shim/http/http_server.h"
#include "server-shim/observe/metrics.h"
#include "server-shim/observe/otlp_exporter.h"
#include "server-shim/http/pooled_reads.h"

namespace pulse::serve {

struct ServeOptions;

class Observability {
 public:
  // Counts from here on, and times every route `server` adds afterwards
  // (the request observer is set before the routes); GET /metrics is added.
  // nullptr, with the one-line reason on stderr, when --otlp-endpoint or an
  // --otlp-header cannot be used.
  static std::unique_ptr<Observability> Create(Env* env, const ServeOptions& options, HttpServer& server);
  ~Observability();  // stops, and takes the sinks away

  // The per-workflow gauges' refresher (reading through `reads`) and the
  // exporter's thread. REQUIRES: `reads` outlives Stop().
  void Start(PooledReads* reads);
  void Stop();

 private:
  Observability(Env* env, const ServeOptions& options) : env_(env), options_(options) {}
  void Install(HttpServer& server);

  Env* env_;
  const ServeOptions& options_;
  ServerMetrics metrics_;
  std::unique_ptr<WorkflowGauges> gauges_;
  std::unique_ptr<OtlpExporter> otlp_;
};

}  // namespace pulse::serve
