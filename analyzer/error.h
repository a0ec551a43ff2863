// The project's one error type. Library code throws it with enough context to name the
// problem in one line; only cli/main.cc catches it, prints it and picks the exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace kc {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// An error in one op of the graph. The pipeline adds the pass, the op's name and its source
// line before it reaches the user.
class OpError : public Error {
 public:
  OpError(int op, const std::string& what) : Error(what), op_(op) {}
  int op() const { return op_; }

 private:
  int op_;
};

// Throws Error(what) when cond is false.
inline void check(bool cond, const std::string& what) {
  if (!cond) throw Error(what);
}

}  // namespace kc
