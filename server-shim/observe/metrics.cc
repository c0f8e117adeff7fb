#include "server-shim/observe/metrics.h"

#include <prometheus/text_serializer.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "core/attention/attention.h"
#include "core/base/time_util.h"
#include "core/store/workspace.h"
#include "server-shim/serve.h"
#include "server-shim/tick/tick_due.h"
#include "server-shim/http/workflow_list.h"

namespace pulse::serve {

using nlohmann::json;
using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

namespace {

std::atomic<ServerMetrics*> g_metrics{nullptr};

// Seconds, from a millisecond to a day: tick passes and turns (seconds to
// many minutes) and HTTP requests (a millisecond to seconds) on one scale.
const prometheus::Histogram::BucketBoundaries kSecondsBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                                  0.25,  0.5,    1,     2.5,  5,     10,   30,
                                                                  60,    120,    300,   600,  1800,  3600};

// The goal statuses pulse_goal_status has a series for (contract: pulse check).
const char* const kGoalStatuses[] = {"on_track", "at_risk", "off_track", "not_measured", "no_goal"};
// The goal check's alarm kinds (contract: pulse check).
const char* const kAlarmKinds[] = {"not_measured", "goal_work_without_reading", "goal_work_not_completed", "no_run",
                                   "schedules_paused"};

// The refresher works while someone scraped within this long; otherwise
// (and before the first scrape) it rests, so a server nobody scrapes opens
// no database for its gauges.
constexpr auto kIdleAfter = std::chrono::minutes(10);
// The refresher's pause between rounds (a round costs a stamp check per
// workflow when nothing moved).
constexpr auto kRoundPause = std::chrono::seconds(2);

}  // namespace

void SetServerMetrics(ServerMetrics* metrics) { g_metrics.store(metrics); }
ServerMetrics* CurrentServerMetrics() { return g_metrics.load(); }

ServerMetrics::ServerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      agent_log_events_(prometheus::BuildCounter()
                            .Name("pulse_agent_log_events_total")
                            .Help("Agent-log events this server recorded (a start or a completion of a background agent)")
                            .Register(*registry_)),
      guard_decisions_(prometheus::BuildCounter()
                           .Name("pulse_guard_decisions_total")
                           .Help("Tool calls the autonomy guard decided, by its rule and outcome (allowed, refused)")
                           .Register(*registry_)),
      turns_(prometheus::BuildCounter()
                 .Name("pulse_turns_total")
                 .Help("Pulse's background turns that ended, by kind and outcome (the agent-log status)")
                 .Register(*registry_)),
      deliveries_(prometheus::BuildCounter()
                      .Name("pulse_deliveries_total")
                      .Help("Outbox deliveries entering a state: queued or not_sent when planned; delivered, retrying "
                            "or failed after an attempt")
                      .Register(*registry_)),
      otlp_spans_(prometheus::BuildCounter()
                      .Name("pulse_otlp_spans_total")
                      .Help("Spans the OTLP exporter sent that the collector took (exported) or refused for good "
                            "(dropped)")
                      .Register(*registry_)),
      otlp_failures_(prometheus::BuildCounter()
                         .Name("pulse_otlp_export_failures_total")
                         .Help("OTLP export requests that failed and are retried with backoff")
                         .Register(*registry_)
                         .Add({})),
      omitted_(prometheus::BuildCounter()
                   .Name("pulse_metrics_workflows_omitted_total")
                   .Help("Workflows left out of a refresh of the per-workflow gauges past --metrics-max-workflows")
                   .Register(*registry_)
                   .Add({})),
      turn_seconds_(prometheus::BuildHistogram()
                        .Name("pulse_turn_duration_seconds")
                        .Help("How long a turn took, from acceptance to its recorded end, by kind")
                        .Register(*registry_)),
      tick_seconds_(prometheus::BuildHistogram()
                        .Name("pulse_tick_pass_duration_seconds")
                        .Help("How long one pass of the scheduler tick over the workflows took")
                        .Register(*registry_)
                        .Add({}, kSecondsBuckets)),
      http_seconds_(prometheus::BuildHistogram()
                        .Name("pulse_http_request_duration_seconds")
                        .Help("HTTP request duration by route template and method")
                        .Register(*registry_)) {
  // Present from the start, at 0, so rate() has a first point.
  for (const char* e : {"started", "completed"}) agent_log_events_.Add({{"event", e}});
  for (const char* o : {"exported", "dropped"}) otlp_spans_.Add({{"outcome", o}});
  // The delivery failed alert's increase() needs the series before its first failure.
  for (const char* d : {"queued", "not_sent", "delivered", "retrying", "failed"}) deliveries_.Add({{"state", d}});
}

