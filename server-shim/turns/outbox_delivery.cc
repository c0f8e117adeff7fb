// Outbox delivery: new messages get their targets (core/notify/delivery.h), and
// every delivery that is due is tried once — the webhook POST, Slack's
// chat.postMessage to the workflow's channel or back into the thread a
// reply answers — with the answer recorded on the message. It runs on its
// own thread in `pulse serve`, so a slow or failing endpoint never holds up
// the scheduler tick or a turn; a failed delivery waits for its backoff.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "agent/outbox/outbox.h"
#include "core/notify/delivery.h"
#include "core/slack/slack_routing.h"
#include "core/base/time_util.h"
#include "server-shim/observe/metrics.h"
#include "server-shim/serve.h"
#include "server-shim/slack/slack_client.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

// "slack:C123/1700000000.000100" -> {"C123", "1700000000.000100"}.
void SlackTargetParts(const std::string& target, std::string* channel, std::string* thread) {
  std::string rest = target.substr(6);
  size_t slash = rest.find('/');
  *channel = rest.substr(0, slash);
  *thread = slash == std::string::npos ? "" : rest.substr(slash + 1);
}

std::string SlackText(const OutboxMessage& m, const std::string& workflow_slug) {
  const std::string name = SlackPulseName(workflow_slug);
  if (m.text.rfind(name, 0) == 0) return m.text;
  if (!m.title.empty() && m.title.rfind(name, 0) == 0 && m.kind != "pulse_reply") return "*" + m.title + "*\n" + m.text;
  return name + ": " + m.text;
}

DeliveryAnswer Attempt(OpenCtx& oc, const SlackConfig& slack, const NotifyConfig& notify, const DueDelivery& due) {
  const OutboxMessage& m = due.message;
  const std::string& target = due.delivery.target;
  if (target == kWebhookTarget) {
    if (notify.webhook_url.empty()) {
      return DeliveryAnswer{false, false, "pulse.notify.webhook_url was removed from workflow.json", 0, ""};
    }
    SlackHttpAnswer a = PostJsonTo(notify.webhook_url, json{{"workflow", oc.ctx.workflow}, {"message", OutboxMessageToJson(m)}});
    return ClassifyWebhookAnswer(a.status, a.retry_after, a.transport_error);
  }
  if (target.rfind("slack:", 0) == 0) {
    if (!slack.CanPost()) return DeliveryAnswer{false, false, "Slack: no bot_token in .pulse/slack.json", 0, ""};
    std::string channel, thread;
    SlackTargetParts(target, &channel, &thread);
    json body = {{"channel", channel}, {"text", SlackText(m, WorkflowSlug(oc.ctx.config.raw, oc.ctx.workflow))},
                 {"unfurl_links", false}};
    if (!thread.empty()) body["thread_ts"] = thread;
    SlackHttpAnswer a = SlackPostJson(slack, "chat.postMessage", body);
    return ClassifySlackAnswer(a.status, a.body, a.retry_after, a.transport_error);
  }
  return DeliveryAnswer{false, false, "unknown delivery target \"" + target + "\"", 0, ""};
}

}  // namespace

void DeliverOutbox(OpenCtx& oc) {
  Env& env = *oc.ctx.env;
  Result<SlackConfig> slack = LoadSlackConfig(env, oc.paths().workspace);
  if (!slack.ok()) spdlog::warn("{}: {}", oc.ctx.workflow, slack.status().message());
  const SlackConfig config = slack.ok() ? *slack : SlackConfig{};
  const NotifyConfig notify = ReadNotifyConfig(oc.ctx.config.raw);
  Db& db = *oc.ctx.db;
  Result<std::vector<OutboxMessage>> fresh = UnplannedOutbox(db, 50);
  if (!fresh.ok()) {
    spdlog::warn("{}: outbox: {}", oc.ctx.workflow, fresh.status().message());
    return;
  }
  for (const OutboxMessage& m : *fresh) {
    const std::vector<std::string> targets = DeliveryTargets(m.kind, m.payload, notify, config.CanPost());
    Status planned = PlanDeliveries(db, m.id, targets, env.NowSeconds());
    if (!planned.ok()) spdlog::warn("{}: outbox message {}: {}", oc.ctx.workflow, m.id, planned.message());
    if (ServerMetrics* metrics = CurrentServerMetrics(); metrics && planned.ok()) {
      for (const std::string& t : targets) metrics->Delivery(t == kTabOnlyTarget ? "not_sent" : "queued");
    }
  }
  Result<std::vector<DueDelivery>> due = DueDeliveries(db, env.NowSeconds(), 20);
  if (!due.ok()) return;
  std::set<std::string> down;  // targets that failed in this pass: the rest wait for the next
  for (const DueDelivery& d : *due) {
    if (down.count(d.delivery.target)) continue;
    DeliveryAnswer answer = Attempt(oc, config, notify, d);
    Status recorded = RecordDeliveryAttempt(db, d.message.id, d.delivery.target, answer, env.NowSeconds());
    if (!recorded.ok()) spdlog::warn("{}: outbox message {}: {}", oc.ctx.workflow, d.message.id, recorded.message());
    if (ServerMetrics* metrics = CurrentServerMetrics(); metrics && recorded.ok()) {
      // The state the attempt left it in (outbox.h: RecordDeliveryAttempt).
      const bool retried = answer.retry && d.delivery.attempts + 1 < kMaxDeliveryAttempts &&
                           NextAttemptAt(answer, d.delivery.attempts + 1, env.NowSeconds());
      metrics->Delivery(answer.delivered ? "delivered" : retried ? "retrying" : "failed");
    }
    if (answer.delivered) continue;
    down.insert(d.delivery.target);
    // Logged on the first failure and when given up; the retries between
    // are on the message, not in the log.
    const int attempts = d.delivery.attempts + 1;
    if (attempts == 1 || !answer.retry || attempts >= kMaxDeliveryAttempts) {
      spdlog::warn("{}: outbox message {} to {}: {}{}", oc.ctx.workflow, d.message.id, d.delivery.target, answer.error,
                   answer.retry && attempts < kMaxDeliveryAttempts ? " (retried with backoff)" : " (given up)");
    }
  }
}

