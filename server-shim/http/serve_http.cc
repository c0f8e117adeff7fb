// The HTTP side of `pulse serve`: routes, tokens, static files, graceful
// shutdown. Each API handler opens the workflow and calls one core API
// method; no rule lives here.
#include <fcntl.h>
#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>

#include "agent/tools/agent_api.h"
#include "core/autonomy/autonomy.h"
#include "core/store/db_stats.h"
#include "core/base/sha256.h"
#include "core/base/time_util.h"
#include "agent/tools/pulse_tools.h"
#include "server-shim/tick/first_open.h"
#include "server-shim/http/http_server.h"
#include "server-shim/http/http_util.h"
#include "server-shim/http/mcp.h"
#include "server-shim/observe/observability.h"
#include "server-shim/http/rest_routes.h"
#include "server-shim/http/owner_token.h"
#include "server-shim/http/pooled_reads.h"
#include "server-shim/http/snapshot_route.h"
#include "server-shim/turns/sandbox.h"
#include "server-shim/turns/prerun.h"
#include "server-shim/serve.h"
#include "server-shim/serve_start.h"
#include "server-shim/turns/session_index.h"
#include "server-shim/server_env.h"
#include "server-shim/slack/slack_service.h"
#include "server-shim/http/workflow_list.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

class App {
 public:
  App(Env* env, const ServeOptions& options, OwnerTokenCheck* owner, TurnManager* turns, Scheduler* scheduler,
      SlackService* slack)
      : env_(env), options_(options), owner_(owner), turns_(turns), scheduler_(scheduler), slack_(slack),
        tokens_(options.workspace),
        reads_(env, options.workspace, DbPoolOptions{options.pool_size, options.pool_idle_seconds}) {}

  void Install(HttpServer& s);
  // The workflows' pooled reads (GET /metrics' gauges read through them too).
  PooledReads* reads() { return &reads_; }

 private:
  // Opens the workflow named in the URL; null with a 4xx written otherwise.
  // `env`: a per-request clock (?now=), or the server's.
  std::unique_ptr<OpenCtx> Open(const std::string& workflow, httplib::Response& res, Env* env = nullptr) {
    if (!env) env = env_;
    Status valid = ValidateWorkflowName(workflow);
    if (!valid.ok()) {
      ReplyError(res, 400, valid.message());
      return nullptr;
    }
    Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(*env, options_.workspace, workflow);
    if (!oc.ok()) {
      ReplyOpenError(res, workflow, oc.status());
      return nullptr;
    }
    return std::move(oc).value();
  }

  void ReplyOpenError(httplib::Response& res, const std::string& workflow, const Status& status) {
    if (status.code() != Code::kNotFound) return ReplyStatus(res, status);
    ReplyError(res, 404, "workflow \"" + workflow + "\" does not exist in this workspace");
  }

  bool IsOwner(const httplib::Request& req) { return owner_->Matches(BearerToken(req)); }

  bool RequireOwner(const httplib::Request& req, httplib::Response& res) {
    if (IsOwner(req)) return true;
    ReplyError(res, 401,
               BearerToken(req).empty() ? "owner token required: send Authorization: Bearer <owner token> (shown "
                                          "when it was made; `pulse token rotate` makes a new one)"
                                        : "wrong owner token");
    return false;
  }

  // Reads are open on loopback; from elsewhere they need the owner token.
  bool AllowRead(const httplib::Request& req, httplib::Response& res) {
    if (IsLoopback(req.remote_addr) || IsOwner(req)) return true;
    ReplyError(res, 401, "reads from outside loopback need the owner token");
    return false;
  }

  // ?now=T evaluates the request as of T (the command line's --now); false
  // with a 400 written when T is not a time.
  bool RequestClock(const httplib::Request& req, httplib::Response& res, std::unique_ptr<FixedClockEnv>* out) {
    if (!req.has_param("now") || req.get_param_value("now").empty()) return true;
    Result<int64_t> t = ParseTime(req.get_param_value("now"));
    if (!t.ok()) {
      ReplyError(res, 400, "now: " + t.status().message());
      return false;
    }
    *out = std::make_unique<FixedClockEnv>(env_, *t);
    return true;
  }