void ServerMetrics::AgentLogEvent(std::string_view event) {
  agent_log_events_.Add({{"event", std::string(event)}}).Increment();
}

void ServerMetrics::GuardDecision(std::string_view rule, bool allowed) {
  guard_decisions_.Add({{"rule", std::string(rule)}, {"outcome", allowed ? "allowed" : "refused"}}).Increment();
}

void ServerMetrics::TurnFinished(const std::string& kind, const std::string& outcome, double seconds) {
  turns_.Add({{"kind", kind}, {"outcome", outcome}}).Increment();
  turn_seconds_.Add({{"kind", kind}}, kSecondsBuckets).Observe(seconds);
}

void ServerMetrics::Delivery(const std::string& state) { deliveries_.Add({{"state", state}}).Increment(); }

void ServerMetrics::TickPass(double seconds) { tick_seconds_.Observe(seconds); }

void ServerMetrics::HttpRequest(const std::string& route, const std::string& method, double seconds) {
  http_seconds_.Add({{"route", route}, {"method", method}}, kSecondsBuckets).Observe(seconds);
}

void ServerMetrics::OtlpSpansExported(int64_t n) { otlp_spans_.Add({{"outcome", "exported"}}).Increment(n); }
void ServerMetrics::OtlpSpansDropped(int64_t n) { otlp_spans_.Add({{"outcome", "dropped"}}).Increment(n); }
void ServerMetrics::OtlpExportFailed() { otlp_failures_.Increment(); }
void ServerMetrics::MetricsOmitted(int64_t n) { omitted_.Increment(static_cast<double>(n)); }

// ---- the per-workflow gauges ----

WorkflowGauge GaugeFromItem(const json& item) {
  WorkflowGauge g;
  if (!item.is_object() || item.contains("error") || !item.contains("goal_status")) return g;
  g.ok = true;
  g.status = item.value("status", "");
  const json& doc = item["goal_status"];
  auto metric = doc.find("metric");
  if (metric != doc.end() && metric->is_object()) {
    auto num = [&](const char* key) -> std::optional<double> {
      auto v = metric->find(key);
      if (v == metric->end() || !v->is_number()) return std::nullopt;
      return v->get<double>();
    };
    g.value = num("value");
    g.target = num("target");
    auto by_run = metric->find("last_measured_by_run_at");
    if (by_run != metric->end() && by_run->is_string()) {
      Result<int64_t> t = ParseTime(by_run->get<std::string>());
      if (t.ok()) g.last_measured_by_run = *t;
    }
  }
  auto alarms = doc.find("alarms");
  if (alarms != doc.end() && alarms->is_array()) {
    for (const json& a : *alarms) {
      if (a.is_object() && a.contains("kind") && a["kind"].is_string()) ++g.alarms[a["kind"].get<std::string>()];
    }
  }
  g.needs_reauth = doc.value("needs_reauth", false);
  // The attention model's items (core/attention), as the overview counts
  // them: a snoozed item no longer counts.
  auto items = item.find("attention");
  if (items != item.end() && items->is_array()) {
    for (const json& a : *items) {
      if (!a.is_object() || !a.contains("kind") || !a["kind"].is_string()) continue;
      if (a.value("snoozed", false)) continue;
      ++g.attention[a["kind"].get<std::string>()];
    }
  }
  auto count = [&](const char* key) -> int64_t {
    auto v = item.find(key);
    return v != item.end() && v->is_number_integer() ? v->get<int64_t>() : 0;
  };
  g.pending_decisions = count("pending_decisions");
  g.focus_areas_open = count("focus_areas_open");
  g.agents_running = count("agents_running");
  g.agents_stuck = count("agents_stuck");
  return g;
}

