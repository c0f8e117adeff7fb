// `pulse serve`: the scheduler tick, background turns, the HTTP API, the
// guarded tool route and MCP (serve.h). Flags only; the server is Serve().
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "server-shim/cli/cli.h"
#include "core/store/db.h"
#include "server-shim/cluster/etcd_client.h"
#include "server-shim/observe/otlp_exporter.h"
#include "server-shim/serve.h"

namespace pulse::cli {
namespace {

// <dir of this executable>/<rel>, when it exists.
std::string NextToExecutable(const std::string& rel) {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  std::string dir = buf;
  dir = dir.substr(0, dir.rfind('/'));
  std::string candidate = dir + "/" + rel;
  char real[PATH_MAX];
  if (!::realpath(candidate.c_str(), real)) return "";
  return real;
}

std::string g_etcd_auth_file;

// With --etcd: the user and password (the file or the environment) next
// to the TLS files, and the URL checked with them.
Status ReadEtcdAuth(serve::ServeOptions* o) {
  if (o->etcd.empty()) return Status::OK();
  PULSE_ASSIGN_OR_RETURN(serve::EtcdAuth auth, serve::EtcdAuth::Read(g_etcd_auth_file));
  auth.ca_file = o->etcd_auth.ca_file;
  auth.cert_file = o->etcd_auth.cert_file;
  auth.key_file = o->etcd_auth.key_file;
  o->etcd_auth = auth;
  return serve::EtcdClient::ForUrl(o->etcd, o->etcd_auth).status();
}

// Several servers on one workspace: the claims in etcd (claims.h).
void AddEtcdOptions(CLI::App* sub, serve::ServeOptions& opt) {
  sub->add_option("--etcd", opt.etcd,
                  "etcd's client URL (http://HOST:PORT, or https:// for TLS): tick only the workflows this instance "
                  "claims there, so several servers can share one workspace; default: this server ticks every workflow");
  sub->add_option("--etcd-auth-file", g_etcd_auth_file,
                  "a file holding one line \"user:password\" for etcd's auth (else PULSE_ETCD_USER and "
                  "PULSE_ETCD_PASSWORD from the environment; never on the command line)");
  sub->add_option("--etcd-ca", opt.etcd_auth.ca_file, "PEM file of the CA that signed etcd's certificate (https://)");
  sub->add_option("--etcd-cert", opt.etcd_auth.cert_file, "PEM client certificate for etcd (https://, with --etcd-key)");
  sub->add_option("--etcd-key", opt.etcd_auth.key_file, "PEM key of --etcd-cert");
  sub->add_option("--etcd-ttl", opt.etcd_ttl,
                  "seconds of this instance's etcd lease: how soon its workflows move when it dies (default 10)")
      ->check(CLI::Range(2, 3600));
  sub->add_option("--etcd-prefix", opt.etcd_prefix, "etcd key prefix (default /pulse/<workspace id>/)");
  sub->add_option("--instance", opt.instance, "this instance's name in etcd and in tick rows (default HOST-PID)");
}

// The tick's and the turns' bounds.
void AddTickOptions(CLI::App* sub, serve::ServeOptions& opt) {
  sub->add_option("--max-turns", opt.max_turns, "background turns running at once (default 2)")->check(CLI::Range(1, 64));
  sub->add_option("--max-checks", opt.max_checks, "goal checks running at once (default 2)")->check(CLI::Range(1, 64));
  sub->add_option("--tick-threads", opt.tick_threads,
                  "workflows a tick pass visits at once, each on its own thread below the HTTP side (default 2)")
      ->check(CLI::Range(1, 16));
  sub->add_option("--import-batch", opt.import_batch, "new schedule-runs.json runs a tick visit imports (default 250)")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--import-seconds", opt.import_seconds, "a tick pass imports runs this long (default 40% of the tick)")
      ->check(FiniteRange(0.0, 86400.0));
}

// GET /metrics and the OTLP export (docs/observability.md).
void AddObservabilityOptions(CLI::App* sub, serve::ServeOptions& opt, std::vector<std::string>& headers) {
  sub->add_flag("--metrics-public", opt.metrics_public,
                "GET /metrics answers clients outside loopback too (default: loopback only)");
  sub->add_option("--metrics-max-workflows", opt.metrics_max_workflows,
                  "per-workflow gauges for at most N workflows, in name order; the rest are counted in "
                  "pulse_metrics_workflows_omitted (default 2000)")
      ->check(CLI::Range(0, 1000000));
  sub->add_option("--metrics-max-age", opt.metrics_max_age,
                  "seconds a workflow's gauges may lag the clock while nothing they are computed from moved "
                  "(default 300)")
      ->check(FiniteRange(0.0, 86400.0));
  sub->add_option("--otlp-endpoint", opt.otlp_endpoint,
                  "an OpenTelemetry collector's OTLP/HTTP base URL: agent-log rows and guarded tool calls go to "
                  "URL/v1/traces as spans (JSON)");
  sub->add_option("--otlp-header", headers, "a header for the collector, NAME=VALUE; repeatable")->allow_extra_args(false);
  sub->add_option("--otlp-interval", opt.otlp_interval, "seconds between the exporter's looks for new spans (default 2)")
      ->check(FiniteRange(0.05, 3600.0));
}

// The HTTP side's bounds: bodies, threads, kept connections, who may connect.
void AddConnectionOptions(CLI::App* sub, serve::ServeOptions& opt) {
  sub->add_option("--max-body", opt.max_body, "largest request body in bytes (default 1 MiB; larger gets 413)")
      ->check(CLI::Range(1024, 1 << 30));
  sub->add_option("--threads", opt.threads, "HTTP worker threads (default 32)")->check(CLI::Range(1, 512));
  sub->add_option("--pool-size", opt.pool_size, "read connections kept open, all workflows together (default 64)")
      ->check(CLI::Range(1, 4096));
  sub->add_option("--pool-idle-seconds", opt.pool_idle_seconds,
                  "seconds a kept read connection may stay unused before it is closed (default 30)")
      ->check(FiniteRange(0.1, 86400.0));
  sub->add_option("--shutdown-grace", opt.shutdown_grace,
                  "seconds a running runner gets after SIGTERM before it is killed (default 5)")
      ->check(FiniteRange(0.0, 3600.0));
  sub->add_option("--allowed-host", opt.allowed_hosts,
                  "a host name (Host header) the server answers to besides 127.0.0.1, localhost and [::1]; "
                  "repeatable. Other names get 421, so a web page on a name that resolves here cannot read the API")
      ->allow_extra_args(false);
  sub->add_option("--max-connections", opt.max_connections, "connections open at once, all clients (default 2048)")
      ->check(CLI::Range(16, 1 << 20));
  sub->add_option("--max-connections-per-client", opt.max_connections_per_client,
                  "connections open at once from one address (default 512; more get 503)")
      ->check(CLI::Range(1, 1 << 20));
  sub->add_option("--header-timeout", opt.header_timeout,
                  "seconds a client has to send a request header in full (default 10; then 408)")
      ->check(FiniteRange(0.5, 3600.0));
}

// --otlp-header and --otlp-endpoint checked before anything is served.
Status ReadOtlpFlags(const std::vector<std::string>& headers, serve::ServeOptions* o) {
  PULSE_ASSIGN_OR_RETURN(o->otlp_headers, serve::ParseOtlpHeaders(headers));
  if (o->otlp_endpoint.empty()) return Status::OK();
  return serve::ParseOtlpTarget(o->otlp_endpoint, o->otlp_headers).status();
}

void Setup(CLI::App& app, State& state) {
  static serve::ServeOptions opt;
  static std::vector<std::string> otlp_headers;
  CLI::App* sub = app.add_subcommand("serve", "the server: scheduler tick, background turns, HTTP API, Pulse tab, MCP");
  sub->add_option("--workspace", opt.workspace, "the workspace directory (holds Workflow/)")->required();
  sub->add_option("--host", opt.host, "address to listen on (default 127.0.0.1: loopback only)");
  sub->add_option("--port", opt.port, "port (0: any free port; the first stdout line names it)")->check(CLI::Range(0, 65535));
  sub->add_option("--tick-seconds", opt.tick_seconds, "scheduler tick interval in seconds (default 60)")
      ->check(FiniteRange(0.05, 86400.0));
  sub->add_flag("!--no-tick", opt.tick, "serve only: no scheduler tick");
  sub->add_option("--runner", opt.runner,
                  "claude or codex (the real program, Pulse's MCP its only tools; docs/models.md), or an external "
                  "runner command (sh -c; turn JSON on stdin, MCP_API_URL/MCP_API_TOKEN in its environment); "
                  "default: the built-in rules runner");
  AddModelOptions(sub, opt.model);
  sub->add_option("--platform", opt.platform,
                  "command that carries out platform tool calls the autonomy guard allows (sh -c; the call as JSON on "
                  "stdin, its answer on stdout; exit 0 = done); default: such calls are answered carry_out_on_platform");
  sub->add_option("--builder", opt.builder,
                  "claude, codex, or a command that runs a turn in a Builder chat for ask_builder and apply messages "
                  "(sh -c, in the runner "
                  "sandbox; the request as JSON on stdin, MCP_API_URL/MCP_API_TOKEN of a guarded builder_question or "
                  "builder_fix session, the reply on stdout); default: questions get no_builder_chat, fixes become "
                  "decisions, apply messages wait in the outbox");
  sub->add_option("--platform-timeout", opt.platform_timeout, "seconds before a platform call is killed (default 120)")
      ->check(FiniteRange(1.0, 3600.0));
  sub->add_option("--runner-timeout", opt.runner_timeout, "seconds before a runner is killed (default 600)")
      ->check(FiniteRange(0.1, 86400.0));
  sub->add_option("--review-timeout", opt.review_timeout,
                  "seconds before a Workflow Review's runner is killed; the run then goes (default 300)")
      ->check(FiniteRange(0.1, 86400.0));
  sub->add_option("--review-wait", opt.review_wait,
                  "seconds a scheduled run's pre-run waits for the review (default 330)")
      ->check(FiniteRange(0.0, 86400.0));
  sub->add_option("--now-file", opt.now_file,
                  "read the current time (RFC 3339) from this file on every use; the clock when it is missing");
  sub->add_option("--web-root", opt.web_root, "the Pulse tab's files (default: web/ of this build's source tree)");
  sub->add_option("--wasm-root", opt.wasm_root, "the WASM module's files, served at /wasm/ (default: build/wasm)");
  AddTickOptions(sub, opt);
  AddConnectionOptions(sub, opt);
  AddSandboxOptions(sub, opt.sandbox);
  AddEtcdOptions(sub, opt);
  AddObservabilityOptions(sub, opt, otlp_headers);
  sub->callback([&state] {
    serve::ServeOptions o = opt;
    if (Status flags = CheckTurnFlags(o.model, o.runner); !flags.ok()) {
      state.exit_code = Fail(flags);
      return;
    }
    if (Status s = serve::CheckSandboxOptions(o.sandbox); !s.ok()) {
      state.exit_code = Fail(s);
      return;
    }
    if (Status otlp = ReadOtlpFlags(otlp_headers, &o); !otlp.ok()) {
      state.exit_code = Fail(otlp);
      return;
    }
    // A URL that cannot be etcd's, or credentials that cannot be read, are
    // bad usage, before anything is served.
    if (Status etcd = ReadEtcdAuth(&o); !etcd.ok()) {
      state.exit_code = Fail(etcd);
      return;
    }
    char real[PATH_MAX];
    if (::realpath(o.workspace.c_str(), real)) o.workspace = real;
    if (o.web_root.empty()) o.web_root = NextToExecutable("../../web");
    if (o.wasm_root.empty()) o.wasm_root = NextToExecutable("../wasm");
    // A full disk: one line per workflow database when it fills, one when
    // it takes writes again (core/store/db.h), not one per refused write.
    ReportDiskFullOnce(true);
    state.exit_code = serve::Serve(o);
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("serve", Setup);
}  // namespace pulse::cli
