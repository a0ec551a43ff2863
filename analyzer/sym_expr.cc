#include "analyzer/sym_expr.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace kc {
namespace {

// Recursive-descent parser over: integers, symbols, Symbol('name', ...), + - * // / % **,
// unary minus, parentheses, and the calls FloorDiv, CeilDiv, Mod, PythonMod, Max, Min,
// TruncToInt, Abs, and sympy's own spelling (srepr) of a sum, product, power and integer: Add,
// Mul, Pow, Integer (torch.export writes it for a long expression: a sum of 90 Min(300, u)). Arithmetic that overflows
// 64 bits or divides by zero fails the parse with a reason; nesting deeper than kMaxSymExprDepth fails it before the
// stack can run out.
class Parser {
 public:
  Parser(const std::string& s, const std::map<std::string, int64_t>* syms) : s_(s), syms_(syms) {}

  std::optional<int64_t> parse() {
    if (s_.size() > kMaxSymExprLength) {
      fail("longer than " + std::to_string(kMaxSymExprLength) + " characters");
      return std::nullopt;
    }
    auto v = sum();
    skip();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }
  std::vector<std::string> seen;
  std::string error;  // why the arithmetic is undefined; empty for unknown symbols and syntax

 private:
  // Records the first reason and yields nothing; every caller stops at a nullopt.
  std::nullopt_t fail(const std::string& why) {
    if (error.empty()) error = why;
    pos_ = s_.size();
    return std::nullopt;
  }
  // Every level of nesting passes through unary(); this bounds the recursion.
  struct Depth {
    int& d;
    explicit Depth(int& depth) : d(depth) { ++d; }
    ~Depth() { --d; }
  };
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(const char* tok) {
    skip();
    size_t n = std::char_traits<char>::length(tok);
    if (s_.compare(pos_, n, tok) == 0) {
      pos_ += n;
      return true;
    }
    return false;
  }
  // l op r, or nothing when either side is missing or the result overflows int64.
  template <typename Op>
  std::optional<int64_t> combine(std::optional<int64_t> l, std::optional<int64_t> r, Op overflowing) {
    int64_t out;
    if (!l || !r) return std::nullopt;
    if (overflowing(*l, *r, &out)) return fail("the result overflows 64 bits");
    return out;
  }
  std::optional<int64_t> sum() {
    auto l = product();
    while (l) {
      if (eat("+")) {
        l = combine(l, product(), [](int64_t a, int64_t b, int64_t* o) { return __builtin_add_overflow(a, b, o); });
      } else if (eat("-")) {
        l = combine(l, product(), [](int64_t a, int64_t b, int64_t* o) { return __builtin_sub_overflow(a, b, o); });
      } else {
        break;
      }
    }
    return l;
  }
  std::optional<int64_t> product() {
    auto l = power();
    while (l) {
      skip();
      if (s_.compare(pos_, 2, "**") == 0) break;
      if (eat("//")) {
        auto r = power();
        if (!r) return std::nullopt;
        l = floordiv(*l, *r);
      } else if (eat("*")) {
        l = combine(l, power(), [](int64_t a, int64_t b, int64_t* o) { return __builtin_mul_overflow(a, b, o); });
      } else if (eat("/")) {
        // sympy writes exact integer division as '/', e.g. "s0/2" when s0 is known even.
        auto r = power();
        if (!r) return std::nullopt;
        if (*r == 0) return fail("division by zero");
        if (*r == -1 && *l == INT64_MIN) return fail("the result overflows 64 bits");
        if (*l % *r != 0) return std::nullopt;
        l = *l / *r;
      } else if (eat("%")) {
        auto r = power();
        if (!r) return std::nullopt;
        l = mod(*l, *r);
      } else {
        break;
      }
    }
    return l;
  }
  std::optional<int64_t> power() {
    auto base = unary();
    if (base && eat("**")) {
      auto e = unary();
      if (!e) return std::nullopt;
      return pow(*base, *e);
    }
    return base;
  }
  // base ** e for e >= 0; a negative exponent is no integer.
  std::optional<int64_t> pow(int64_t base, int64_t e) {
    if (e < 0) return std::nullopt;
    if (base == 0 || base == 1) return e == 0 ? 1 : base;
    if (base == -1) return e % 2 ? -1 : 1;
    if (e > 63) return fail("the result overflows 64 bits");
    int64_t out = 1;
    for (int64_t i = 0; i < e; ++i)
      if (__builtin_mul_overflow(out, base, &out)) return fail("the result overflows 64 bits");
    return out;
  }
  std::optional<int64_t> unary() {
    Depth guard(depth_);
    if (depth_ > kMaxSymExprDepth) return fail("nested deeper than " + std::to_string(kMaxSymExprDepth) + " levels");
    if (eat("-")) {
      auto v = unary();
      if (!v) return std::nullopt;
      if (*v == INT64_MIN) return fail("the result overflows 64 bits");
      return -*v;
    }
    if (eat("+")) return unary();
    return atom();
  }
  // Python's a // b and a % b; x86 traps on b == 0 and on INT64_MIN / -1, so both are checked.
  std::optional<int64_t> floordiv(int64_t a, int64_t b) {
    if (b == 0) return fail("division by zero");
    if (b == -1 && a == INT64_MIN) return fail("the result overflows 64 bits");
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
  std::optional<int64_t> ceildiv(int64_t a, int64_t b) {
    if (b == 0) return fail("division by zero");
    if (b == -1 && a == INT64_MIN) return fail("the result overflows 64 bits");
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
    return q;
  }
  std::optional<int64_t> mod(int64_t a, int64_t b) {
    if (b == 0) return fail("modulo by zero");
    if (b == -1) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }

  std::optional<std::vector<int64_t>> call_args() {
    std::vector<int64_t> args;
    if (!eat("(")) return std::nullopt;
    do {
      if (args.size() > kMaxSymExprLength) return std::nullopt;
      auto v = sum();
      if (!v) return std::nullopt;
      args.push_back(*v);
    } while (eat(","));
    if (!eat(")")) return std::nullopt;
    return args;
  }

  std::optional<int64_t> atom() {
    skip();
    if (pos_ >= s_.size()) return std::nullopt;
    if (eat("(")) {
      auto v = sum();
      if (!v || !eat(")")) return std::nullopt;
      return v;
    }
    char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[pos_] - '0', &v))
          return fail("a number beyond 64 bits");
        ++pos_;
      }
      return v;
    }
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    std::string id = s_.substr(start, pos_ - start);
    if (id == "Symbol") {
      // Symbol('s0', positive=True, integer=True): the name, then assumptions to skip.
      if (!eat("(") || !eat("'")) return std::nullopt;
      size_t end = s_.find('\'', pos_);
      if (end == std::string::npos) return std::nullopt;
      std::string name = s_.substr(pos_, end - pos_);
      pos_ = end + 1;
      int depth = 1;
      while (pos_ < s_.size() && depth > 0) {
        if (s_[pos_] == '(') ++depth;
        if (s_[pos_] == ')') --depth;
        ++pos_;
      }
      if (depth != 0) return std::nullopt;
      return symbol(name);
    }
    skip();
    if (pos_ < s_.size() && s_[pos_] == '(') {
      auto args = call_args();
      if (!args) return std::nullopt;
      const auto& a = *args;
      if ((id == "FloorDiv" || id == "IntTrueDiv") && a.size() == 2) return floordiv(a[0], a[1]);
      if (id == "CeilDiv" && a.size() == 2) return ceildiv(a[0], a[1]);
      if ((id == "Mod" || id == "PythonMod") && a.size() == 2) return mod(a[0], a[1]);
      if (id == "Max" && !a.empty()) {
        int64_t m = a[0];
        for (int64_t v : a) m = v > m ? v : m;
        return m;
      }
      if (id == "Min" && !a.empty()) {
        int64_t m = a[0];
        for (int64_t v : a) m = v < m ? v : m;
        return m;
      }
      if ((id == "TruncToInt" || id == "floor" || id == "ceiling" || id == "Integer") && a.size() == 1) return a[0];
      if ((id == "Add" || id == "Mul") && !a.empty()) {
        int64_t out = a[0];
        for (size_t i = 1; i < a.size(); ++i)
          if (id == "Add" ? __builtin_add_overflow(out, a[i], &out) : __builtin_mul_overflow(out, a[i], &out))
            return fail("the result overflows 64 bits");
        return out;
      }
      if (id == "Pow" && a.size() == 2) return pow(a[0], a[1]);
      if (id == "Abs" && a.size() == 1) {
        if (a[0] == INT64_MIN) return fail("the result overflows 64 bits");
        return a[0] < 0 ? -a[0] : a[0];
      }
      return std::nullopt;
    }
    return symbol(id);
  }
  std::optional<int64_t> symbol(const std::string& name) {
    if (seen_set_.insert(name).second) seen.push_back(name);
    if (!syms_) return 0;
    auto it = syms_->find(name);
    if (it == syms_->end()) return std::nullopt;
    return it->second;
  }

  const std::string& s_;
  const std::map<std::string, int64_t>* syms_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::set<std::string> seen_set_;
};

}  // namespace