WorkflowGauges::WorkflowGauges(Env* env, const ServeOptions& options, PooledReads* reads, ServerMetrics* metrics)
    : env_(env), options_(options), reads_(reads), metrics_(metrics) {}

bool WorkflowGauges::ScrapedLately() const {
  return last_scrape_ && std::chrono::steady_clock::now() - *last_scrape_ < kIdleAfter;
}

WorkflowGauges::~WorkflowGauges() { Stop(); }

void WorkflowGauges::Start() {
  thread_ = std::thread([this] {
    LowerThreadPriority("metrics");
    Loop();
  });
}

void WorkflowGauges::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WorkflowGauges::Loop() {
  for (;;) {
    {
      // Nobody scraped yet, or for a while: rest until someone does.
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return stop_ || ScrapedLately(); });
      if (stop_) return;
    }
    try {
      Round();
    } catch (const std::exception& e) {
      spdlog::error("metrics: internal error: {}", e.what());
    }
    std::unique_lock<std::mutex> l(mu_);
    if (cv_.wait_for(l, kRoundPause, [this] { return stop_; })) return;
  }
}

void WorkflowGauges::Round() {
  Result<std::vector<std::string>> names = ListWorkflows(*env_, options_.workspace);
  if (!names.ok()) {
    spdlog::warn("metrics: {}", names.status().message());
    return;
  }
  const size_t limit = static_cast<size_t>(options_.metrics_max_workflows);
  const int64_t omitted = names->size() > limit ? static_cast<int64_t>(names->size() - limit) : 0;
  if (omitted > 0) names->resize(limit);
  std::map<std::string, WorkflowGauge> fresh;
  for (const std::string& wf : *names) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stop_) return;
    }
    fresh[wf] = GaugeFromItem(CachedWorkflowItem(*reads_, *env_, wf, static_cast<int64_t>(options_.metrics_max_age)));
  }
  if (metrics_ && omitted > 0) metrics_->MetricsOmitted(omitted);
  std::lock_guard<std::mutex> l(mu_);
  gauges_ = std::move(fresh);
  workflows_ = static_cast<int64_t>(names->size()) + omitted;
  omitted_ = omitted;
  ++rounds_;
}

namespace {

MetricFamily Gauge(const char* name, const char* help) {
  MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = MetricType::Gauge;
  return f;
}

void Add(MetricFamily& f, std::vector<ClientMetric::Label> labels, double value) {
  ClientMetric m;
  m.label = std::move(labels);
  m.gauge.value = value;
  f.metric.push_back(std::move(m));
}

}  // namespace

