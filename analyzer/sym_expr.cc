#include "analyzer/sym_expr.h"

#include <cctype>

namespace kc {
namespace {

// Recursive-descent parser over: integers, symbols, Symbol('name', ...), + - * // / % **,
// unary minus, parentheses, and the calls FloorDiv, CeilDiv, Mod, PythonMod, Max, Min,
// TruncToInt, Abs. Arithmetic that overflows 64 bits fails the parse.
class Parser {
 public:
  Parser(const std::string& s, const std::map<std::string, int64_t>* syms) : s_(s), syms_(syms) {}

  std::optional<int64_t> parse() {
    auto v = sum();
    skip();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }
  std::vector<std::string> seen;

 private:
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
  static std::optional<int64_t> combine(std::optional<int64_t> l, std::optional<int64_t> r, Op overflowing) {
    int64_t out;
    if (!l || !r || overflowing(*l, *r, &out)) return std::nullopt;
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
        if (!r || *r == 0) return std::nullopt;
        l = floordiv(*l, *r);
      } else if (eat("*")) {
        l = combine(l, power(), [](int64_t a, int64_t b, int64_t* o) { return __builtin_mul_overflow(a, b, o); });
      } else if (eat("/")) {
        // sympy writes exact integer division as '/', e.g. "s0/2" when s0 is known even.
        auto r = power();
        if (!r || *r == 0 || *l % *r != 0) return std::nullopt;
        l = *l / *r;
      } else if (eat("%")) {
        auto r = power();
        if (!r || *r == 0) return std::nullopt;
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
      if (!e || *e < 0 || *e > 62) return std::nullopt;
      int64_t out = 1;
      for (int64_t i = 0; i < *e; ++i)
        if (__builtin_mul_overflow(out, *base, &out)) return std::nullopt;
      return out;
    }
    return base;
  }
  std::optional<int64_t> unary() {
    if (eat("-")) {
      auto v = unary();
      if (!v || *v == INT64_MIN) return std::nullopt;
      return -*v;
    }
    if (eat("+")) return unary();
    return atom();
  }
  static int64_t floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
  static int64_t mod(int64_t a, int64_t b) { return a - floordiv(a, b) * b; }

  std::optional<std::vector<int64_t>> call_args() {
    std::vector<int64_t> args;
    if (!eat("(")) return std::nullopt;
    do {
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
          return std::nullopt;
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
      if ((id == "FloorDiv" || id == "IntTrueDiv") && a.size() == 2 && a[1] != 0) return floordiv(a[0], a[1]);
      if (id == "CeilDiv" && a.size() == 2 && a[1] != 0) return -floordiv(-a[0], a[1]);
      if ((id == "Mod" || id == "PythonMod") && a.size() == 2 && a[1] != 0) return mod(a[0], a[1]);
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
      if ((id == "TruncToInt" || id == "floor" || id == "ceiling") && a.size() == 1) return a[0];
      if (id == "Abs" && a.size() == 1) return a[0] < 0 ? -a[0] : a[0];
      return std::nullopt;
    }
    return symbol(id);
  }
  std::optional<int64_t> symbol(const std::string& name) {
    bool known = false;
    for (const auto& s : seen) known |= s == name;
    if (!known) seen.push_back(name);
    if (!syms_) return 0;
    auto it = syms_->find(name);
    if (it == syms_->end()) return std::nullopt;
    return it->second;
  }

  const std::string& s_;
  const std::map<std::string, int64_t>* syms_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<int64_t> eval_sym_expr(const std::string& expr, const std::map<std::string, int64_t>& symbols) {
  return Parser(expr, &symbols).parse();
}

std::vector<std::string> sym_expr_symbols(const std::string& expr) {
  Parser p(expr, nullptr);
  p.parse();
  return p.seen;
}

}  // namespace kc
