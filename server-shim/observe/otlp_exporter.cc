#include "server-shim/observe/otlp_exporter.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

#include "core/agent_log/otlp_export.h"
#include "core/store/workspace.h"
#include "server-shim/observe/metrics.h"
#include "server-shim/serve.h"
#include "server-shim/tick/tick_due.h"
#include "server-shim/tick/visit_stamp.h"

namespace pulse::serve {

namespace {

// Spans per request: agent rows and tool calls, each up to this many.
constexpr int kBatchSpans = 256;
constexpr double kRequestSeconds = 5;

bool HeaderNameChar(unsigned char c) {
  return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

}  // namespace

Result<std::pair<std::string, std::string>> ParseOtlpHeader(const std::string& text) {
  const size_t eq = text.find('=');
  const std::string name = eq == std::string::npos ? text : text.substr(0, eq);
  if (eq == std::string::npos || name.empty()) {
    return Status::InvalidArgument("--otlp-header: expected NAME=VALUE (such as Authorization=Bearer x), got \"" +
                                   text.substr(0, 80) + "\"");
  }
  for (unsigned char c : name) {
    if (!HeaderNameChar(c)) return Status::InvalidArgument("--otlp-header: \"" + name.substr(0, 80) + "\" is not a header name");
  }
  const std::string value = text.substr(eq + 1);
  for (unsigned char c : value) {
    if (c == '\r' || c == '\n' || c == 0) {
      return Status::InvalidArgument("--otlp-header: the value of " + name + " has a line break or NUL byte");
    }
  }
  return std::make_pair(name, value);
}

Result<std::vector<std::pair<std::string, std::string>>> ParseOtlpHeaders(const std::vector<std::string>& texts) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& text : texts) {
    PULSE_ASSIGN_OR_RETURN(auto kv, ParseOtlpHeader(text));
    out.push_back(std::move(kv));
  }
  return out;
}

Result<OtlpTarget> ParseOtlpTarget(const std::string& endpoint,
                                   const std::vector<std::pair<std::string, std::string>>& headers) {
  OtlpTarget t;
  t.url = endpoint;
  const bool http = endpoint.rfind("http://", 0) == 0, https = endpoint.rfind("https://", 0) == 0;
  const size_t host_at = http ? 7 : 8;
  if ((!http && !https) || endpoint.size() <= host_at || endpoint[host_at] == '/') {
    return Status::InvalidArgument("--otlp-endpoint: expected http://HOST:PORT or https://HOST[:PORT][/PATH] (the "
                                   "collector's OTLP/HTTP base; spans go to <it>/v1/traces), got \"" +
                                   endpoint.substr(0, 120) + "\"");
  }
  if (endpoint.find_first_of("?# \t\r\n") != std::string::npos) {
    return Status::InvalidArgument("--otlp-endpoint: no query, fragment or blank in the URL, got \"" +
                                   endpoint.substr(0, 120) + "\"");
  }
  const size_t slash = endpoint.find('/', host_at);
  t.origin = slash == std::string::npos ? endpoint : endpoint.substr(0, slash);
  std::string base = slash == std::string::npos ? "" : endpoint.substr(slash);
  while (!base.empty() && base.back() == '/') base.pop_back();
  t.path = base + "/v1/traces";
  for (const auto& [k, v] : headers) t.headers.emplace(k, v);
  return t;
}

OtlpPostResult PostOtlp(const OtlpTarget& target, const std::string& body, double timeout_s) {
  OtlpPostResult out;
  httplib::Client client(target.origin);
  if (!client.is_valid()) {
    out.transport_error = "cannot use " + target.origin;
    return out;
  }
  const time_t secs = static_cast<time_t>(timeout_s);
  client.set_connection_timeout(secs, 0);
  client.set_read_timeout(secs, 0);
  client.set_write_timeout(secs, 0);
  httplib::Result res = client.Post(target.path.c_str(), target.headers, body, "application/json");
  if (!res) {
    out.transport_error = httplib::to_string(res.error());
    return out;
  }
  out.status = res->status;
  out.body = res->body.substr(0, 300);
  return out;
}

OtlpExporter::OtlpExporter(Env* env, const ServeOptions& options, OtlpTarget target, ServerMetrics* metrics)
    : env_(env), options_(options), target_(std::move(target)), metrics_(metrics) {}

OtlpExporter::~OtlpExporter() { Stop(); }

void OtlpExporter::Start() {
  thread_ = std::thread([this] {
    LowerThreadPriority("otlp exporter");
    Loop();
  });
}

