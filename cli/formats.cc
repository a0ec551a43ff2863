#include "cli/formats.h"

#include "analyzer/error.h"

namespace kc {

const std::vector<Format>& formats() {
  static const std::vector<Format> all = {
      {"text", "aligned tables for a terminal", render_text, false},
      {"json", "everything, stable keys (docs/json.md)", render_json, false},
      {"markdown", "tables for a review comment", render_markdown, true},
  };
  return all;
}

const Format& find_format(const std::string& name) {
  std::string names;
  for (const Format& f : formats()) {
    if (name == f.name) return f;
    names += (names.empty() ? "" : ", ") + std::string(f.name);
  }
  throw Error("unknown format '" + name + "' (known: " + names + ")");
}

}  // namespace kc
