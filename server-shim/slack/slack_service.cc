#include "server-shim/slack/slack_service.h"

#include <spdlog/spdlog.h>

#include <ctime>

#include "agent/outbox/outbox.h"
#include "core/notify/delivery.h"
#include "core/base/json_limits.h"
#include "core/slack/slack_bindings.h"
#include "core/slack/slack_routing.h"
#include "server-shim/http/http_util.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

constexpr size_t kMaxQueued = 256;
constexpr size_t kMaxRememberedEvents = 20000;
constexpr int64_t kEmailCacheSeconds = 600;
// Earlier lines of a bound thread replayed into a turn, and their bound.
constexpr int kThreadLines = 30;
constexpr size_t kTurnMessageBytes = 16000;

// The workflows this Slack app reaches, each opened once for this message.
struct Reach {
  std::vector<SlackTarget> targets;
  std::map<std::string, std::unique_ptr<OpenCtx>> open;  // workflow -> its database
};

Reach OpenReach(Env& env, const std::string& workspace) {
  Reach r;
  Result<std::vector<std::string>> names = ListWorkflows(env, workspace);
  if (!names.ok()) return r;
  for (const std::string& wf : *names) {
    Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(env, workspace, wf);
    if (!oc.ok()) continue;
    r.targets.push_back(SlackTarget{WorkflowSlug((*oc)->ctx.config.raw, wf), wf});
    r.open[wf] = std::move(oc).value();
  }
  return r;
}

// The workflow whose Pulse this thread (or DM) is bound to, if any.
std::string BoundWorkflow(Reach& reach, const SlackMessage& m) {
  for (auto& [wf, oc] : reach.open) {
    Result<std::optional<SlackBinding>> b = SlackStore(*oc->ctx.db).FindBinding(m.team, m.channel, m.BindingThread());
    if (b.ok() && *b) return wf;
  }
  return "";
}

std::string SlugOf(const Reach& reach, const std::string& workflow) {
  for (const SlackTarget& t : reach.targets) {
    if (t.workflow == workflow) return t.slug;
  }
  return workflow;
}

int64_t WallClock() { return static_cast<int64_t>(std::time(nullptr)); }

}  // namespace

SlackService::SlackService(Env* env, const ServeOptions& options, TurnManager* turns)
    : env_(env), options_(options), turns_(turns) {}

SlackService::~SlackService() { Stop(); }

void SlackService::Start() {
  thread_ = std::thread([this] { Work(); });
}

void SlackService::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool SlackService::RememberEvent(const std::string& event_id) {
  if (!events_.insert(event_id).second) return false;
  events_order_.push_back(event_id);
  while (events_order_.size() > kMaxRememberedEvents) {
    events_.erase(events_order_.front());
    events_order_.pop_front();
  }
  return true;
}

void SlackService::ForgetEvent(const std::string& event_id) { events_.erase(event_id); }

