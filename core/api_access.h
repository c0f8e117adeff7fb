// Which API calls only read. The server opens reads to anyone on loopback and
// requires the owner token for everything else, including the generic method
// route (POST /api/workflows/<wf>/call/<method>) the Pulse tab uses; the list
// lives here, beside the API, so a new method is a write until it is named.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace pulse {

// True when `method` with `args` changes nothing in the workflow's database
// or files (goal.check only without "record").
bool IsReadOnlyCall(std::string_view method, const nlohmann::json& args);

// Methods the generic route never offers, whoever asks: they belong to the
// server's own machinery (turn bookkeeping, session tokens, the tool route).
bool IsServerOnlyMethod(std::string_view method);

}  // namespace pulse
