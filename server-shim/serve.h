// `pulse serve`: the server shim. Only I/O lives here — HTTP, the scheduler
// tick, runner processes, webhook delivery, files. Every rule it applies
// (which check is due, what a turn does, what a tool call may do) is in
// core/ or agent/, reached through their typed calls or the API table.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/model/model_spec.h"
#include "agent/programs/program_preset.h"
#include "agent/tools/agent_api.h"
#include "agent/turns/pulse_asks.h"
#include "agent/tools/pulse_tools.h"
#include "core/asks/ask_builder.h"
#include "server-shim/server_env.h"
#include "core/api/api.h"
#include "core/base/env.h"
#include "core/base/status.h"
#include "core/store/workspace.h"
#include "server-shim/cluster/etcd_client.h"
#include "server-shim/tick/tick_due.h"
#include "server-shim/tick/workflow_count.h"
#include "server-shim/turns/sandbox.h"

namespace pulse::serve {

struct ServeOptions {
  std::string workspace;
  std::string host = "127.0.0.1";
  int port = 8080;
  double tick_seconds = 60;      // scheduler tick interval
  bool tick = true;              // --no-tick: serve only
  std::string runner;            // external runner command (sh -c); empty: a model or the built-in rules runner
  ModelFlags model;              // --model and its options: a model for the turns (agent/model/model_spec.h)
  std::string platform;          // --platform: runs allowed platform tool calls (sh -c); empty: answered carry_out_on_platform
  std::string builder;           // --builder: runs a Builder chat turn (sh -c); empty: no Builder chat can be asked
  double platform_timeout = 120; // seconds before a platform call is killed
  double runner_timeout = 600;   // seconds before a runner is killed
  double review_timeout = 300;   // seconds before a Workflow Review's runner is killed (the run then goes)
  double review_wait = 330;      // seconds a scheduled run's pre-run waits for the review
  std::string now_file;          // injectable clock (ServerEnv)
  std::string web_root;          // the Pulse tab (web/)
  std::string wasm_root;         // the WASM module (build/wasm/), served at /wasm/
  int max_turns = 2;             // turns running at once, all workflows together
  int max_checks = 2;            // the goal checks' concurrency cap (core: goal.check_due)
  int tick_threads = 2;          // workflows a tick pass visits at once
  int import_batch = 250;        // new schedule-runs.json runs one visit imports (the newest first)
  double import_seconds = -1;    // a pass takes in runs only this long (< 0: 40% of tick_seconds)
  int max_waiting = 32;          // accepted turns waiting for a slot before 429
  size_t max_body = 1 << 20;     // request bodies over this get 413
  int threads = 32;              // HTTP worker threads
  size_t pool_size = 64;         // read connections kept open, all workflows together (db_pool.h)
  double pool_idle_seconds = 30; // a kept read connection idle this long is closed
  double shutdown_grace = 5;     // seconds a runner may go on after SIGTERM before it is killed
  std::vector<std::string> allowed_hosts;        // --allowed-host: Host names served besides loopback's
  int max_connections = 2048;                    // connections open at once, all clients
  int max_connections_per_client = 512;          // connections open at once from one address
  double header_timeout = 10;                    // seconds for a request header to arrive in full
  SandboxOptions sandbox;                        // --sandbox-allow-write/-read, --runner-user, --runner-tracking
  std::string etcd;              // --etcd URL: tick only the workflows this instance claims there (claims.h)
  std::string etcd_prefix;       // keys under it; empty: /pulse/<workspace id>/
  std::string instance;          // this instance's name in claims and tick rows; empty: <host>-<pid>
  int etcd_ttl = 10;             // lease seconds: how soon a dead instance's workflows move
  EtcdAuth etcd_auth;            // etcd's user and password (--etcd-auth-file or the environment) and TLS files
  bool metrics_public = false;   // --metrics-public: GET /metrics answers clients outside loopback too
  int metrics_max_workflows = 2000;  // per-workflow gauges for at most this many workflows (name order)
  double metrics_max_age = 300;  // a workflow's gauges are read again once this old, or when their inputs move
  std::string otlp_endpoint;     // --otlp-endpoint URL: spans go to URL/v1/traces (OTLP/HTTP JSON)
  std::vector<std::pair<std::string, std::string>> otlp_headers;  // --otlp-header K=V
  double otlp_interval = 2;      // seconds between the exporter's looks for new spans
};

// One workflow opened for one request or turn: its own connection.
// A workflow opened for a request, a tick visit or a turn: the handle
// (schema ensured and configuration read once) and the adapter's view of it.
struct OpenCtx {
  std::unique_ptr<WorkflowHandle> handle;
  ApiContext ctx;
  const WorkflowPaths& paths() const { return *handle->paths(); }
};
Result<std::unique_ptr<OpenCtx>> OpenForCall(Env& env, const std::string& workspace, const std::string& workflow);

// ---- runner processes ----

struct ProcessResult {
  int exit_code = -1;   // when it exited
  int signal = 0;       // when a signal ended it
  bool timed_out = false;
  bool interrupted = false;  // killed because the server was shutting down
  std::string out;      // stdout (capped)
  std::string err;      // stderr tail (capped)
  std::string spawn_error;
};

// Where a runner runs: its workflow folder (the working directory) in its
// workspace, and the operator's say over the sandbox (sandbox.h).
struct ProcessSandbox {
  std::string workspace;
  std::string workflow_dir;
  SandboxOptions options;
  // A preset program's (program_run.cc), set by the server, never by the
  // user: more folders it reads (its installation, Pulse's files for the
  // turn) and its home, which it may write (made the runner user's, without
  // following links) and which is its $HOME.
  std::vector<std::string> read;
  std::string home;
  // Its stdout is JSON events whose first and last lines matter: past the
  // cap, the first `out_head` bytes and the rest from the end are kept.
  size_t out_head = 0;
};
ProcessSandbox RunnerSandbox(const ServeOptions& options, const std::string& workflow_dir);

// Variables no child process inherits from now on (added to PULSE_*, MCP_*
// and TMPDIR): the model's key variables (ModelKeyVariables).
void SetHiddenEnvironment(const std::vector<std::string>& names);

// Runs `command` with /bin/sh -c in its own process group, feeding `input` on
// stdin, with `extra_env` added to the environment (the server's own PULSE_*
// and MCP_* variables are not passed on). Ends the group (SIGTERM, then
// everything it started) after `timeout_s`, or `grace_s` after `*stopping`
// becomes true; whatever it started is killed when it ends, however it
// detached (runner_tree.h). With `sandbox`: runs in the workflow folder as
// the runner user with its own temp dir ($TMPDIR, removed afterwards
// without following links) under Landlock where the kernel has it, and a
// program, interpreter or script the sandbox would deny is named (with the
// flag that allows it) before it starts.
ProcessResult RunProcess(const std::string& command, const std::string& input,
                         const std::map<std::string, std::string>& extra_env, double timeout_s,
                         const std::atomic<bool>* stopping, double grace_s,
                         const ProcessSandbox* sandbox = nullptr);

// ---- background turns ----

struct TurnRequest {
  std::string workflow;
  std::string kind;              // goal_check, goal_work, ask_pulse, pass
  std::string trigger;           // tick, owner, ...
  nlohmann::json input = nlohmann::json::object();  // e.g. {"message": "..."} for ask_pulse
};

// A model's tokens over one turn thread (a pass runs several model turns).
struct TurnTokens {
  int64_t in = 0;
  int64_t out = 0;
};
// Adds to this thread's count; Take returns it and starts again at zero.
void AddTurnTokens(int64_t in, int64_t out);
TurnTokens TakeTurnTokens();

struct TurnTicket {
  std::string workflow;
  std::string kind;
  std::string session;
  std::string token;
  std::string agent;
  std::string pulse_run_id;
  std::string started_at;
  bool conversation = false;  // runs in Pulse's conversation (session = the generation's)
};

class Scheduler;
class OutboxDeliverer;
class Claims;
struct Fence;

class TurnManager {
 public:
  TurnManager(Env* env, const ServeOptions& options);
  ~TurnManager();

