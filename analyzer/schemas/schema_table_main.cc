// kc-schema-table: writes or checks the operator table (analyzer/schemas/libtorch-VERSION.txt)
// from the dispatcher of the LibTorch it links, before anything else registers operators.
//   kc-schema-table --write FILE   regenerate the table
//   kc-schema-table --check FILE   exit 1, naming the first difference, if FILE is not current
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "analyzer/live_op_registry.h"

namespace {

std::string first_difference(const std::string& want, const std::string& have) {
  std::istringstream a(want), b(have);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ga = static_cast<bool>(std::getline(a, la)), gb = static_cast<bool>(std::getline(b, lb));
    if (!ga && !gb) return "";
    if (ga != gb || la != lb)
      return "line " + std::to_string(line) + ": the registry has '" + (ga ? la.substr(0, 120) : "<end>") +
             "', the file '" + (gb ? lb.substr(0, 120) : "<end>") + "'";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "--write") != 0 && std::strcmp(argv[1], "--check") != 0)) {
    std::cerr << "usage: kc-schema-table --write|--check FILE\n";
    return 2;
  }
  const std::string table = kc::live_schema_table();
  const std::string path = argv[2];
  if (std::strcmp(argv[1], "--write") == 0) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << table;
    if (!out.flush()) {
      std::cerr << "kc-schema-table: cannot write " << path << '\n';
      return 2;
    }
    return 0;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream have;
  have << in.rdbuf();
  const std::string diff = first_difference(table, have.str());
  if (diff.empty()) {
    std::cout << path << " matches LibTorch " << kc::linked_libtorch_version() << "'s registry\n";
    return 0;
  }
  std::cerr << path << " is not LibTorch " << kc::linked_libtorch_version() << "'s registry (" << diff
            << "); regenerate it with kc-schema-table --write " << path << '\n';
  return 1;
}
