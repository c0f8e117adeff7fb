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
#include <cstdio>
#include <iostream>

#include "core/api_access.h"
#include "core/autonomy.h"
#include "core/time_util.h"
#include "core/pulse_tools.h"
#include "server-shim/http_server.h"
#include "server-shim/http_util.h"
#include "server-shim/mcp.h"
#include "server-shim/owner_token.h"
#include "server-shim/sandbox.h"
#include "server-shim/serve.h"
#include "server-shim/server_env.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

// Served at / only when the Pulse tab's files (web/index.html) are not found:
// the workflows' goal status straight from the API, so the server is never a
// blank page.
const char* kFallbackPage = R"HTML(<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Pulse</title>
<style>body{font:15px system-ui,sans-serif;margin:2em;max-width:60em}li{margin:.3em 0}.s{font-weight:600}</style>
<h1>Pulse</h1>
<p>The Pulse tab's files (<code>web/</code>) are not found next to this server (see <code>--web-root</code>);
this page shows the goal status from the JSON API (<a href="/api/workflows">/api/workflows</a>).</p>
<div id="w">Loading…</div>
<script type="module">
const esc = (t) => String(t).replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' }[c]));
const r = await fetch('/api/workflows');
const { workflows } = await r.json();
document.getElementById('w').innerHTML = workflows.map((w) => `<h2>${esc(w.name)}:
  <span class="s">${esc((w.status || w.error || '').replace('_', ' '))}</span></h2>
  <ul>${((w.goal_status && w.goal_status.alarms) || []).map((a) => `<li>${esc(a.message)}</li>`).join('')}</ul>`).join('');
</script>
</html>
)HTML";

class App {
 public:
  App(Env* env, const ServeOptions& options, OwnerTokenCheck* owner, TurnManager* turns, Scheduler* scheduler)
      : env_(env), options_(options), owner_(owner), turns_(turns), scheduler_(scheduler) {}

  void Install(HttpServer& s);

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
      if (oc.status().code() == Code::kNotFound) {
        ReplyError(res, 404, "workflow \"" + workflow + "\" does not exist in this workspace");
      } else {
        ReplyStatus(res, oc.status());
      }
      return nullptr;
    }
    return std::move(oc).value();
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

  // GET handler calling one API method with `args`.
  void Read(const httplib::Request& req, httplib::Response& res, const char* method, const json& args) {
    if (!AllowRead(req, res)) return;
    std::unique_ptr<FixedClockEnv> clock;
    if (!RequestClock(req, res, &clock)) return;
    auto oc = Open(req.matches[1], res, clock.get());
    if (!oc) return;
    Result<json> out = CallApi(oc->ctx, method, args);
    if (!out.ok()) return ReplyStatus(res, out.status());
    ReplyJson(res, 200, *out);
  }

  // The workflow whose database knows `token`; with `session_id` (the tool
  // route's URL) only workflows that id can belong to are asked.
  Result<SessionRef> FindSession(const std::string& token, const std::string& session_id = "");
  void GenericCall(const httplib::Request& req, httplib::Response& res);
  void ToolRoute(const httplib::Request& req, httplib::Response& res);
  void Static(const httplib::Request& req, httplib::Response& res);
  void SubmitTurn(const httplib::Request& req, httplib::Response& res, const std::string& kind);

  Env* env_;
  const ServeOptions& options_;
  OwnerTokenCheck* owner_;
  TurnManager* turns_;
  Scheduler* scheduler_;
  std::mutex cache_mu_;
  std::map<std::string, std::string> token_workflow_;  // session token -> workflow
};

json QueryArgs(const httplib::Request& req, std::initializer_list<std::pair<const char*, const char*>> map) {
  json args = json::object();
  for (auto& [param, key] : map) {
    if (req.has_param(param)) {
      std::string v = req.get_param_value(param);
      if (!v.empty()) args[key] = v;
    }
  }
  return args;
}