  void SetBaseUrl(const std::string& url) { base_url_ = url; }
  // Where finished turns hand their new messages; without one they are
  // delivered inline on the turn's thread.
  void SetDeliverer(OutboxDeliverer* deliverer) { deliverer_ = deliverer; }

  // Opens the turn's session, records its agent-log row (started) and runs it
  // on its own thread once a slot is free (at most max_turns at once, one per
  // workflow). Busy when too many wait; Refused while shutting down.
  // `open`, when given, is the caller's connection to the workflow (the
  // tick's), used for the turn's records instead of a new one.
  Result<TurnTicket> Submit(const TurnRequest& request, OpenCtx* open = nullptr);

  bool ActiveOn(const std::string& workflow);
  // Waits until every accepted turn has finished (`pulse talk|pass`).
  void Drain();
  // Turns of this kind accepted and not yet finished (waiting for a slot or
  // running): what the goal checks' cap and the one Workflow Review count.
  int RunningOfKind(const std::string& kind);
  int Active();

  // Completes the rows of turns a previous server left running, on the
  // workflow's first open by this process (first_open.h).
  void RecoverInterrupted(OpenCtx& oc);

  // Stops accepting, lets running turns finish (runners get shutdown_grace),
  // records every turn's completion and joins the threads.
  void Shutdown();

