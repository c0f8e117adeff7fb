// Process-wide observation points: events the core counts where they happen
// (an agent-log write, a guard decision) for whoever watches the process —
// `pulse serve` exports them at GET /metrics. Without a sink (the command
// line, the WASM module, the tests that do not set one) nothing is counted
// and nothing is paid but one atomic load.
#pragma once

#include <string_view>

namespace pulse {

class ObserveSink {
 public:
  virtual ~ObserveSink() = default;
  // One agent-log event committed: "started" or "completed".
  virtual void AgentLogEvent(std::string_view event) = 0;
  // One decision of the autonomy guard, as recorded: its rule and whether
  // the call was allowed.
  virtual void GuardDecision(std::string_view rule, bool allowed) = 0;
};

// The sink every later event goes to (nullptr: none). The caller keeps it
// alive until it is replaced.
void SetObserveSink(ObserveSink* sink);
ObserveSink* CurrentObserveSink();

}  // namespace pulse