void OtlpExporter::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void OtlpExporter::Loop() {
  for (;;) {
    Result<std::vector<std::string>> names = ListWorkflows(*env_, options_.workspace);
    bool failed = false;
    for (const std::string& wf : names.ok() ? *names : std::vector<std::string>()) {
      {
        std::lock_guard<std::mutex> l(mu_);
        if (stop_) return;
      }
      Result<WorkflowPaths> paths = ResolveWorkflow(options_.workspace, wf);
      if (!paths.ok() || !env_->FileExists(paths->db)) continue;
      auto quiet = quiet_.find(wf);
      if (quiet != quiet_.end() && quiet->second == StampDatabase(paths->db)) continue;
      DbStamp stamp;
      if (ExportWorkflow(wf, &stamp) == Outcome::kFailed) {
        failed = true;
        break;
      }
      quiet_[wf] = stamp;
    }
    if (names.ok()) {
      // Workflows that went away are forgotten.
      for (auto it = quiet_.begin(); it != quiet_.end();) {
        it = std::binary_search(names->begin(), names->end(), it->first) ? std::next(it) : quiet_.erase(it);
      }
    }
    failures_ = failed ? failures_ + 1 : 0;
    const double wait = failed ? OtlpBackoffSeconds(failures_) : options_.otlp_interval;
    std::unique_lock<std::mutex> l(mu_);
    if (cv_.wait_for(l, std::chrono::duration<double>(wait), [this] { return stop_; })) return;
  }
}

OtlpExporter::Outcome OtlpExporter::ExportWorkflow(const std::string& wf, DbStamp* quiet) {
  OpenWorkflowOptions open_options;
  open_options.create_db = false;
  Result<OpenedWorkflow> w = OpenWorkflow(*env_, options_.workspace, wf, open_options);
  // A workflow that cannot be opened now is looked at again next time; it
  // is not the collector's failure.
  *quiet = DbStamp();  // matches no database: looked at again unless drained below
  if (!w.ok()) return Outcome::kDrained;
  Db& db = *w->db;
  Result<OtlpCursor> cursor = LoadOrStartOtlpCursor(db);
  if (!cursor.ok()) {
    spdlog::warn("otlp: {}: {}", wf, cursor.status().message());
    return Outcome::kDrained;
  }
  for (;;) {
    Result<OtlpBatch> batch = NextOtlpBatch(db, wf, *cursor, kBatchSpans);
    if (!batch.ok()) {
      spdlog::warn("otlp: {}: {}", wf, batch.status().message());
      return Outcome::kDrained;
    }
    if (batch->empty()) {
      // Stamped under the write lock while nothing is past the cursor, and
      // closed without a checkpoint: the next look passes over it until
      // someone writes.
      const OtlpCursor at = *cursor;
      std::optional<DbStamp> stamp = StampIfQuiet(db, w->paths.db, [&] {
        Result<int64_t> seq = LatestCompletedSeq(db);
        Result<int64_t> guard = LatestGuardDecisionId(db);
        return seq.ok() && guard.ok() && *seq <= at.seq && *guard <= at.guard_id;
      });
      if (stamp) *quiet = *stamp;
      return Outcome::kDrained;
    }
    const int spans = batch->agent_spans + batch->tool_spans;
    OtlpPostResult post = PostOtlp(target_, OtlpTraceRequest(options_.instance, std::move(batch->spans)).dump(),
                                   kRequestSeconds);
    const OtlpAnswer answer = ClassifyOtlpAnswer(post.status, !post.transport_error.empty());
    if (answer == OtlpAnswer::kRetry) {
      if (metrics_) metrics_->OtlpExportFailed();
      const std::string why = post.transport_error.empty() ? "HTTP " + std::to_string(post.status) : post.transport_error;
      if (why != last_error_) {
        spdlog::warn("otlp: {} did not take {} spans of {}: {}; retried with backoff", target_.url, spans, wf, why);
        last_error_ = why;
      }
      return Outcome::kFailed;
    }
    if (answer == OtlpAnswer::kDrop) {
      spdlog::warn("otlp: {} refused {} spans of {} for good (HTTP {}: {}); they are skipped", target_.url, spans, wf,
                   post.status, post.body);
      if (metrics_) metrics_->OtlpSpansDropped(spans);
    } else {
      if (metrics_) metrics_->OtlpSpansExported(spans);
      if (!last_error_.empty()) spdlog::info("otlp: {} takes spans again", target_.url);
      last_error_.clear();
    }
    Status moved = CommitOtlpCursor(db, *cursor, batch->next);
    if (!moved.ok()) {
      spdlog::warn("otlp: {}: {}", wf, moved.message());
      return Outcome::kDrained;
    }
    *cursor = batch->next;
  }
}

}  // namespace pulse::serve