 private:
  void Run(TurnTicket ticket, TurnRequest request);
  Result<nlohmann::json> Execute(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request);
  // One runner (or the rules runner) for one turn; `continuity` is the
  // conversation's ({session_id, restored_conversation_session_id, transcript}).
  Result<nlohmann::json> RunTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                 const nlohmann::json& continuity);
  // A turn in Pulse's conversation: begun there, run, and its end recorded
  // there whatever the runner did (pass_run.cc).
  Result<nlohmann::json> ConversationTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                          const std::string& kind);
  // Gate -> Goal Work in the conversation -> Finalize; without a goal Gate
  // -> Goal Work -> Architecture -> Technical -> Finalize (pass_run.cc).
  Result<nlohmann::json> RunPass(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request);
  // One module of a pass in a session of its own (a workflow without a
  // goal): goal_work, architecture (a goal_work turn) or technical (qa_fix).
  Result<nlohmann::json> ModuleTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                    const std::string& module);
  // A QA fix run for one request: run, result stored in the request, the
  // conversation told (qa_run.cc).
  Result<nlohmann::json> RunQaFix(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request);
  // A failed run's one short turn in the conversation, its outcome kept
  // with the claim (qa_run.cc).
  Result<nlohmann::json> RunFailedTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request);
  // The after-run backup/publish turn for one housekeeping request.
  Result<nlohmann::json> HousekeepingTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request);
  void Complete(const TurnTicket& ticket, const std::string& status, const std::string& result,
                const std::string& error, int64_t started, OpenCtx* open = nullptr, TurnTokens tokens = {});
  // What an external runner reads on stdin (the model loop reads the same):
  // {charter, context, tools, skills, turn, conversation?}; no token.
  Result<nlohmann::json> RunnerInput(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                     const nlohmann::json& continuity);
  // The turn thought through by `model` (model_run.cc): the loop of
  // agent/model/model_turn.h, its tokens added to the thread's count.
  Result<nlohmann::json> ModelTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                   const nlohmann::json& prepared, const ModelSpec& model, double timeout);
  // The turn thought through by a preset program (--runner claude|codex;
  // program_run.cc), resuming its session of the conversation.
  Result<nlohmann::json> ProgramTurn(OpenCtx& oc, const TurnTicket& ticket, const TurnRequest& request,
                                     const nlohmann::json& prepared, const ProgramPreset& preset, double timeout);
  void Reap();

  // A turn that came from Slack: its reply goes back to the thread.
  // `stored`: the runner stored the reply in the outbox already.
  void ReplyToSlack(OpenCtx& oc, const TurnRequest& request, const std::string& status, const std::string& reply,
                    const std::string& error, bool stored);

  Env* env_;
  const ServeOptions& options_;
  std::string base_url_;
  OutboxDeliverer* deliverer_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> stopping_{false};
  int running_ = 0;
  int waiting_ = 0;
  std::multiset<std::string> active_workflows_;   // waiting or running
  std::set<std::string> running_workflows_;
  std::multiset<std::string> running_kinds_;      // waiting or running
  std::list<std::thread> threads_;
  std::list<std::thread::id> finished_;
  std::atomic<uint64_t> counter_{0};
};

// What thinks for the turns, for /api/health: {thinks_with: rules|runner|
// model, model?: {provider, name, url, source, key_env, key: set|unset|none}}
// (never the key itself). A workflow's pulse.model may override it.
nlohmann::json ThinksWithJson(const ServeOptions& options);

// ---- preset programs (program_run.cc) ----