std::vector<MetricFamily> WorkflowGauges::Collect() {
  std::unique_lock<std::mutex> l(mu_);
  if (!ScrapedLately()) {
    // Numbers from before the rest are no longer news: none until the
    // refresher's next round (seconds).
    gauges_.clear();
    cv_.notify_all();
  }
  last_scrape_ = std::chrono::steady_clock::now();
  const int64_t now = env_->NowSeconds();
  MetricFamily status = Gauge("pulse_goal_status", "1 for the workflow's current goal status, 0 for the others");
  MetricFamily value = Gauge("pulse_goal_metric_value", "The primary metric's latest reading");
  MetricFamily target = Gauge("pulse_goal_metric_target", "The primary metric's target");
  MetricFamily days = Gauge("pulse_goal_seconds_since_measured_by_run",
                            "Seconds since a workflow run last recorded the primary metric, by the server's clock "
                            "(/ 86400 for days; absent: never)");
  MetricFamily alarms = Gauge("pulse_goal_alarms", "The goal check's alarms now, by kind (1 present, 0 not)");
  MetricFamily attention = Gauge("pulse_attention_items",
                                 "Open attention items now (not snoozed), by kind: goal_alarm, needs_reauth, "
                                 "error_rate_spike, cost_spike, review_broken, delivery_failed, schedule_late, "
                                 "decision_waiting (docs/attention.md)");
  MetricFamily pending = Gauge("pulse_decisions_pending", "Decisions waiting for the owner");
  MetricFamily focus = Gauge("pulse_focus_areas_open", "Focus areas open (proposed or active)");
  MetricFamily running = Gauge("pulse_agents_running", "Background agents whose agent-log row says running");
  MetricFamily stuck = Gauge("pulse_agents_stuck",
                             "Running agents started longer ago than the stuck age (pulse.agent_log.stuck_after_minutes)");
  MetricFamily up = Gauge("pulse_workflow_up", "1 when the workflow's numbers could be read, 0 when its last read failed");
  for (const auto& [wf, g] : gauges_) {
    Add(up, {{"workflow", wf}}, g.ok ? 1 : 0);
    if (!g.ok) continue;
    for (const char* s : kGoalStatuses) Add(status, {{"status", s}, {"workflow", wf}}, g.status == s ? 1 : 0);
    if (g.value) Add(value, {{"workflow", wf}}, *g.value);
    if (g.target) Add(target, {{"workflow", wf}}, *g.target);
    if (g.last_measured_by_run) {
      Add(days, {{"workflow", wf}}, static_cast<double>(now - *g.last_measured_by_run));
    }
    for (const char* k : kAlarmKinds) {
      auto it = g.alarms.find(k);
      const int n = it == g.alarms.end() ? 0 : it->second;
      Add(alarms, {{"kind", k}, {"workflow", wf}}, n > 0 ? 1 : 0);
    }
    for (int k = 0; k < kAttentionKindCount; ++k) {
      const char* kind = AttentionKindName(static_cast<AttentionKind>(k));
      auto it = g.attention.find(kind);
      Add(attention, {{"kind", kind}, {"workflow", wf}}, it == g.attention.end() ? 0 : it->second);
    }
    Add(pending, {{"workflow", wf}}, static_cast<double>(g.pending_decisions));
    Add(focus, {{"workflow", wf}}, static_cast<double>(g.focus_areas_open));
    Add(running, {{"workflow", wf}}, static_cast<double>(g.agents_running));
    Add(stuck, {{"workflow", wf}}, static_cast<double>(g.agents_stuck));
  }
  MetricFamily workflows = Gauge("pulse_workflows", "Workflows in the workspace at the last refresh");
  Add(workflows, {}, static_cast<double>(workflows_));
  MetricFamily omitted = Gauge("pulse_metrics_workflows_omitted",
                               "Workflows past --metrics-max-workflows (in name order) with no per-workflow gauges");
  Add(omitted, {}, static_cast<double>(omitted_));
  MetricFamily rounds = Gauge("pulse_metrics_refreshes", "Refreshes of the per-workflow gauges since the start");
  Add(rounds, {}, static_cast<double>(rounds_));
  std::vector<MetricFamily> out;
  for (MetricFamily* f : {&status, &value, &target, &days, &alarms, &attention, &pending, &focus, &running, &stuck,
                          &up, &workflows, &omitted, &rounds}) {
    out.push_back(std::move(*f));
  }
  return out;
}

std::string RouteTemplate(const std::string& pattern) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"/workflows/", "{workflow}"}, {"/s/", "{session}"}, {"/custom/", "{tool}"}, {"/call/", "{method}"}};
  std::string out;
  size_t i = 0;
  while (i < pattern.size()) {
    if (pattern.compare(i, 7, "([^/]+)") == 0) {
      std::string name = "{id}";
      for (const auto& [before, label] : kNames) {
        const size_t n = std::char_traits<char>::length(before);
        if (out.size() >= n && out.compare(out.size() - n, n, before) == 0) name = label;
      }
      out += name;
      i += 7;
    } else if (pattern.compare(i, 2, ".*") == 0) {
      out += "*";
      i += 2;
    } else {
      out += pattern[i++];
    }
  }
  return out;
}

std::string MetricsText(const std::vector<MetricFamily>& families) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

}  // namespace pulse::serve