// Decision ids are integers in the URL; other ids stay strings.
json IdArg(const std::string& s) {
  if (!s.empty() && s.size() < 18 && s.find_first_not_of("0123456789") == std::string::npos) return std::stoll(s);
  return s;
}

Result<SessionRef> App::FindSession(const std::string& token, const std::string& session_id) {
  if (token.empty()) return Status::NotFound("no session token");
  std::string cached;
  {
    std::lock_guard<std::mutex> l(cache_mu_);
    auto it = token_workflow_.find(token);
    if (it != token_workflow_.end()) cached = it->second;
  }
  std::vector<std::string> candidates;
  if (!cached.empty()) {
    candidates.push_back(cached);
  } else {
    PULSE_ASSIGN_OR_RETURN(std::vector<std::string> all, ListWorkflows(*env_, options_.workspace));
    for (const std::string& wf : all) {
      if (session_id.empty() || SessionBelongsToWorkflow(session_id, wf)) candidates.push_back(wf);
    }
  }
  for (const std::string& wf : candidates) {
    Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(*env_, options_.workspace, wf);
    if (!oc.ok()) continue;
    Result<json> r = CallApi((*oc)->ctx, "session.resolve", json{{"token", token}});
    if (!r.ok()) continue;
    SessionRef ref;
    ref.workflow = wf;
    ref.session = JStr(*r, "session");
    ref.turn = JStr(*r, "turn");
    ref.open = JBool(*r, "open", false);
    std::lock_guard<std::mutex> l(cache_mu_);
    token_workflow_[token] = wf;
    return ref;
  }
  return Status::NotFound("unknown session token");
}

void App::ToolRoute(const httplib::Request& req, httplib::Response& res) {
  std::string url_session = req.matches[1];
  std::string tool = req.matches[2];
  std::string token = BearerToken(req);
  if (token.empty()) return ReplyError(res, 401, "session token required: send Authorization: Bearer <session token>");
  Result<SessionRef> ref = FindSession(token, url_session);
  // The session comes from the URL and its token together; a token for
  // another session is as good as none.
  if (!ref.ok() || ref->session != url_session) return ReplyError(res, 401, "wrong session token for session " + url_session);
  json args;
  if (!ParseJsonObjectBody(req, res, &args)) return;
  Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(*env_, options_.workspace, ref->workflow);
  if (!oc.ok()) return ReplyStatus(res, oc.status());
  Result<json> out = CallApi((*oc)->ctx, "pulse.tool_call",
                             json{{"token", token}, {"session", url_session}, {"tool", tool}, {"arguments", args}});
  if (!out.ok()) return ReplyStatus(res, out.status());
  if (JBool(*out, "refused", false)) {
    spdlog::info("tool route: {} refused in session {}: {}", tool, url_session, JStr(*out, "reason"));
    return ReplyJson(res, 403, *out);
  }
  ReplyJson(res, 200, *out);
}

// POST /api/workflows/<wf>/call/<method>: any core method by name, the
// Pulse tab's one route for what has no dedicated one. Reads are open like
// every read; everything else needs the owner token and never carries a
// session (the owner acts as the owner). The server's own machinery
// (sessions, turns, the tool route) is not offered.
void App::GenericCall(const httplib::Request& req, httplib::Response& res) {
  std::string method = req.matches[2];
  if (IsServerOnlyMethod(method)) return ReplyError(res, 403, "method " + method + " is not offered over HTTP");
  if (!Api().Find(method)) return ReplyError(res, 404, "unknown method \"" + method + "\"");
  json args;
  if (!ParseJsonObjectBody(req, res, &args)) return;
  bool read_only = IsReadOnlyCall(method, args);
  if (read_only) {
    if (!AllowRead(req, res)) return;
  } else {
    if (!RequireOwner(req, res)) return;
    args.erase("session");
  }
  std::unique_ptr<FixedClockEnv> clock;
  if (!RequestClock(req, res, &clock)) return;
  auto oc = Open(req.matches[1], res, clock.get());
  if (!oc) return;
  Result<json> out = CallApi(oc->ctx, method, args);
  if (!out.ok()) return ReplyStatus(res, out.status());
  ReplyJson(res, 200, json{{"result", *out}});
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
    t.input = {{"message", body["text"]}};
  }
  Result<TurnTicket> ticket = turns_->Submit(t);
  if (!ticket.ok()) {
    int status = ticket.status().code() == Code::kBusy ? 429 : HttpStatusFor(ticket.status());
    return ReplyError(res, status, ticket.status().message());
  }
  ReplyJson(res, 202, json{{"turn", {{"kind", ticket->kind}, {"session", ticket->session}, {"agent", ticket->agent},
                                     {"pulse_run_id", ticket->pulse_run_id}, {"started_at", ticket->started_at}}}});
}