// One run of a preset program (--runner claude|codex, --builder claude|codex).
struct ProgramRun {
  const ProgramPreset* preset = nullptr;
  std::string flag;           // "--runner" or "--builder": named in its messages
  std::string role;           // "runner" or "builder": each has its own home
  std::string workflow;
  std::string workflow_dir;
  std::string conversation;   // the session its own goes on with ("": a new one, not kept)
  std::string system_prompt;
  std::string prompt;         // on its stdin
  std::string history;        // before the prompt when it starts a new session (ProgramHistory)
  std::string mcp_url;        // Pulse's /mcp
  std::map<std::string, std::string> env;  // MCP_API_TOKEN and the turn's PULSE_* variables
  double timeout = 600;
};
struct ProgramRunResult {
  ProgramReply reply;         // its error covers not found, not started and a bad answer
  ProcessResult process;
  bool resumed = false;       // it went on with a session of the conversation
};
// Finds the program on PATH (a missing one is the reply's error: one line
// naming it and how to install it), writes its files, runs it under the
// runner sandbox with its installation readable and its home writable and
// its own ($HOME), parses its answer, and keeps its session for the
// conversation (a session it no longer has is forgotten and a new one run).
ProgramRunResult RunProgram(const ServeOptions& options, Env& env, Db& db, const ProgramRun& run,
                            const std::atomic<bool>* stopping);
// A preset program as /api/health shows it: {name, title, found: true,
// path, install_folder, key_env: [...], key: set|unset} or {name, title,
// found: false, error: the one line naming it and how to install it}.
nlohmann::json ProgramStatusJson(const ServeOptions& options, const ProgramPreset& preset, const std::string& flag);
// At start: one warning line for a preset program that is not installed
// (its turns fail with that line; the server goes on).
void LogProgramPresets(const ServeOptions& options);
// A preset program's key reaches that program only: no other command the
// server starts inherits it.
void HideProgramKeys(const ServeOptions& options);

// Why a program's run failed, in the words a runner's failure is told
// ("" when it did not); `*state` becomes "interrupted" when the server's
// shutdown cut it.
std::string ProgramRunError(const ProgramRunResult& r, const ProgramPreset& preset, double timeout,
                            std::string* state);

// ---- platform tools ----

// The --platform command as a forwarder for DispatchToolCall: the call as
// JSON on stdin ({workflow, session, turn, tool, arguments}), the answer on
// stdout (JSON when it parses, else text); exit 0 means carried out. Null
// when no command is configured.
std::unique_ptr<PlatformForwarder> MakePlatformForwarder(const ServeOptions& options, const std::string& workflow);

// ---- asks ----

// ask_pulse from a chat or step (POST /ask, `pulse ask`): opens the round,
// or reads an earlier call back (starting it when its queued slot freed),
// starts its turn on `turns`, and waits up to the call's wait_seconds for the
// answer (`drain`: until the turn ends, for the command line). The ask's
// JSON: answered, or "running"/"queued" with its call id.
Result<nlohmann::json> AskAndWait(TurnManager& turns, ApiContext& ctx, const AskCall& call, bool drain);
// The tick: queued asks whose slot has freed start their turns, oldest
// first, without their callers asking again (asking again with the call id
// then finds the answer). Returns how many started.
int StartQueuedAsks(TurnManager& turns, ApiContext& ctx);

// decision.answer, then (Accept or Change) the apply message to the Builder
// chat: the answer's document with "apply" (agent/turns/pulse_asks.h).
Result<nlohmann::json> AnswerWithApply(ApiContext& ctx, const nlohmann::json& args);

// ---- the Builder channel ----

// The --builder command as the core's BuilderChannel (builder_channel.cc):
// each turn opens a guarded session of the request's turn kind, runs the
// command under the runner sandbox with that session's MCP_API_URL and
// MCP_API_TOKEN (never the owner token), kills it after the request's wait,
// and closes the session.
std::unique_ptr<BuilderChannel> MakeBuilderChannel(const ServeOptions& options, Env* env, const std::string& base_url,
                                                   const std::atomic<bool>* stopping);

// ---- outbox delivery (outbox_delivery.cc) ----

// Gives the workflow's new outbox messages their targets and tries every
// delivery that is due once (webhook, Slack channel, Slack thread),
// recording each answer; failed ones wait for their backoff.
void DeliverOutbox(OpenCtx& oc);