  // One API method on the workflow of the URL (match 1), at the request's
  // clock; its answer, under "result" when `wrap`.
  void CallMethod(const httplib::Request& req, httplib::Response& res, const std::string& method, const json& args,
                  bool wrap = false) {
    std::unique_ptr<FixedClockEnv> clock;
    if (!RequestClock(req, res, &clock)) return;
    auto oc = Open(req.matches[1], res, clock.get());
    if (!oc) return;
    Result<json> out = CallApi(oc->ctx, method, args);
    if (!out.ok()) return ReplyStatus(res, out.status());
    ReplyJson(res, 200, wrap ? json{{"result", *out}} : *out);
  }

  // A read method on a kept connection (pooled_reads.h), at the request's
  // clock; its answer, under "result" when `wrap`.
  void PooledRead(const httplib::Request& req, httplib::Response& res, const std::string& method, const json& args,
                  bool wrap) {
    std::unique_ptr<FixedClockEnv> clock;
    if (!RequestClock(req, res, &clock)) return;
    const std::string workflow = req.matches[1];
    Status valid = ValidateWorkflowName(workflow);
    if (!valid.ok()) return ReplyError(res, 400, valid.message());
    bool open_failed = false;
    Result<StatusCache::Answer> out = reads_.Call(clock ? *clock : *env_, workflow, method, args, &open_failed);
    if (!out.ok()) return open_failed ? ReplyOpenError(res, workflow, out.status()) : ReplyStatus(res, out.status());
    res.status = 200;
    const std::string& text = (*out)->text;
    res.set_content(wrap ? "{\"result\":" + text + "}" : text, "application/json");
  }

  // GET handler calling one API method with `args`.
  void Read(const httplib::Request& req, httplib::Response& res, const char* method, const json& args) {
    if (!AllowRead(req, res)) return;
    PooledRead(req, res, method, args, /*wrap=*/false);
  }

  // The workflow whose database knows `token`; with `session_id` (the tool
  // route's URL) only workflows that id can belong to are asked.
  Result<FoundSession> FindSession(const std::string& token, const std::string& session_id = "");
  void GenericCall(const httplib::Request& req, httplib::Response& res);
  void ToolRoute(const httplib::Request& req, httplib::Response& res);
  void Static(const httplib::Request& req, httplib::Response& res);
  void SubmitTurn(const httplib::Request& req, httplib::Response& res, const std::string& kind);
  // POST /ask: ask_pulse from the platform, answered within its wait.
  void AskRoute(const httplib::Request& req, httplib::Response& res);
  // The owner's answer, then the apply message to the Builder chat.
  void AnswerAndApply(const httplib::Request& req, httplib::Response& res, const json& body);
  // Install's parts: health, auth and the workflow list; the REST reads; the
  // owner's writes and turns; the agent's tool route and MCP; 404s, static
  // files and error handlers (the catch-all routes last).
  void InstallService(HttpServer& s);
  void InstallReads(HttpServer& s);
  void InstallWrites(HttpServer& s);
  void InstallAgent(HttpServer& s);
  void InstallFallbacks(HttpServer& s);

  Env* env_;
  const ServeOptions& options_;
  OwnerTokenCheck* owner_;
  TurnManager* turns_;
  Scheduler* scheduler_;
  SlackService* slack_;
  SessionTokenIndex tokens_;
  PooledReads reads_;
};

Result<FoundSession> App::FindSession(const std::string& token, const std::string& session_id) {
  if (token.empty()) return Status::NotFound("no session token");
  const std::string hash = Sha256Hex(token);
  std::vector<std::string> candidates;
  if (std::optional<std::string> known = tokens_.Known(hash)) {
    candidates.push_back(*known);
  } else {
    PULSE_ASSIGN_OR_RETURN(std::vector<std::string> all, ListWorkflows(*env_, options_.workspace));
    for (const std::string& wf : all) {
      if (session_id.empty() || SessionBelongsToWorkflow(session_id, wf)) candidates.push_back(wf);
    }
  }
  // Only the workflow whose database knows the token is opened: a wrong
  // token is refused from the index, with no database opened.
  std::optional<std::string> holder = tokens_.Find(candidates, hash);
  if (!holder) return Status::NotFound("unknown session token");
  Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(*env_, options_.workspace, *holder);
  if (!oc.ok()) return Status::NotFound("unknown session token");
  // The token is hashed once, above; the session is read once, here.
  Result<ToolSession> session = ResolveSessionTokenHash(*(*oc)->ctx.db, hash);
  if (!session.ok()) return Status::NotFound("unknown session token");
  tokens_.Remember(hash, *holder);
  return FoundSession{std::move(oc).value(), std::move(session).value()};
}

