// JSON parsing with explicit limits, for every JSON file kernelcount reads (a .pt2's
// models/model.json, a --baseline report): nesting and string sizes are checked by one
// linear byte scan before nlohmann::json builds anything, so that no input can exhaust the
// stack (recursion over the document is bounded by the depth) or memory through one string.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace kc {

constexpr size_t kMaxJsonDepth = 64;                // torch.export writes depth 10
constexpr size_t kMaxJsonStringLength = 16u << 20;  // one string, e.g. a node's stack_trace
constexpr size_t kMaxModelJsonBytes = 256u << 20;   // a .pt2's models/model.json
constexpr size_t kMaxReportJsonBytes = 256u << 20;  // a --baseline JSON report

// Parses `text`; throws Error "<what>: ..." when it is over a limit above or not valid JSON.
// Does not check the size (callers check it before reading the file).
nlohmann::json parse_json_limited(const std::string& text, const std::string& what);

}  // namespace kc