void SlackService::HandleEvents(const httplib::Request& req, httplib::Response& res) {
  if (req.body.size() > kMaxSlackBodyBytes) return ReplyError(res, 413, "Slack event: body is too large");
  Result<SlackConfig> config = LoadSlackConfig(*env_, options_.workspace);
  if (!config.ok()) return ReplyError(res, 401, "Slack request refused: " + config.status().message());
  // The window is about the request's freshness on the wire, so it is
  // checked against the machine's clock, not Pulse's evaluation clock.
  const int64_t now = WallClock();
  const std::string signature = req.get_header_value("X-Slack-Signature");
  Status signed_ok = VerifySlackSignature(config->signing_secret, req.get_header_value("X-Slack-Request-Timestamp"),
                                          req.body, signature, now);
  if (!signed_ok.ok()) return ReplyError(res, 401, signed_ok.message());
  Result<SlackEnvelope> env = ParseSlackEnvelope(req.body);
  if (!env.ok()) return ReplyError(res, 400, env.status().message());
  const bool retry = req.has_header("X-Slack-Retry-Num");
  std::lock_guard<std::mutex> l(mu_);
  if (!replay_.FirstSeen(signature, now)) {
    // Slack signs each retry afresh; the same signature twice is a replay.
    // A retry header on it changes nothing, so it gets a quiet 200.
    if (retry) return ReplyJson(res, 200, json{{"ok", true}, {"duplicate", true}});
    return ReplyError(res, 401, "Slack request refused: this signed request was already received (replayed)");
  }
  if (env->kind == SlackEnvelopeKind::kUrlVerification) return ReplyJson(res, 200, json{{"challenge", env->challenge}});
  if (env->kind != SlackEnvelopeKind::kEventCallback || !env->message) {
    return ReplyJson(res, 200, json{{"ok", true}, {"ignored", env->ignored}});
  }
  if (!RememberEvent(env->event_id)) return ReplyJson(res, 200, json{{"ok", true}, {"duplicate", true}});
  if (queue_.size() >= kMaxQueued) {
    ForgetEvent(env->event_id);
    return ReplyError(res, 503, "too many Slack messages waiting; Slack will retry");
  }
  queue_.push_back(Job{env->event_id, *env->message});
  cv_.notify_all();
  ReplyJson(res, 200, json{{"ok", true}});
}

void SlackService::Work() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      Handle(job);
    } catch (const std::exception& e) {
      spdlog::error("slack: event {}: internal error: {}", job.event_id, e.what());
    }
  }
}

Result<std::string> SlackService::EmailOf(const SlackConfig& config, const std::string& user) {
  const int64_t now = WallClock();
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = emails_.find(user);
    if (it != emails_.end() && it->second.second > now - kEmailCacheSeconds) return it->second.first;
  }
  SlackHttpAnswer a = SlackPostForm(config, "users.info", {{"user", user}});
  DeliveryAnswer read = ClassifySlackAnswer(a.status, a.body, a.retry_after, a.transport_error);
  if (!read.delivered) return Status::IoError("users.info: " + read.error);
  Result<json> doc = ParseJsonBounded(a.body, "users.info answer", 32);
  std::string email;
  if (doc.ok() && doc->contains("user") && (*doc)["user"].is_object()) {
    const json& u = (*doc)["user"];
    if (u.contains("profile") && u["profile"].is_object()) email = u["profile"].value("email", "");
  }
  std::lock_guard<std::mutex> l(mu_);
  emails_[user] = {email, now};
  return email;
}

void SlackService::PostDirect(const SlackConfig& config, const SlackMessage& m, const std::string& text) {
  if (!config.CanPost()) return;
  json body = {{"channel", m.channel}, {"text", text}};
  if (!m.ReplyThread().empty()) body["thread_ts"] = m.ReplyThread();
  SlackHttpAnswer a = SlackPostJson(config, "chat.postMessage", body);
  DeliveryAnswer d = ClassifySlackAnswer(a.status, a.body, a.retry_after, a.transport_error);
  if (!d.delivered) spdlog::warn("slack: reply in {} not delivered: {}", m.channel, d.error);
}

namespace {

// The sender's access to `workflow`: allowed with the account and role, or
// the reason (and the reply) why not.
SlackAccess AccessFor(Env& env, const std::string& workspace, OpenCtx& oc, const Result<std::string>& email) {
  if (!email.ok()) return SlackAccess{false, "", "", "could not read the sender's email: " + email.status().message()};
  Result<std::vector<AccountEmails>> accounts = LoadAccounts(env, workspace);
  if (!accounts.ok()) return SlackAccess{false, "", "", accounts.status().message()};
  Result<std::vector<AccessEntry>> access = ParseWorkflowAccess(oc.ctx.config.raw, oc.paths().workflow_json);
  if (!access.ok()) return SlackAccess{false, "", "", access.status().message()};
  return CheckSlackAccess(*email, *accounts, *access);
}

}  // namespace