// POST /s/<session>/tools/custom/<tool>: the token is resolved once, proven
// to be the URL's session, and the call goes straight to the dispatch.
void App::ToolRoute(const httplib::Request& req, httplib::Response& res) {
  std::string url_session = req.matches[1];
  std::string tool = req.matches[2];
  std::string token = BearerToken(req);
  if (token.empty()) return ReplyError(res, 401, "session token required: send Authorization: Bearer <session token>");
  Result<FoundSession> found = FindSession(token, url_session);
  // The session comes from the URL and its token together; a token for
  // another session is as good as none.
  if (!found.ok() || found->session.id != url_session) {
    return ReplyError(res, 401, "wrong session token for session " + url_session);
  }
  json args;
  if (!ParseJsonObjectBody(req, res, &args)) return;
  std::unique_ptr<PlatformForwarder> platform = MakePlatformForwarder(options_, found->oc->ctx.workflow);
  Result<ToolCallOutcome> out = DispatchToolCall(found->oc->ctx, found->session, tool, args, platform.get());
  if (!out.ok()) return ReplyStatus(res, out.status());
  if (!out->guard.allowed) {
    spdlog::info("tool route: {} refused in session {}: {}", tool, url_session, out->guard.reason);
    return ReplyJson(res, 403, out->ToJson());
  }
  ReplyJson(res, 200, out->ToJson());
}

// POST /api/workflows/<wf>/call/<method>: any core method by name, the
// Pulse tab's one route for what has no dedicated one. Reads are open like
// every read; everything else needs the owner token and never carries a
// session (the owner acts as the owner). The server's own machinery
// (sessions, turns, the tool route) is not offered.
void App::GenericCall(const httplib::Request& req, httplib::Response& res) {
  std::string method = req.matches[2];
  const ApiMethod* m = ServerApi().Find(method);
  if (!m) return ReplyError(res, 404, "unknown method \"" + method + "\"");
  if (m->access == Access::kServer) return ReplyError(res, 403, "method " + method + " is not offered over HTTP");
  json args;
  if (!ParseJsonObjectBody(req, res, &args)) return;
  if (m->AccessFor(args) == Access::kRead) {
    if (!AllowRead(req, res)) return;
    return PooledRead(req, res, method, args, /*wrap=*/true);
  }
  if (!RequireOwner(req, res)) return;
  args.erase("session");
  CallMethod(req, res, method, args, /*wrap=*/true);
}

void App::SubmitTurn(const httplib::Request& req, httplib::Response& res, const std::string& kind) {
  if (!RequireOwner(req, res)) return;
  json body;
  if (!ParseJsonObjectBody(req, res, &body)) return;
  std::string workflow = req.matches[1];
  auto oc = Open(workflow, res);
  if (!oc) return;
  TurnRequest t;
  t.workflow = workflow;
  t.kind = kind;
  t.trigger = "owner";
  if (kind == "ask_pulse") {
    if (!body.contains("text") || !body["text"].is_string() ||
        body["text"].get<std::string>().find_first_not_of(" \t\r\n") == std::string::npos) {
      return ReplyError(res, 400, "request body: \"text\" (the message to Pulse) is required");
    }
    if (body["text"].get<std::string>().size() > 20000) {
      return ReplyError(res, 400, "request body: \"text\" is longer than 20000 characters");
    }
    t.input = {{"message", body["text"]}, {"caller", "owner"}};
    if (body.contains("account")) {
      if (!body["account"].is_string() || body["account"].get<std::string>().size() > 200) {
        return ReplyError(res, 400, "request body: \"account\" must be a string of at most 200 characters");
      }
      t.input["account"] = body["account"];
    }
  }
  Result<TurnTicket> ticket = turns_->Submit(t);
  if (!ticket.ok()) {
    int status = ticket.status().code() == Code::kBusy ? 429 : HttpStatusFor(ticket.status());
    return ReplyError(res, status, ticket.status().message());
  }
  ReplyJson(res, 202, json{{"turn", {{"kind", ticket->kind}, {"session", ticket->session}, {"agent", ticket->agent},
                                     {"pulse_run_id", ticket->pulse_run_id}, {"started_at", ticket->started_at}}}});
}