std::optional<int64_t> eval_sym_expr(const std::string& expr, const std::map<std::string, int64_t>& symbols,
                                     std::string* error) {
  Parser p(expr, &symbols);
  auto v = p.parse();
  if (error) *error = v ? "" : p.error;
  return v;
}

std::vector<std::string> sym_expr_symbols(const std::string& expr) {
  // A lexical scan, not a parse: it must list the symbols even where the arithmetic with
  // placeholder values would be undefined, and it needs no stack.
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](std::string name) {
    if (seen.insert(name).second) out.push_back(std::move(name));
  };
  const size_t n = std::min(expr.size(), kMaxSymExprLength);
  size_t i = 0;
  while (i < n) {
    const unsigned char c = expr[i];
    if (!std::isalpha(c) && c != '_') {
      if (std::isdigit(c))
        while (i < n && std::isalnum(static_cast<unsigned char>(expr[i]))) ++i;
      else
        ++i;
      continue;
    }
    size_t start = i;
    while (i < n && (std::isalnum(static_cast<unsigned char>(expr[i])) || expr[i] == '_')) ++i;
    std::string id = expr.substr(start, i - start);
    size_t j = i;
    while (j < n && std::isspace(static_cast<unsigned char>(expr[j]))) ++j;
    if (id == "Symbol" && j < n && expr[j] == '(') {
      size_t q = expr.find('\'', j);
      size_t e = q == std::string::npos ? std::string::npos : expr.find('\'', q + 1);
      if (e == std::string::npos || e >= n) break;
      add(expr.substr(q + 1, e - q - 1));
      int depth = 1;  // skip the assumptions up to the matching parenthesis
      for (i = j + 1; i < n && depth > 0; ++i) {
        if (i > q && i <= e) continue;
        depth += expr[i] == '(' ? 1 : expr[i] == ')' ? -1 : 0;
      }
      continue;
    }
    if (j < n && expr[j] == '(') continue;  // a function: FloorDiv, Max, ...
    add(id);
  }
  return out;
}

}  // namespace kc
