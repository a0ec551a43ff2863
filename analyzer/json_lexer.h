// The lexical layer of kernelcount's strict JSON parsers (json_doc.cc's FastParser, and
// json_cursor.h's JsonCursor): whitespace, literals, strings (escapes decoded, UTF-8 checked)
// and numbers, each accepting only what nlohmann::json accepts and giving the same values, so
// that a parser built on it gives up, never disagrees, where nlohmann's would decide. Within
// the limits of json_limits.h (a string's length); depth is the parser's to bound.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "analyzer/json_limits.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kc {

// A JSON number as nlohmann::json holds it: a signed or an unsigned integer, or a double.
struct JsonNumber {
  enum Kind { kInteger, kUnsigned, kFloat } kind = kInteger;
  union {
    int64_t i = 0;
    uint64_t u;
    double d;
  };
};

// A position in a text and the lexing of the token there; each method returns false where the
// text is not what it reads (the position is then unspecified).
class JsonLexer {
 public:
  // Escaped strings are decoded into `decoded` where given, else into the lexer's own buffer: a
  // reader that lexes record after record keeps one buffer's storage for all of them.
  JsonLexer(const char* begin, const char* end, std::string* decoded = nullptr)
      : p_(begin), end_(end), scratch_(decoded ? *decoded : own_scratch_) {}
  JsonLexer(const JsonLexer&) = delete;
  JsonLexer& operator=(const JsonLexer&) = delete;

 protected:
  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
    p_ += word.size();
    return true;
  }

  // Skips the plain bytes at p_, sixteen (SSE2) or eight at a time, up to the first that may
  // end a run of them: a quote, a backslash, a control character or a byte of a multi-byte
  // UTF-8 sequence. Names, keys and stack traces are most of the text. The word tests' borrows
  // can only mark bytes above one that truly matches, so the lowest mark is exact (the text is
  // read little-endian).
  void skip_plain() {
#if defined(__SSE2__)
    // A name or key then ends within one look. As signed bytes, a control character and a byte
    // of a multi-byte sequence are both below ' '.
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(' ');
    while (end_ - p_ >= 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_));
      const int stop = _mm_movemask_epi8(
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)), _mm_cmplt_epi8(x, space)));
      if (stop) {
        p_ += __builtin_ctz(static_cast<unsigned>(stop));
        return;
      }
      p_ += 16;
    }
