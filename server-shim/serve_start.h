// What `pulse serve` does as it starts: the workspace checked, the
// connection limits from its options, and the first lines it prints.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/base/env.h"

#include "server-shim/http/http_server.h"
#include "server-shim/http/owner_token.h"
#include "server-shim/serve.h"

namespace pulse::serve {

// What must hold before anything listens: the workspace exists, its
// workflows can be listed (into *names), the owner token is there (made
// when missing). False, with the one-line reason on stderr, otherwise.
bool CheckWorkspace(Env& env, const ServeOptions& options, std::vector<std::string>* names,
                    std::optional<OwnerTokenSetup>* owner);
ConnectionLimits LimitsFrom(const ServeOptions& o);
void Announce(const ServeOptions& options, const std::string& base_url, size_t workflows, const OwnerTokenSetup& owner);

}  // namespace pulse::serve
