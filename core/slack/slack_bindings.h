// Slack threads bound to a workflow's Pulse, kept in that workflow's
// database so they survive restarts and the browser copy shows them. A
// thread (or a whole DM) is bound when a message in it names
// `<slug>-pulse`; from then on plain replies in it are Pulse's to answer.
// Each message Pulse took in, and each reply it sent, is a line of the
// binding: the next turn replays the thread's earlier lines, and a message
// recorded once (by its channel and ts, or its event id) is never taken in
// again, whatever Slack retries or sends twice (message + app_mention).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/store/db.h"
#include "core/slack/slack_events.h"
#include "core/slack/slack_routing.h"
#include "core/base/status.h"

namespace pulse {

struct SlackBinding {
  std::string team;
  std::string channel;
  std::string thread;    // "" for a DM bound as a whole
  std::string bound_by;  // the account whose message bound it
  bool alias = false;    // bound by `<slug>-goal`
  int64_t bound_at = 0;
};

class SlackStore {
 public:
  explicit SlackStore(Db& db) : db_(db) {}

  Result<std::optional<SlackBinding>> FindBinding(const std::string& team, const std::string& channel,
                                                  const std::string& thread);
  // Binds (or re-binds) the thread; bound_at is kept for a thread bound before.
  Status Bind(const SlackBinding& binding, int64_t now);
  // Removes a binding (a DM that now names another workflow's Pulse).
  Status Unbind(const std::string& team, const std::string& channel, const std::string& thread);
  Result<std::vector<SlackBinding>> Bindings();

  // Whether this event or message was taken in before (Slack retries with
  // the same event id; one message can arrive as `message` and `app_mention`).
  Result<bool> Seen(const std::string& event_id, const SlackMessage& m);
  // Takes a message in once: false (nothing written) when Seen.
  Result<bool> RecordIncoming(const std::string& event_id, const SlackMessage& m, const std::string& account,
                              int64_t now);
  // One of Pulse's replies in the thread (`who` is its name as people see it).
  Status RecordOutgoing(const std::string& team, const std::string& channel, const std::string& thread,
                        const std::string& who, const std::string& text, int64_t now);
  // The binding's lines, oldest first, the newest `limit`, without the
  // message `except_ts` (the one being answered).
  Result<std::vector<SlackThreadLine>> ThreadLines(const std::string& team, const std::string& channel,
                                                   const std::string& thread, const std::string& except_ts, int limit);

 private:
  Db& db_;
};

}  // namespace pulse
