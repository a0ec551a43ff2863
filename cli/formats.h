// The report formats: one row each, driving --format, its help text and main's dispatch.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/render.h"

namespace kc {

struct Format {
  const char* name;  // the --format value
  const char* help;  // a few words for --help
  void (*render)(std::ostream&, const Graph&, const Report&, const RenderOptions&);
  bool rules_markdown;  // --list-rules in this format prints markdown (else text)
  bool tables;          // it prints tables: --by, --sort, --top and --depth choose them
  bool legend;          // --legend adds the columns' meanings (markdown always has them)
  bool findings;        // it prints findings on source lines: --findings chooses which lines
};

const std::vector<Format>& formats();
// The format of that name; throws Error listing the known ones when there is none.
const Format& find_format(const std::string& name);

}  // namespace kc
