// JSON parsing with explicit limits, for every JSON file kernelcount reads (a .pt2's
// models/model.json, a --baseline report): nesting and string sizes are checked by one
// linear byte scan before nlohmann::json builds anything, so that no input can exhaust the
// stack (recursion over the document is bounded by the depth) or memory through one string.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "analyzer/error.h"

namespace kc {

constexpr size_t kMaxJsonDepth = 64;                // torch.export writes depth 10
constexpr size_t kMaxJsonStringLength = 16u << 20;  // one string, e.g. a node's stack_trace
constexpr size_t kMaxModelJsonBytes = 256u << 20;   // a .pt2's models/model.json
constexpr size_t kMaxReportJsonBytes = 256u << 20;  // a --baseline JSON report

// What check_json_limits counts on its way, for a parser to size its storage once.
struct JsonTextStats {
  size_t max_values = 0;    // at least the number of values, if the text is valid JSON
  size_t string_bytes = 0;  // at least the decoded bytes of all strings, keys included
};
// Throws Error "<what>: ..." when `text` nests deeper or holds a longer string than the limits
// above; one linear scan that builds nothing. Does not check that it is valid JSON.
JsonTextStats check_json_limits(std::string_view text, const std::string& what);
// The Error for a parse failure of nlohmann::json: "<what> is not valid JSON: <where and why>".
Error json_parse_error(const nlohmann::json::exception& e, const std::string& what);
// Parses `text`; throws Error "<what>: ..." when it is over a limit above or not valid JSON.
// Does not check the size (callers check it before reading the file).
nlohmann::json parse_json_limited(const std::string& text, const std::string& what);

}  // namespace kc
