// The text form of the goal check's context facts (`pulse facts`, and under
// `pulse check`).
#pragma once

#include <nlohmann/json.hpp>

namespace pulse::cli {

void PrintFacts(const nlohmann::json& facts);

}  // namespace pulse::cli
