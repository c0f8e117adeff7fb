#include "server-shim/observe/observability.h"

#include <iostream>

#include "core/base/observe.h"
#include "server-shim/http/http_util.h"
#include "server-shim/serve.h"

namespace pulse::serve {

std::unique_ptr<Observability> Observability::Create(Env* env, const ServeOptions& options, HttpServer& server) {
  std::unique_ptr<Observability> o(new Observability(env, options));
  if (!options.otlp_endpoint.empty()) {
    Result<OtlpTarget> target = ParseOtlpTarget(options.otlp_endpoint, options.otlp_headers);
    if (!target.ok()) {
      std::cerr << "pulse: " << target.status().message() << std::endl;
      return nullptr;
    }
    o->otlp_ = std::make_unique<OtlpExporter>(env, options, std::move(target).value(), &o->metrics_);
  }
  // The agent log and the guard count through the core's sink, the turns,
  // the tick and the deliverer through the server's metrics (metrics.h).
  SetServerMetrics(&o->metrics_);
  SetObserveSink(&o->metrics_);
  o->Install(server);
  return o;
}

Observability::~Observability() {
  Stop();
  SetObserveSink(nullptr);
  SetServerMetrics(nullptr);
}

void Observability::Install(HttpServer& server) {
  server.SetRequestObserver([this](const std::string& pattern, const char* method, double seconds) {
    metrics_.HttpRequest(RouteTemplate(pattern), method, seconds);
  });
  // Prometheus scrapes this; it carries no workflow content beyond names.
  server.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    if (!options_.metrics_public && !IsLoopback(req.remote_addr)) {
      return ReplyError(res, 403,
                        "/metrics answers loopback clients only; start pulse serve with --metrics-public to let "
                        "other hosts scrape it");
    }
    std::vector<prometheus::MetricFamily> families = metrics_.Collect();
    if (gauges_) {
      for (prometheus::MetricFamily& f : gauges_->Collect()) families.push_back(std::move(f));
    }
    res.status = 200;
    res.set_content(MetricsText(families), "text/plain; version=0.0.4; charset=utf-8");
  });
}

void Observability::Start(PooledReads* reads) {
  gauges_ = std::make_unique<WorkflowGauges>(env_, options_, reads, &metrics_);
  gauges_->Start();
  if (otlp_) otlp_->Start();
}

void Observability::Stop() {
  if (otlp_) otlp_->Stop();
  if (gauges_) gauges_->Stop();
}

}  // namespace pulse::serve
