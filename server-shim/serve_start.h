// What `pulse serve` does as it starts: the connection limits from its
// options, and the first lines it prints.
#pragma once

#include <string>

#include "server-shim/http/http_server.h"
#include "server-shim/http/owner_token.h"
#include "server-shim/serve.h"

namespace pulse::serve {

ConnectionLimits LimitsFrom(const ServeOptions& o);
void Announce(const ServeOptions& options, const std::string& base_url, size_t workflows, const OwnerTokenSetup& owner);

}  // namespace pulse::serve