void App::Static(const httplib::Request& req, httplib::Response& res) {
  std::string path = req.path;
  std::string root = options_.web_root;
  std::string rel;
  if (path.rfind("/wasm/", 0) == 0) {
    // The module's build directory also holds CMakeCache.txt, build.ninja,
    // compile_commands.json (paths, flags): only what the tab loads is served.
    // Keep in step with PULSE_WASM_JS in wasm/CMakeLists.txt.
    static const std::set<std::string> kWasmFiles = {
        "pulse.mjs",           "pulse.wasm",          "sqljs-api.mjs",    "sqljs-statement.mjs", "sqljs-functions.mjs",
        "sqljs-worker.mjs",    "opfs-pool.mjs",       "result-codes.mjs", "sqlite-header.mjs"};
    root = options_.wasm_root;
    rel = path.substr(6);
    if (!kWasmFiles.count(rel)) return ReplyError(res, 404, "not found: " + path);
  } else {
    rel = path.size() > 1 ? path.substr(1) : "";
  }
  if (rel.empty() || rel.back() == '/') rel += "index.html";
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

void App::Install(HttpServer& s) {
  s.Get("/api/health", [this, &s](const httplib::Request& req, httplib::Response& res) {
    Result<std::vector<std::string>> names = ListWorkflows(*env_, options_.workspace);
    ReplyJson(res, 200, json{{"ok", true}, {"version", PULSE_VERSION}, {"workflows", names.ok() ? names->size() : 0},
                             {"now", FormatTime(env_->NowSeconds())}, {"turns_active", turns_->Active()},
                             {"ticks", scheduler_->ticks()}, {"sandbox", SandboxDescription()},
                             {"connections", s.OpenConnections()}});
  });
  s.Get("/api/auth", [this](const httplib::Request& req, httplib::Response& res) {
    if (!RequireOwner(req, res)) return;
    ReplyJson(res, 200, json{{"owner", true}});
  });
  s.Get("/api/workflows", [this](const httplib::Request& req, httplib::Response& res) {
    if (!AllowRead(req, res)) return;
    Result<std::vector<std::string>> names = ListWorkflows(*env_, options_.workspace);
    if (!names.ok()) return ReplyStatus(res, names.status());
    json list = json::array();
    for (const std::string& wf : *names) {
      json item = {{"name", wf}};
      Result<std::unique_ptr<OpenCtx>> oc = OpenForCall(*env_, options_.workspace, wf);
      if (!oc.ok()) {
        item["error"] = oc.status().message();
      } else {
        item["has_goal"] = (*oc)->ctx.config.HasGoal();
        item["schedules_paused"] = (*oc)->ctx.config.AllSchedulesPaused();
        Result<json> check = CallApi((*oc)->ctx, "goal.check", json::object());
        if (check.ok()) {
          item["status"] = JStr(*check, "status");
          item["goal_status"] = *check;
        } else {
          item["error"] = check.status().message();
        }
      }
      list.push_back(item);
    }
    ReplyJson(res, 200, json{{"workflows", list}});
  });
  const std::string wf = R"(/api/workflows/([^/]+))";
  s.Get(wf, [this](const httplib::Request& req, httplib::Response& res) {
    Read(req, res, "pulse.config", json::object());
  });
  s.Get(wf + "/goal-status", [this](const httplib::Request& req, httplib::Response& res) {
    Read(req, res, "goal.check", json::object());
  });
  s.Get(wf + "/agent-log", [this](const httplib::Request& req, httplib::Response& res) {
    json args = QueryArgs(req, {{"session", "session"}, {"run_id", "pulse_run_id"}, {"status", "status"}, {"since", "since"}});
    if (req.has_param("stuck_after_minutes")) {
      try {
        args["stuck_after_minutes"] = std::stoi(req.get_param_value("stuck_after_minutes"));
      } catch (...) {
        return ReplyError(res, 400, "stuck_after_minutes: expected a whole number");
      }
    }
    if (req.has_param("include_running")) args["include_running"] = req.get_param_value("include_running") == "true";
    Read(req, res, "agent_log.show", args);
  });
  s.Get(wf + "/decisions", [this](const httplib::Request& req, httplib::Response& res) {
    Read(req, res, "decision.list", QueryArgs(req, {{"status", "status"}}));
  });
  s.Get(wf + "/readings", [this](const httplib::Request& req, httplib::Response& res) {
    Read(req, res, "goal.readings", json::object());
  });
  s.Get(wf + "/runs-by-route", [this](const httplib::Request& req, httplib::Response& res) {
    Read(req, res, "goal.runs_by_route", QueryArgs(req, {{"since", "since"}}));
  });
  s.Get(wf + "/memory", [this](const httplib::Request& req, httplib::Response& res) {
    Read(req, res, "memory.show", json::object());
  });
  s.Get(wf + "/outbox", [this](const httplib::Request& req, httplib::Response& res) {
    Read(req, res, "outbox.list", json::object());
  });
  s.Get(wf + "/autonomy", [this](const httplib::Request& req, httplib::Response& res) {
    Read(req, res, "autonomy.levels", json::object());
  });
  s.Get(wf + "/autonomy/decisions", [this](const httplib::Request& req, httplib::Response& res) {
    Read(req, res, "autonomy.decisions", QueryArgs(req, {{"session", "session"}}));
  });

  // Owner writes: the token, then one core method.
  auto write = [this](const char* method, std::function<Status(const httplib::Request&, json&)> shape) {
    return [this, method, shape](const httplib::Request& req, httplib::Response& res) {
      if (!RequireOwner(req, res)) return;
      json body;
      if (!ParseJsonObjectBody(req, res, &body)) return;
      std::unique_ptr<FixedClockEnv> clock;
      if (!RequestClock(req, res, &clock)) return;
      auto oc = Open(req.matches[1], res, clock.get());
      if (!oc) return;
      Status shaped = shape(req, body);
      if (!shaped.ok()) return ReplyStatus(res, shaped);
      Result<json> out = CallApi(oc->ctx, method, body);
      if (!out.ok()) return ReplyStatus(res, out.status());
      ReplyJson(res, 200, *out);
    };
  };
  auto with_id = [](const httplib::Request& req, json& body) {
    // The owner answers as the owner: a session can never ride along.
    body.erase("session");
    body["id"] = IdArg(req.matches[2]);
    return Status::OK();
  };
  s.Post(wf + "/decisions/([^/]+)/answer", write("decision.answer", with_id));
  s.Post(wf + "/decisions/([^/]+)/outcome", write("decision.outcome", with_id));
  s.Put(wf + "/memory", write("memory.save", [](const httplib::Request&, json&) { return Status::OK(); }));
  s.Post(wf + "/call/([^/]+)", [this](const httplib::Request& req, httplib::Response& res) { GenericCall(req, res); });
  s.Post(wf + "/messages", [this](const httplib::Request& req, httplib::Response& res) { SubmitTurn(req, res, "ask_pulse"); });
  s.Post(wf + "/goal-check", [this](const httplib::Request& req, httplib::Response& res) { SubmitTurn(req, res, "goal_check"); });

  s.Post(R"(/s/([^/]+)/tools/custom/([^/]+))",
         [this](const httplib::Request& req, httplib::Response& res) { ToolRoute(req, res); });
  s.Post("/mcp", [this](const httplib::Request& req, httplib::Response& res) {
    HandleMcp(*env_, options_, [this](const std::string& t) { return FindSession(t); }, req, res);
  });
  s.Get("/mcp", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Allow", "POST");
    ReplyError(res, 405, "/mcp takes POST (JSON-RPC 2.0); this server opens no SSE stream");
  });
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

}  // namespace