OutboxDeliverer::OutboxDeliverer(Env* env, const ServeOptions& options)
    : env_(&moving_), moving_(env), options_(options), quiet_(DueIndexFor(options, "outbox-due.json", INT64_MAX, 30)) {}

OutboxDeliverer::~OutboxDeliverer() { Stop(); }

void OutboxDeliverer::Start() {
  thread_ = std::thread([this] {
    LowerThreadPriority("outbox deliverer");
    quiet_->Load();  // on this thread, so the server answers meanwhile
    // Wakes for new messages; otherwise looks again every few seconds for
    // retries whose time came (and for writers outside this process). A
    // whole pass over many workflows waits at least five times its own
    // length, so stamping them all stays within a fifth of a core.
    auto next_whole = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    for (;;) {
      bool whole = true;
      std::set<std::string> named;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait_until(l, next_whole, [this] { return stop_ || woken_ || !named_.empty(); });
        if (stop_) break;
        // Not while the tick's pass is under way: each workflow it visits is
        // settled by the visit itself (Settled), so a whole look beside it
        // would open every one a second time; the tick wakes one at its end.
        whole = (woken_ || std::chrono::steady_clock::now() >= next_whole) && !tick_pass_;
        if (whole) woken_ = false;
        named.swap(named_);
        if (!whole && named.empty()) {
          cv_.wait(l, [this] { return stop_ || !tick_pass_ || !named_.empty(); });
          continue;
        }
      }
      const auto started = std::chrono::steady_clock::now();
      try {
        DeliverAllOnce(whole ? nullptr : &named);
      } catch (const std::exception& e) {
        spdlog::error("outbox delivery: internal error: {}", e.what());
      }
      if (whole) {
        const auto ended = std::chrono::steady_clock::now();
        const std::chrono::duration<double> gap(std::max(2.0, 5 * std::chrono::duration<double>(ended - started).count()));
        next_whole = ended + std::chrono::duration_cast<std::chrono::steady_clock::duration>(gap);
      }
      quiet_->Save(false);
    }
    quiet_->Save(true);
  });
}

void OutboxDeliverer::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void OutboxDeliverer::Wake() {
  {
    std::lock_guard<std::mutex> l(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

void OutboxDeliverer::TickPassing(bool running) {
  {
    std::lock_guard<std::mutex> l(mu_);
    tick_pass_ = running;
  }
  cv_.notify_all();
}

void OutboxDeliverer::Wake(const std::string& workflow) {
  {
    std::lock_guard<std::mutex> l(mu_);
    named_.insert(workflow);
  }
  cv_.notify_all();
}

void OutboxDeliverer::Settled(const std::string& workflow, ApiContext& ctx) {
  // The other files stamped first: one that moves after this is a mismatch
  // when the mark is made (MarkQuiet compares).
  WorkflowStamp stamp = StampWorkflow(options_.workspace, workflow);
  std::optional<DbStamp> db =
      StampIfQuiet(*ctx.db, WorkflowDbPath(options_.workspace, workflow), [&] { return OutboxQuiet(ctx); });
  if (!db) return Wake(workflow);
  stamp.db = *db;
  quiet_->MarkQuiet(workflow, stamp, env_->NowSeconds(), INT64_MAX);
}

void OutboxDeliverer::DeliverAllOnce(const std::set<std::string>* only) {
  // Named workflows come from turns of workflows that were listed; one
  // removed since fails to open and is passed over.
  Result<std::vector<std::string>> names =
      only ? Result<std::vector<std::string>>(std::vector<std::string>(only->begin(), only->end()))
           : ListWorkflows(*env_, options_.workspace);
  if (!names.ok()) return;
  for (const std::string& wf : *names) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stop_) return;
    }
    // Passed over while its database and workflow.json stay as a visit
    // that left nothing to plan or retry found them.
    const int64_t now = env_->NowSeconds();
    if (quiet_->Quiet(wf, now)) continue;
    WorkflowStamp expected = StampWorkflow(options_.workspace, wf);
    std::optional<DbStamp> db_after;
    {
      Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(*env_, options_.workspace, wf);
      if (!oc.ok()) continue;
      // What the deliverer itself wrote (a delivery recorded) is no reason
      // to look again; another writer's commit is (visit_stamp.h).
      OwnWrites own;
      own.Begin(*(*oc)->ctx.db);
      DeliverOutbox(**oc);
      if (OutboxQuiet((*oc)->ctx)) db_after = own.End(*(*oc)->ctx.db, WorkflowDbPath(options_.workspace, wf));
    }
    if (!db_after) continue;
    expected.db = *db_after;
    quiet_->MarkQuiet(wf, expected, now, INT64_MAX);
  }
  if (!only) quiet_->Retain(*names);
}

}  // namespace pulse::serve
