#include "analyzer/json_limits.h"

#include "analyzer/error.h"

namespace kc {

nlohmann::json parse_json_limited(const std::string& text, const std::string& what) {
  // Only brackets outside strings nest; the scan tracks strings and escapes and nothing else,
  // so a malformed document still gets its precise message from the parser below.
  size_t depth = 0, string_start = 0, line = 1;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
        check(i - string_start <= kMaxJsonStringLength, what + ": a string at line " + std::to_string(line) +
                                                            " is longer than the limit of " +
                                                            std::to_string(kMaxJsonStringLength >> 20) + " MiB");
      }
      continue;
    }
    if (c == '\n') ++line;
    if (c == '"') {
      in_string = true;
      string_start = i + 1;
    } else if (c == '[' || c == '{') {
      check(++depth <= kMaxJsonDepth,
            what + ": nested deeper than " + std::to_string(kMaxJsonDepth) + " levels at line " + std::to_string(line));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  check(!in_string || text.size() - string_start <= kMaxJsonStringLength,
        what + ": a string is longer than the limit of " + std::to_string(kMaxJsonStringLength >> 20) + " MiB");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, ...": the tag means nothing
    // to the user.
    std::string msg = e.what();
    if (msg.rfind("[json.exception.", 0) == 0 && msg.find("] ") != std::string::npos)
      msg = msg.substr(msg.find("] ") + 2);
    throw Error(what + " is not valid JSON: " + msg);
  }
}

}  // namespace kc