namespace {

// Idle and slow connections wait in the server's poller, not in a worker
// (http_server.h); the read and write timeouts bound one request being read
// or answered.
ConnectionLimits LimitsFrom(const ServeOptions& o) {
  ConnectionLimits l;
  l.max_body = o.max_body;
  l.threads = o.threads;
  l.max_connections = o.max_connections;
  l.max_per_client = o.max_connections_per_client;
  l.header_timeout = o.header_timeout;
  return l;
}

// The first stdout lines: the URL (tests and scripts wait for it), the
// workspace, and the owner token when it was just made (shown this once: the
// workspace keeps only its hash).
void Announce(const ServeOptions& options, const std::string& base_url, size_t workflows,
              const OwnerTokenSetup& owner) {
  std::cout << "pulse: serving " << base_url << std::endl;
  std::cout << "pulse: workspace " << options.workspace << " (" << workflows << " workflow"
            << (workflows == 1 ? "" : "s") << ")" << std::endl;
  if (owner.created) {
    // Shown this once: the workspace keeps only its hash. The fragment never
    // reaches a server or its logs; the tab keeps the token.
    std::cout << "pulse: open " << base_url << "#token=" << owner.token
              << " to act as the owner (new owner token, shown once)" << std::endl;
  } else {
    std::cout << "pulse: open " << base_url << " (owner token: the one shown when it was made; "
              << "`pulse token rotate --workspace " << options.workspace << "` makes a new one)" << std::endl;
  }
  if (options.host != "127.0.0.1" && options.host != "::1" && options.host != "localhost") {
    spdlog::warn("listening on {}: reads from other machines need the owner token; writes always do; "
                 "host names other than loopback need --allowed-host", options.host);
  }
  if (owner.migrated) {
    spdlog::info("owner token: the plaintext {} was replaced by its hash in {}; the token is unchanged",
                 LegacyOwnerTokenPath(options.workspace), OwnerTokenHashPath(options.workspace));
  }
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

  ServerEnv env(options.now_file);
  if (!env.IsDirectory(options.workspace)) {
    std::cerr << "pulse: " << options.workspace << ": workspace directory does not exist" << std::endl;
    return 2;
  }
  Result<std::vector<std::string>> names = ListWorkflows(env, options.workspace);
  if (!names.ok()) {
    std::cerr << "pulse: " << names.status().message() << std::endl;
    return 2;
  }
  Result<OwnerTokenSetup> owner = EnsureOwnerToken(options.workspace);
  if (!owner.ok()) {
    std::cerr << "pulse: " << owner.status().message() << std::endl;
    return 2;
  }

  TurnManager turns(&env, options);
  HttpServer server(LimitsFrom(options));
  server.set_read_timeout(10);
  server.set_write_timeout(10);
  Scheduler scheduler(&env, options, &turns);
  OwnerTokenCheck owner_check(options.workspace);
  App app(&env, options, &owner_check, &turns, &scheduler);
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
  Announce(options, base_url, names->size(), *owner);
  // Shown; the server itself needs only the hash from here on.
  std::fill(owner->token.begin(), owner->token.end(), '\0');
  owner->token.clear();
  SandboxProbeAndLog();
  for (const std::string& wf : *names) turns.RecoverInterrupted(wf);

  if (options.tick) scheduler.Start();

  std::atomic<bool> done{false};
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (done) return;
    spdlog::info("signal {}: finishing in-flight requests and turns, then exiting", sig);
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
  spdlog::info("stopped");
  return ok ? 0 : 1;
}

}  // namespace pulse::serve