#endif
    constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    auto has_zero = [&](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
    while (end_ - p_ >= 8) {
      uint64_t x;
      std::memcpy(&x, p_, 8);
      const uint64_t below_space = (x - kOnes * 0x20) & ~x & kHigh;
      const uint64_t stop = (x & kHigh) | below_space | has_zero(x ^ (kOnes * '"')) | has_zero(x ^ (kOnes * '\\'));
      if (stop) {
        p_ += __builtin_ctzll(stop) / 8;
        return;
      }
      p_ += 8;
    }
  }

  // A string without escapes is a view of the text; one with escapes is decoded into scratch_.
  bool string(std::string_view& s) {
    const char* start = ++p_;
    while (p_ != end_) {
      skip_plain();
      if (p_ == end_) break;
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        s = std::string_view(start, static_cast<size_t>(p_ - start));
        ++p_;
        return s.size() <= kMaxJsonStringLength;
      }
      if (c == '\\') return escaped_string(start, s);
      if (c < 0x20) return false;
      if (c < 0x80) {
        ++p_;
      } else if (!utf8()) {
        return false;
      }
    }
    return false;
  }

  bool escaped_string(const char* start, std::string_view& s) {
    scratch_.assign(start, static_cast<size_t>(p_ - start));
    while (p_ != end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        s = scratch_;
        ++p_;
        return static_cast<size_t>(p_ - 1 - start) <= kMaxJsonStringLength;
      }
      if (c < 0x20) return false;
      if (c >= 0x80) {
        const char* from = p_;
        if (!utf8()) return false;
        scratch_.append(from, static_cast<size_t>(p_ - from));
        continue;
      }
      if (c != '\\') {
        // A run of plain bytes at once, eight at a time where eight are left (a stack trace is
        // long lines between its escapes).
        const char* from = p_++;
        skip_plain();
        while (p_ != end_ && static_cast<unsigned char>(*p_) >= 0x20 && static_cast<unsigned char>(*p_) < 0x80 &&
               *p_ != '"' && *p_ != '\\')
          ++p_;
        scratch_.append(from, static_cast<size_t>(p_ - from));
        continue;
      }
      ++p_;
      if (p_ == end_) return false;
      const char e = *p_++;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          scratch_ += e;
          break;
        case 'b':
          scratch_ += '\b';
          break;
        case 'f':
          scratch_ += '\f';
          break;
        case 'n':
          scratch_ += '\n';
          break;
        case 'r':
          scratch_ += '\r';
          break;
        case 't':
          scratch_ += '\t';
          break;
        case 'u':
          if (!unicode_escape()) return false;
          break;
        default:
          return false;
      }
    }
    return false;
  }

  // Four hex digits after "\u"; -1 when they are not.
  int hex4() {
    if (end_ - p_ < 4) return -1;
    int v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *p_++;
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  }

  // "\uXXXX" (p_ after the "u"), a surrogate pair in two of them, appended as UTF-8.
  bool unicode_escape() {
    int cp = hex4();
    if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
      p_ += 2;
      const int low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) return false;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (cp < 0x80) {
      scratch_ += static_cast<char>(cp);
    } else if (cp < 0x800) {
      scratch_ += static_cast<char>(0xC0 | (cp >> 6));
      scratch_ += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      scratch_ += static_cast<char>(0xE0 | (cp >> 12));
      scratch_ += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      scratch_ += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      scratch_ += static_cast<char>(0xF0 | (cp >> 18));
      scratch_ += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      scratch_ += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      scratch_ += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return true;
  }

  // One well-formed UTF-8 sequence of two to four bytes (RFC 3629, as nlohmann checks it).
  bool utf8() {
    const auto b0 = static_cast<unsigned char>(*p_);
    unsigned char lo = 0x80, hi = 0xBF;
    int more;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      more = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      more = 2;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      more = 3;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (end_ - p_ <= more) return false;
    for (int i = 1; i <= more; ++i) {
      const auto b = static_cast<unsigned char>(p_[i]);
      if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) return false;
    }
    p_ += more + 1;
    return true;
  }

  static bool digit(char c) {
    return c >= '0' && c <= '9';
  }

  // The JSON number grammar, then the conversions nlohmann's lexer makes: strtoull for a
  // non-negative integer, strtoll for a negative one, strtod for the rest and on overflow.
  bool read_number(JsonNumber& n) {
    const char* start = p_;
    bool negative = false, integer = true;
    if (*p_ == '-') {
      negative = true;
      ++p_;
    }
    if (p_ == end_ || !digit(*p_)) return false;
    const char* digits = p_;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ != end_ && digit(*p_)) ++p_;
    }
    const char* digits_end = p_;
    if (p_ != end_ && *p_ == '.') {
      integer = false;
      ++p_;
      if (p_ == end_ || !digit(*p_)) return false;
      while (p_ != end_ && digit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integer = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !digit(*p_)) return false;
      while (p_ != end_ && digit(*p_)) ++p_;
    }
    // Up to 18 digits fit an int64 exactly: what strtoull and strtoll give, without them.
    if (integer && digits_end - digits <= 18) {
      uint64_t x = 0;
      for (const char* d = digits; d != digits_end; ++d) x = x * 10 + static_cast<uint64_t>(*d - '0');
      if (negative) {
        n.kind = JsonNumber::kInteger;
        n.i = -static_cast<int64_t>(x);
      } else {
        n.kind = JsonNumber::kUnsigned;
        n.u = x;
      }
      return true;
    }
    number_.assign(start, static_cast<size_t>(p_ - start));  // NUL-terminated for the C functions
    errno = 0;
    if (integer && !negative) {
      const unsigned long long x = std::strtoull(number_.c_str(), nullptr, 10);
      if (errno == 0) {
        n.kind = JsonNumber::kUnsigned;
        n.u = static_cast<uint64_t>(x);
        return true;
      }
    } else if (integer) {
      const long long x = std::strtoll(number_.c_str(), nullptr, 10);
      if (errno == 0) {
        n.kind = JsonNumber::kInteger;
        n.i = static_cast<int64_t>(x);
        return true;
      }
    }
    // An overflow to infinity is an error for nlohmann ("number overflow"): it gives the message.
    const double d = std::strtod(number_.c_str(), nullptr);
    n.kind = JsonNumber::kFloat;
    n.d = d;
    return std::isfinite(d);
  }

  const char* p_;
  const char* const end_;
  std::string own_scratch_;
  std::string& scratch_;  // decoded strings
  std::string number_;    // a number's text for the C functions
};

}  // namespace kc