void App::AskRoute(const httplib::Request& req, httplib::Response& res) {
  if (!RequireOwner(req, res)) return;
  json body;
  if (!ParseJsonObjectBody(req, res, &body)) return;
  auto oc = Open(req.matches[1], res);
  if (!oc) return;
  Result<AskCall> call = ReadAskCall(Args("ask", body));
  if (!call.ok()) return ReplyStatus(res, call.status());
  Result<json> out = AskAndWait(*turns_, oc->ctx, *call, false);
  if (!out.ok()) return ReplyStatus(res, out.status());
  ReplyJson(res, 200, *out);
}

void App::AnswerAndApply(const httplib::Request& req, httplib::Response& res, const json& body) {
  std::unique_ptr<FixedClockEnv> clock;
  if (!RequestClock(req, res, &clock)) return;
  auto oc = Open(req.matches[1], res, clock.get());
  if (!oc) return;
  Result<json> out = AnswerWithApply(oc->ctx, body);
  if (!out.ok()) return ReplyStatus(res, out.status());
  ReplyJson(res, 200, *out);
}

void App::Static(const httplib::Request& req, httplib::Response& res) {
  const std::string& path = req.path;
  std::string root;
  std::string rel;
  if (!StaticRootFor(path, options_.web_root, options_.wasm_root, &root, &rel)) return ReplyError(res, 404, "not found: " + path);
  SetIsolationHeaders(res);
  int status = 404;
  std::string reason;
  std::string file = SafeStaticPath(root, rel, &status, &reason);
  if (file.empty() && path == "/") {
    res.status = 200;
    res.set_content(kFallbackPage, "text/html; charset=utf-8");
    return;
  }
  if (file.empty()) return ReplyError(res, status, reason + ": " + path);
  Result<std::string> body = env_->ReadFile(file);
  if (!body.ok()) return ReplyError(res, 404, "not found: " + path);
  res.status = 200;
  res.set_header("Cache-Control", "no-cache");
  res.set_content(std::move(body).value(), ContentTypeFor(file).c_str());
}

const std::string kWorkflow = R"(/api/workflows/([^/]+))";

void App::InstallService(HttpServer& s) {
  s.Get("/api/health", [this, &s](const httplib::Request& req, httplib::Response& res) {
    ReplyJson(res, 200, WithSandboxLegs(json{{"ok", true}, {"version", PULSE_VERSION}, {"workflows", scheduler_->workflow_count()},
                             {"now", FormatTime(env_->NowSeconds())}, {"turns_active", turns_->Active()},
                             {"ticks", scheduler_->ticks()}, {"tick", TickStatsJson(scheduler_->last_stats())},
                             {"sandbox", SandboxDescription()}, {"connections", s.OpenConnections()}, {"db_opens", DbOpenCount()},
                             {"reads", reads_.Health()}, {"turns", ThinksWithJson(options_)}}, options_.sandbox));
  });
  s.Get("/api/auth", [this](const httplib::Request& req, httplib::Response& res) {
    if (!RequireOwner(req, res)) return;
    ReplyJson(res, 200, json{{"owner", true}});
  });
  s.Get("/api/workflows", [this](const httplib::Request& req, httplib::Response& res) {
    if (!AllowRead(req, res)) return;
    WorkflowListQuery query;
    std::string error;
    if (!ParseWorkflowListQuery(req.params, &query, &error)) return ReplyError(res, 400, error);
    std::unique_ptr<FixedClockEnv> clock;
    if (!RequestClock(req, res, &clock)) return;
    Result<json> list = WorkflowListAnswer(reads_, clock ? *clock : *env_, options_.workspace, query);
    if (!list.ok()) return ReplyStatus(res, list.status());
    ReplyJson(res, 200, *list);
  });
}

void App::InstallReads(HttpServer& s) {
  // The owner's consistent copy of the database, for the tab's Inspect.
  s.Get(kWorkflow + "/snapshot", [this](const httplib::Request& req, httplib::Response& res) {
    auto oc = RequireOwner(req, res) ? Open(req.matches[1], res) : nullptr;
    if (oc) ReplySnapshot(options_.workspace, req.matches[1], *oc->ctx.db, res);
  });
  for (const RestRoute& r : RestRoutes()) {
    if (r.verb != "GET") continue;
    s.Get(r.Pattern(), [this, &r](const httplib::Request& req, httplib::Response& res) {
      json args;
      std::string error;
      if (!RouteQueryArgs(r, req, &args, &error)) return ReplyError(res, 400, error);
      Read(req, res, r.method.c_str(), args);
    });
  }
}

