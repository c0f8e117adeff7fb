#include "server-shim/tick/first_open.h"

#include <atomic>

#include "server-shim/serve.h"

namespace pulse::serve {

namespace {
std::atomic<FirstOpen*> g_first{nullptr};
}  // namespace

void FirstOpen::Run(OpenCtx& oc) {
  const std::string& wf = oc.ctx.workflow;
  {
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      auto it = state_.find(wf);
      if (it == state_.end()) break;
      if (it->second == State::kDone) return;
      cv_.wait(l);
    }
    state_[wf] = State::kRunning;
  }
  try {
    hook_(oc);
  } catch (...) {
    std::lock_guard<std::mutex> l(mu_);
    state_[wf] = State::kDone;
    cv_.notify_all();
    throw;
  }
  std::lock_guard<std::mutex> l(mu_);
  state_[wf] = State::kDone;
  cv_.notify_all();
}

bool FirstOpen::Done(const std::string& workflow) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = state_.find(workflow);
  return it != state_.end() && it->second == State::kDone;
}

void SetFirstOpen(FirstOpen* first) { g_first.store(first); }
FirstOpen* CurrentFirstOpen() { return g_first.load(); }

void EnsureFirstOpen(Env& env, const std::string& workspace, const std::string& workflow) {
  FirstOpen* first = g_first.load();
  if (!first || first->Done(workflow)) return;
  (void)OpenForCall(env, workspace, workflow);  // runs the hook; an open that fails is the caller's to report
}

}  // namespace pulse::serve
