// POST /slack/events and what follows it. The route checks the signature
// and the replay window, answers at once (Slack wants an answer within 3
// seconds) and queues the message; a worker thread then routes it
// (core/slack/slack_routing.h), checks the sender's access (users.info), binds the
// thread, and submits an ask_pulse turn in the workflow's Pulse
// conversation. The turn's reply goes to the outbox with the thread as its
// target (TurnManager::ReplyToSlack), so it shows in the Pulse tab with its
// delivery state like every other message.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "core/slack/slack_events.h"
#include "server-shim/serve.h"
#include "server-shim/slack/slack_client.h"

namespace pulse::serve {

class SlackService {
 public:
  SlackService(Env* env, const ServeOptions& options, TurnManager* turns);
  ~SlackService();
  void Start();
  void Stop();
  // The route. 401 for unsigned, badly signed, stale or replayed requests;
  // 400 for a malformed event; 200 otherwise (a retried event is not
  // handled twice).
  void HandleEvents(const httplib::Request& req, httplib::Response& res);

 private:
  struct Job {
    std::string event_id;
    SlackMessage message;
  };
  void Work();
  void Handle(const Job& job);
  // The sender's email from users.info, cached for a few minutes.
  Result<std::string> EmailOf(const SlackConfig& config, const std::string& user);
  // Posts a reply that belongs to no workflow's outbox (unknown slug, two
  // slugs, no access) straight to the thread.
  void PostDirect(const SlackConfig& config, const SlackMessage& m, const std::string& text);
  bool RememberEvent(const std::string& event_id);
  void ForgetEvent(const std::string& event_id);

  Env* env_;
  const ServeOptions& options_;
  TurnManager* turns_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::deque<Job> queue_;
  std::thread thread_;
  SlackReplayGuard replay_;
  std::set<std::string> events_;          // event ids taken in (bounded by events_order_)
  std::deque<std::string> events_order_;
  std::map<std::string, std::pair<std::string, int64_t>> emails_;  // user -> (email, fetched at)
  std::set<std::string> denied_;          // "<workflow> <user> <channel> <thread>" told once
};

}  // namespace pulse::serve
