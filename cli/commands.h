// kernelcount's subcommands: one table (name, one line of help, function) that drives the
// dispatch in main and the list in --help. `kernelcount MODEL` with no command is the report.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace kc {

struct Command {
  const char* name;  // first argument: "explain"
  const char* help;  // one line for --help
  // Runs with argv[0] the command's name; writes the output to `out` and returns the exit
  // status (0 ok, 1 a wrong answer); throws Error for bad usage or input.
  int (*run)(int argc, char** argv, std::ostream& out);
};

const std::vector<Command>& commands();
// The command of that name, or nullptr.
const Command* find_command(const std::string& name);

}  // namespace kc