void App::InstallWrites(HttpServer& s) {
  // Owner writes: the token, then one core method with the body as its
  // arguments (and the id from the URL).
  for (const RestRoute& r : RestRoutes()) {
    if (r.verb == "GET") continue;
    auto handler = [this, &r](const httplib::Request& req, httplib::Response& res) {
      // An ask waits for its turn's answer (up to its wait_seconds).
      if (r.turn == "ask") return AskRoute(req, res);
      if (!r.turn.empty()) return SubmitTurn(req, res, r.turn);
      if (!RequireOwner(req, res)) return;
      json body;
      if (!ParseJsonObjectBody(req, res, &body)) return;
      if (r.has_id()) {
        // The owner answers as the owner: a session can never ride along.
        body.erase("session");
        body["id"] = IdArg(req.matches[2]);
      }
      if (r.method == "decision.answer") return AnswerAndApply(req, res, body);
      CallMethod(req, res, r.method, body);
    };
    if (r.verb == "PUT") s.Put(r.Pattern(), handler); else s.Post(r.Pattern(), handler);
  }
  s.Post(kWorkflow + "/call/([^/]+)", [this](const httplib::Request& req, httplib::Response& res) { GenericCall(req, res); });
  s.Post(kWorkflow + "/pre-run", [this](const httplib::Request& req, httplib::Response& res) {
    if (!RequireOwner(req, res)) return;
    json body;
    if (!ParseJsonObjectBody(req, res, &body)) return;
    Result<PreRunRequest> pre = PreRunRequestFromJson(req.matches[1], body);
    if (!pre.ok()) return ReplyStatus(res, pre.status());
    Result<json> out = PreRun(*env_, options_, *turns_, *pre);
    if (!out.ok()) return ReplyStatus(res, out.status());
    ReplyJson(res, 200, *out);
  });
}

void App::InstallAgent(HttpServer& s) {
  s.Post(R"(/s/([^/]+)/tools/custom/([^/]+))",
         [this](const httplib::Request& req, httplib::Response& res) { ToolRoute(req, res); });
  // Slack's Events API: signed by Slack, not by the owner (slack_service.h).
  s.Post("/slack/events", [this](const httplib::Request& req, httplib::Response& res) { slack_->HandleEvents(req, res); });
  s.Post("/mcp", [this](const httplib::Request& req, httplib::Response& res) {
    HandleMcp([this](const std::string& t) { return FindSession(t); }, options_, req, res);
  });
  s.Get("/mcp", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Allow", "POST");
    ReplyError(res, 405, "/mcp takes POST (JSON-RPC 2.0); this server opens no SSE stream");
  });
}

void App::InstallFallbacks(HttpServer& s) {
  s.Get("/api/.*", [](const httplib::Request& req, httplib::Response& res) {
    ReplyError(res, 404, "no such API route: " + req.path);
  });
  s.Get(".*", [this](const httplib::Request& req, httplib::Response& res) { Static(req, res); });

  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string reason;
    switch (res.status) {
      case 413: reason = "request body is larger than the server accepts"; break;
      case 404: reason = "no such route: " + req.method + " " + req.path; break;
      case 400: reason = "bad request"; break;
      default: reason = "HTTP " + std::to_string(res.status);
    }
    ReplyError(res, res.status, reason);
  });
  s.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("{} {}: {}", req.method, req.path, what);
    ReplyError(res, 500, "internal error: " + what);
  });
}

void App::Install(HttpServer& s) {
  InstallService(s);
  InstallReads(s);
  InstallWrites(s);
  InstallAgent(s);
  InstallFallbacks(s);
}

}  // namespace

