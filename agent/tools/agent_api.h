// The server's API table: the core's methods (core/api/api.h) plus the
// agent machinery's — the outbox, Pulse's own tools and the turn rules —
// which only the native program links. The command line, the HTTP routes
// and MCP call through this table; the WASM module has the core's alone.
#pragma once

#include "core/api/api.h"
#include "core/base/env.h"
#include "core/store/workspace.h"

namespace pulse {

const ApiRegistry& ServerApi();

// A context over an opened workflow that reaches the server's table.
// REQUIRES: `w` and `env` outlive the context.
ApiContext ServerContext(WorkflowHandle& handle);
// The same over an OpenedWorkflow a caller keeps itself (the tests' fixtures).
ApiContext ServerContext(const OpenedWorkflow& w, Env& env);

}  // namespace pulse
