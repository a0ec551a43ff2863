// The operators a LibTorch release registers, with their schemas and tags, read from a table
// generated from that release's dispatcher (analyzer/schemas/, checked against the live
// registry by the schema_table test). Needs no LibTorch at build or run time.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/graph.h"

namespace kc {

struct SchemaArg {
  Name name;
  std::string type;  // as the schema prints it: "Tensor", "int[]", "Scalar?", ...
  bool keyword_only = false;
  bool has_default = false;
};

// The registered op with its traits.
struct OpSchema {
  Name name;
  Name overload;
  std::vector<SchemaArg> args;
  std::vector<std::string> returns;  // return types
  OpTraits traits;
};

// "2.11.0": the LibTorch release whose operators the table holds.
std::string libtorch_version();

// Looks the op up ("aten::add", "Tensor"; "" or "default" for the default overload). Throws
// Error when the release has no such op. Results are kept; thread-safe.
const OpSchema& lookup_op(const std::string& name, const std::string& overload);

// Ops looked up once and kept, from one source of schemas (the compiled-in table, or the linked
// LibTorch's dispatcher). Thread-safe.
class OpSchemaCache {
 public:
  // The op's schema in the source, or nullopt where it has none; `overload` is "" for the default.
  using Find = std::optional<OpSchema> (*)(const std::string& name, const std::string& overload);
  // `release` names the source in the error for an op it lacks ("2.11.0").
  OpSchemaCache(Find find, std::string (*release)()) : find_(find), release_(release) {}

  // Looks the op up as lookup_op does. An in-place variant without the pointwise tag takes its
  // functional form's (hardtanh_, hardswish_ often lack it). Throws Error when there is no such op.
  const OpSchema& lookup(const std::string& name, const std::string& overload);

 private:
  Find find_;
  std::string (*release_)();
  std::mutex mu_;
  std::map<std::string, OpSchema> schemas_;
};

// One table line per op, in the table's format: "name\toverload\ttraits\targs\treturns".
// traits: p pointwise, r reduction (the two tags the rules read), v view, i in-place,
// o out= variant, then ":" and the indices of the arguments it writes; args separated by ';',
// each "[*]name:type[=]" (* keyword-only, = has a default); returns separated by ';'.
std::string schema_table_line(const OpSchema& op);

}  // namespace kc