void SlackService::Handle(const Job& job) {
  const SlackMessage& m = job.message;
  Result<SlackConfig> config = LoadSlackConfig(*env_, options_.workspace);
  if (!config.ok()) return;
  Reach reach = OpenReach(*env_, options_.workspace);
  SlugRoute route = RouteBySlug(m.text, reach.targets);
  std::string wf;
  if (route.kind == SlugRouteKind::kTwo || route.kind == SlugRouteKind::kUnknown) {
    return PostDirect(*config, m, route.reply);
  }
  if (route.kind == SlugRouteKind::kOne) wf = route.target.workflow;
  if (wf.empty()) wf = BoundWorkflow(reach, m);
  if (wf.empty()) {
    // Channel chatter that is not for Pulse stays unanswered; a DM gets told how to reach one.
    if (m.IsDirect()) {
      std::string names;
      for (const SlackTarget& t : reach.targets) names += (names.empty() ? "" : ", ") + t.slug + "-pulse";
      PostDirect(*config, m, "Name the workflow's Pulse you want, for example " +
                                 (names.empty() ? std::string("<workflow>-pulse") : names) + ".");
    }
    return;
  }
  OpenCtx& oc = *reach.open[wf];
  const std::string slug = SlugOf(reach, wf);
  SlackAccess access = AccessFor(*env_, options_.workspace, oc, EmailOf(*config, m.user));
  if (!access.allowed) {
    spdlog::info("slack: {} has no access to {}: {}", m.user, wf, access.reason);
    const std::string key = wf + " " + m.user + " " + m.channel + " " + m.BindingThread();
    bool first;
    {
      std::lock_guard<std::mutex> l(mu_);
      first = denied_.insert(key).second;
    }
    if (first) PostDirect(*config, m, NoAccessReply(slug));
    return;
  }
  SlackStore store(*oc.ctx.db);
  const int64_t now = env_->NowSeconds();
  Result<bool> fresh = store.RecordIncoming(job.event_id, m, access.account, now);
  if (!fresh.ok() || !*fresh) return;  // taken in before (a retry, or message + app_mention)
  if (route.kind == SlugRouteKind::kOne) {
    Status bound = store.Bind(SlackBinding{m.team, m.channel, m.BindingThread(), access.account, route.alias, now}, now);
    if (!bound.ok()) spdlog::warn("slack: binding {} to {}: {}", m.channel, wf, bound.message());
    // A DM names one Pulse at a time: naming another moves it.
    for (auto& [other, other_oc] : reach.open) {
      if (other != wf) (void)SlackStore(*other_oc->ctx.db).Unbind(m.team, m.channel, m.BindingThread());
    }
  }
  Result<std::vector<SlackThreadLine>> lines = store.ThreadLines(m.team, m.channel, m.BindingThread(), m.ts, kThreadLines);
  TurnRequest t;
  t.workflow = wf;
  t.kind = "ask_pulse";
  t.trigger = "slack";
  t.input = {{"message", SlackTurnMessage(slug, access.account, m.IsDirect(), lines.ok() ? *lines : std::vector<SlackThreadLine>{},
                                          m.text, kTurnMessageBytes)},
             {"caller", access.role == "owner" ? "owner" : "bot"},
             {"account", access.account},
             {"slack", {{"team", m.team}, {"channel", m.channel}, {"thread_ts", m.ReplyThread()},
                        {"binding_thread", m.BindingThread()}, {"user", m.user}}}};
  Result<TurnTicket> ticket = turns_->Submit(t);
  if (!ticket.ok()) {
    spdlog::warn("slack: {}: turn not started: {}", wf, ticket.status().message());
    PostDirect(*config, m, SlackPulseName(slug) + " could not take your message just now (" +
                               ticket.status().message() + "). Please send it again in a few minutes.");
    return;
  }
  spdlog::info("slack: {} message from {} ({}) -> turn {}", wf, access.account, m.channel, ticket->pulse_run_id);
}

}  // namespace pulse::serve
