#include "server-shim/serve_start.h"

#include <spdlog/spdlog.h>

#include <iostream>

#include "core/store/workspace.h"

namespace pulse::serve {

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
  // Before the owner line, which scripts and tests wait for.
  std::cout << "pulse: metrics " << base_url << "metrics (Prometheus"
            << (options.metrics_public ? "" : ", loopback clients only") << ")"
            << (options.otlp_endpoint.empty() ? "" : "; traces to " + options.otlp_endpoint + "/v1/traces (OTLP)")
            << std::endl;
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
  // A preset program that is not installed: said once here; its turns fail
  // with the same line and the server goes on.
  LogProgramPresets(options);
}

bool CheckWorkspace(Env& env, const ServeOptions& options, std::vector<std::string>* names,
                    std::optional<OwnerTokenSetup>* owner) {
  if (!env.IsDirectory(options.workspace)) {
    std::cerr << "pulse: " << options.workspace << ": workspace directory does not exist" << std::endl;
    return false;
  }
  Result<std::vector<std::string>> listed = ListWorkflows(env, options.workspace);
  if (!listed.ok()) {
    std::cerr << "pulse: " << listed.status().message() << std::endl;
    return false;
  }
  *names = std::move(listed).value();
  Result<OwnerTokenSetup> token = EnsureOwnerToken(options.workspace);
  if (!token.ok()) {
    std::cerr << "pulse: " << token.status().message() << std::endl;
    return false;
  }
  owner->emplace(std::move(token).value());
  return true;
}

}  // namespace pulse::serve
