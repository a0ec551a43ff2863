#include "analyzer/json_limits.h"

#include <cstring>

#include "analyzer/error.h"

namespace kc {

JsonTextStats check_json_limits(std::string_view text, const std::string& what) {
  // Every value but the first of its container follows a comma; the first follows its opening
  // bracket, or is the document itself.
  JsonTextStats stats;
  stats.max_values = 1;
  // Only brackets outside strings nest; the scan tracks strings and escapes and nothing else,
  // so a malformed document still gets its precise message from the parser below.
  size_t depth = 0, string_start = 0, line = 1;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (in_string) {
      // Straight to the next quote: a quote is the string's end unless an odd run of
      // backslashes escapes it; nothing else inside a string matters here.
      const void* quote = std::memchr(text.data() + i, '"', text.size() - i);
      if (!quote) break;
      i = static_cast<size_t>(static_cast<const char*>(quote) - text.data());
      size_t slashes = 0;
      while (i - slashes > string_start && text[i - slashes - 1] == '\\') ++slashes;
      if (slashes % 2 == 1) continue;
      in_string = false;
      stats.string_bytes += i - string_start;
      // The message is built only on failure: this runs for every string of a 200 MB file.
      if (i - string_start > kMaxJsonStringLength)
        throw Error(what + ": a string at line " + std::to_string(line) + " is longer than the limit of " +
                    std::to_string(kMaxJsonStringLength >> 20) + " MiB");
      continue;
    }
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == '"') {
      in_string = true;
      string_start = i + 1;
    } else if (c == ',') {
      ++stats.max_values;
    } else if (c == '[' || c == '{') {
      ++stats.max_values;
      if (++depth > kMaxJsonDepth)
        throw Error(what + ": nested deeper than " + std::to_string(kMaxJsonDepth) + " levels at line " +
                    std::to_string(line));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  check(!in_string || text.size() - string_start <= kMaxJsonStringLength,
        what + ": a string is longer than the limit of " + std::to_string(kMaxJsonStringLength >> 20) + " MiB");
  return stats;
}

Error json_parse_error(const nlohmann::json::exception& e, const std::string& what) {
  // "[json.exception.parse_error.101] parse error at line 1, ...": the tag means nothing
  // to the user.
  std::string msg = e.what();
  if (msg.rfind("[json.exception.", 0) == 0 && msg.find("] ") != std::string::npos)
    msg = msg.substr(msg.find("] ") + 2);
  // nlohmann quotes what it last read, which for a bad byte is the byte itself: an error line
  // must be text, so the quote is cut and the fault named.
  if (msg.find("ill-formed UTF-8") != std::string::npos || msg.find("invalid UTF-8") != std::string::npos) {
    const size_t at = msg.find(" - ");
    return Error(what + " is not valid UTF-8" + (at == std::string::npos ? "" : ": " + msg.substr(0, at)));
  }
  for (char& c : msg)
    if (static_cast<unsigned char>(c) >= 0x80 || static_cast<unsigned char>(c) < 0x20) c = '?';
  return Error(what + " is not valid JSON: " + msg);
}

nlohmann::json parse_json_limited(const std::string& text, const std::string& what) {
  check_json_limits(text, what);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw json_parse_error(e, what);
  }
}

}  // namespace kc
