// What `pulse serve` does to a workflow once, before this process first uses
// it: the turns a previous server left running are recorded as interrupted
// (TurnManager::RecoverInterrupted). It used to be done for every workflow
// before serving, which opened every database at start (21 s per 1,000
// workflows); now it runs on the workflow's first open by this process
// (OpenForCall, and a read connection's first open), once. Until then
// nothing of this process has read or written the workflow, so every answer
// and every turn still sees it recovered.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace pulse {
class Env;
}

namespace pulse::serve {

struct OpenCtx;

class FirstOpen {
 public:
  using Hook = std::function<void(OpenCtx&)>;
  explicit FirstOpen(Hook hook) : hook_(std::move(hook)) {}
  // Runs the hook on `oc` when this is the workflow's first open; a second
  // thread opening it meanwhile waits until the hook has run.
  void Run(OpenCtx& oc);
  // True once the hook ran for `workflow`.
  bool Done(const std::string& workflow);

 private:
  enum class State { kRunning, kDone };
  Hook hook_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, State> state_;
};

// The process's hook (pulse serve sets it before serving; nullptr: none, as
// for the command line and with --etcd, where the rows may be another
// instance's).
void SetFirstOpen(FirstOpen* first);
FirstOpen* CurrentFirstOpen();

// For a path that opens a workflow without OpenForCall (the read pool):
// opens it once through OpenForCall when its first-open hook has not run.
void EnsureFirstOpen(pulse::Env& env, const std::string& workspace, const std::string& workflow);

}  // namespace pulse::serve