namespace {

// Runs the server until SIGTERM or SIGINT (blocked in every thread by the
// caller; this thread waits for them) and then stops the tick and the turns.
bool RunUntilSignalled(HttpServer& server, Scheduler& scheduler, TurnManager& turns, const sigset_t& stop_signals) {
  std::atomic<bool> done{false};
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (done) return;
    spdlog::info("signal {}: finishing in-flight requests and turns, then exiting", sig);
    // httplib's stop() does nothing until listen has begun: a signal that
    // arrives at start-up waits for it rather than being lost.
    while (!server.is_running() && !done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    server.stop();
  });
  bool ok = server.Run();
  // listen_after_bind returns once stop() was called and in-flight requests
  // are answered (the worker pool is joined).
  scheduler.Stop();
  turns.Shutdown();
  done = true;
  if (signal_thread.joinable()) {
    pthread_kill(signal_thread.native_handle(), SIGTERM);
    signal_thread.join();
  }
  return ok;
}

}  // namespace

int Serve(const ServeOptions& in) {
  ServeOptions options = in;
  // Block the stop signals in every thread; one thread waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  KeepFreedMemory();
  ServerEnv env(options.now_file);
  std::vector<std::string> names;
  std::optional<OwnerTokenSetup> owner;
  if (!CheckWorkspace(env, options, &names, &owner)) return 2;

  HttpServer server(LimitsFrom(options));
  // Counted from here on; every route below timed (observability.h).
  std::unique_ptr<Observability> observe = Observability::Create(&env, options, server);
  if (!observe) return 2;
  OutboxDeliverer deliverer(&env, options);
  TurnManager turns(&env, options);
  turns.SetDeliverer(&deliverer);
  server.set_read_timeout(10);
  server.set_write_timeout(10);
  Scheduler scheduler(&env, options, &turns, &deliverer);
  SlackService slack(&env, options, &turns);
  OwnerTokenCheck owner_check(options.workspace);
  App app(&env, options, &owner_check, &turns, &scheduler, &slack);
  app.Install(server);

  std::string bind_error;
  int port = server.Bind(options.host, options.port, &bind_error);
  if (port < 0) {
    std::cerr << "pulse: cannot listen on " << options.host << ":" << options.port << ": " << bind_error << std::endl;
    return 2;
  }
  // Host, Origin, UTF-8 and body framing are checked before routing.
  RequestPolicy policy{AllowedHosts(options.host, options.allowed_hosts), port, options.max_body};
  server.set_pre_routing_handler([policy](const httplib::Request& req, httplib::Response& res) {
    return AdmitRequest(policy, req, res) ? httplib::Server::HandlerResponse::Unhandled
                                          : httplib::Server::HandlerResponse::Handled;
  });
  std::string host_for_url = options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host;
  std::string base_url = "http://" + host_for_url + ":" + std::to_string(port) + "/";
  turns.SetBaseUrl(base_url);
  // Set before anything is served: requests and turns read it.
  std::unique_ptr<BuilderChannel> builder = MakeBuilderChannel(options, &env, base_url, nullptr);
  SetBuilderChannel(builder.get());
  // A step's ask_pulse tool call waits on the same turn threads as POST /ask.
  const AskPulseWaiter ask_waiter = [&turns](ApiContext& ctx, const AskCall& call) {
    return AskAndWait(turns, ctx, call, false);
  };
  SetAskPulseWaiter(&ask_waiter);
  // Turns an earlier server left running: recorded on each workflow's first open (first_open.h).
  FirstOpen first_open([&turns](OpenCtx& oc) { turns.RecoverInterrupted(oc); });
  if (options.etcd.empty()) SetFirstOpen(&first_open);
  // pulse_mode -> after_run before anything is served or ticked (workflow.json only).
  std::vector<std::string> migrated = MigrateAfterRunAtStart(env, options.workspace, names);
  Announce(options, base_url, names.size(), *owner);
  for (const std::string& line : migrated) spdlog::info("{}", line);
  // Shown; the server itself needs only the hash from here on.
  std::fill(owner->token.begin(), owner->token.end(), '\0');
  owner->token.clear();
  SandboxProbeAndLog(options.sandbox);

  deliverer.Start();
  slack.Start();
  observe->Start(app.reads());
  if (options.tick) scheduler.Start();
  bool ok = RunUntilSignalled(server, scheduler, turns, stop_signals);
  observe->Stop();
  slack.Stop();
  deliverer.Stop();
  SetBuilderChannel(nullptr);
  SetAskPulseWaiter(nullptr);
  SetFirstOpen(nullptr);
  spdlog::info("stopped");
  return ok ? 0 : 1;
}

}  // namespace pulse::serve
