// GET /metrics: what `pulse serve` is doing, in the Prometheus text format
// (through prometheus-cpp's registry and serializer).
//
// Counters and histograms are counted where things happen (the turns, the
// tick, the HTTP routes, the outbox deliverer, and through the core's
// observe sink the agent log and the guard). The per-workflow gauges come
// from the workflow list's cached items (workflow_list.h), refreshed by one
// thread below the HTTP side: an item is read again when one of its inputs
// moved or when it is older than --metrics-max-age, so a scrape only copies
// numbers out of memory and never runs a goal check, however many
// workflows there are. The refresher starts with the first scrape and
// rests when nobody scraped for ten minutes (the gauges are then absent
// until its next round): a server nobody scrapes opens no database for it.
//
// Cardinality is bounded: labels carry workflow names (at most
// --metrics-max-workflows of them, in name order; the rest are counted in
// pulse_metrics_workflows_omitted), turn kinds, outcomes, guard rules,
// delivery states and route templates; never a session, run or message id,
// and no workflow content beyond its name.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/base/env.h"
#include "core/base/observe.h"
#include "server-shim/http/pooled_reads.h"

namespace pulse::serve {

struct ServeOptions;

// The process's counters and histograms.
class ServerMetrics : public ObserveSink {
 public:
  ServerMetrics();

  void AgentLogEvent(std::string_view event) override;
  void GuardDecision(std::string_view rule, bool allowed) override;
  // A turn's end: its kind, its outcome (the agent-log status) and how long
  // it took from acceptance.
  void TurnFinished(const std::string& kind, const std::string& outcome, double seconds);
  // A delivery entering a state: queued or not_sent when planned,
  // delivered, retrying or failed after an attempt.
  void Delivery(const std::string& state);
  void TickPass(double seconds);
  void HttpRequest(const std::string& route, const std::string& method, double seconds);
  // The OTLP exporter: spans the collector took, spans it refused for good,
  // and POSTs that failed (retried).
  void OtlpSpansExported(int64_t n);
  void OtlpSpansDropped(int64_t n);
  void OtlpExportFailed();
  void MetricsOmitted(int64_t n);

  std::vector<prometheus::MetricFamily> Collect() const { return registry_->Collect(); }

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& agent_log_events_;
  prometheus::Family<prometheus::Counter>& guard_decisions_;
  prometheus::Family<prometheus::Counter>& turns_;
  prometheus::Family<prometheus::Counter>& deliveries_;
  prometheus::Family<prometheus::Counter>& otlp_spans_;
  prometheus::Counter& otlp_failures_;
  prometheus::Counter& omitted_;
  prometheus::Family<prometheus::Histogram>& turn_seconds_;
  prometheus::Histogram& tick_seconds_;
  prometheus::Family<prometheus::Histogram>& http_seconds_;
};

// The server's metrics while `pulse serve` runs (nullptr otherwise: `pulse
// talk`, `pulse pass` and the tests count nothing).
void SetServerMetrics(ServerMetrics* metrics);
ServerMetrics* CurrentServerMetrics();

// A workflow's numbers as the gauges show them.
struct WorkflowGauge {
  bool ok = false;  // its item could be computed
  std::string status;
  std::optional<double> value, target;
  std::optional<int64_t> last_measured_by_run;
  std::map<std::string, int> alarms;  // kind -> count
  bool needs_reauth = false;
  std::map<std::string, int> attention;  // open (not snoozed) attention items by kind (core/attention)
  int64_t pending_decisions = 0;
  int64_t focus_areas_open = 0;
  int64_t agents_running = 0;
  int64_t agents_stuck = 0;
};
// From a workflow list item (workflow_list.h).
WorkflowGauge GaugeFromItem(const nlohmann::json& item);

class WorkflowGauges {
 public:
  WorkflowGauges(Env* env, const ServeOptions& options, PooledReads* reads, ServerMetrics* metrics);
  ~WorkflowGauges();
  void Start();
  void Stop();
  // The gauges as they stand (a scrape); wakes the refresher.
  std::vector<prometheus::MetricFamily> Collect();

 private:
  void Loop();
  void Round();
  bool ScrapedLately() const;  // REQUIRES: mu_ held

  Env* env_;
  const ServeOptions& options_;
  PooledReads* reads_;
  ServerMetrics* metrics_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::optional<std::chrono::steady_clock::time_point> last_scrape_;  // none: never scraped
  std::map<std::string, WorkflowGauge> gauges_;
  int64_t workflows_ = 0;
  int64_t omitted_ = 0;
  int64_t rounds_ = 0;
};

// Route labels: "/api/workflows/([^/]+)/goal-status" ->
// "/api/workflows/{workflow}/goal-status"; bounded by the routes themselves.
std::string RouteTemplate(const std::string& pattern);

// The text exposition of `families`.
std::string MetricsText(const std::vector<prometheus::MetricFamily>& families);

}  // namespace pulse::serve