// Delivers on its own thread: woken when a message may be new, and every
// few seconds for retries that came due. `pulse talk|pass` deliver inline.
class OutboxDeliverer {
 public:
  OutboxDeliverer(Env* env, const ServeOptions& options);
  ~OutboxDeliverer();
  void Start();
  void Stop();
  // A pass over every workflow, at once (the tick, after its pass).
  void Wake();
  // The tick's pass began / ended: no whole pass runs meanwhile (its visits
  // settle what they open); named looks go on.
  void TickPassing(bool running);
  // A look at this workflow only (a turn that ended, and may have left
  // messages): with thousands of workflows a whole pass per ended turn would
  // stamp every one of them each time.
  void Wake(const std::string& workflow);
  // After a writer that holds the workflow open (a turn, a tick visit) has
  // made its last write: when nothing waits to be planned or retried the
  // workflow is marked quiet as it stands, so this thread does not open it
  // to find that out; otherwise Wake(workflow).
  void Settled(const std::string& workflow, ApiContext& ctx);
  // Every workflow (passed over where the quiet index allows), or only
  // `only` when given.
  void DeliverAllOnce(const std::set<std::string>* only = nullptr);

 private:
  Env* env_;  // the deliveries' clock: the server's, moving on when it stands still
  MovingClockEnv moving_;
  const ServeOptions& options_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool woken_ = false;                // a whole pass asked for
  bool tick_pass_ = false;            // the tick is in a pass (TickPassing)
  std::set<std::string> named_;       // workflows to look at before the next whole pass
  std::unique_ptr<DueIndex> quiet_;   // workflows with nothing to deliver
};

// ---- the scheduler tick ----

class Scheduler {
 public:
  Scheduler(Env* env, const ServeOptions& options, TurnManager* turns, OutboxDeliverer* deliverer = nullptr);
  ~Scheduler();
  void Start();
  void Stop();
  // One pass over every workflow (also what each tick does).
  void TickOnce();
  int64_t ticks() const { return ticks_; }
  // What the last pass visited and passed over (tick_due.h).
  TickStats last_stats();
  // The workspace's workflow count for /api/health (workflow_count.h).
  size_t workflow_count() { return count_.Get(); }

 private:
  // With --etcd: the workflows this instance claims this tick, each ticked
  // under its claim's fence; nothing while etcd has not confirmed the lease.
  std::vector<std::string> Claimed(const std::vector<std::string>& all);
  std::optional<Fence> FenceFor(const std::string& wf) const;
  bool BeginFencedTick(const std::string& wf, Db& db);
  // One pass's counts, from every visitor thread.
  struct PassCounts {
    std::atomic<int64_t> visited{0}, skipped{0}, importing{0};
    // Runs of schedule-runs.json come in only until then (HistoryIn), and
    // always in the pass's first visit that has any (so every pass moves on).
    std::chrono::steady_clock::time_point import_until;
    std::atomic<bool> imported{false};
  };
  // One workflow's visit in a pass (any visitor thread).
  void Visit(const std::string& wf, PassCounts& counts);
  std::atomic<int64_t> ticks_{0};
  std::atomic<bool> ticking_{false};
  std::unique_ptr<Claims> claims_;
  std::map<std::string, int64_t> revisions_;  // this tick's claims (written before its visits, read by them)
  Env* env_;
  const ServeOptions& options_;
  TurnManager* turns_;
  OutboxDeliverer* deliverer_;
  std::thread thread_;
  std::mutex mu_;
  std::mutex starts_mu_;  // a capped turn's count and start (two visitors)
  std::condition_variable cv_;
  bool stop_ = false;
  std::unique_ptr<DueIndex> due_;  // workflows the tick may pass over (tick_due.h)
  WorkflowCount count_;
  TickStats last_stats_;
};

// ---- QA and the failed-run safety net (qa_run.cc) ----

// For a workflow with a goal and Pulse on, when no turn of it is active: the
// oldest failed run of the last day not seen yet is claimed and gets one
// run_failed turn. True when a turn was started.
bool StartFailedRunTurn(Env& env, TurnManager& turns, OpenCtx& oc);
// For a workflow with Pulse on, when no turn of it is active: the oldest
// pending QA request is taken and gets one qa_fix run. True when started.
bool StartQaFixRun(Env& env, TurnManager& turns, OpenCtx& oc);

// ---- HTTP ----

// Runs the server until SIGTERM/SIGINT; returns the process exit status.
int Serve(const ServeOptions& options);

}  // namespace pulse::serve
