// Where a 64-byte block of JSON text has its quotes, backslashes and brackets, a bit per byte
// (bit i is byte i), and which of its bytes lie inside strings: what json_doc.cc's outline needs
// to find where a container ends from its structure alone, a block at a time rather than with a
// branch per byte. SSE2 where the target has it, else eight bytes at a time in a word.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kc {

struct JsonBlock {
  uint64_t quote = 0, backslash = 0;
  uint64_t open = 0, close = 0;  // '{' or '[', '}' or ']'
};

// The masks of the 64 bytes at p, eight bytes at a time in a word: any target.
inline JsonBlock json_block_portable(const char* p) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kLow7 = 0x7f7f7f7f7f7f7f7full;
  // The high bit of each byte of x that equals c, exactly (no borrow between bytes), then those
  // eight bits packed into the low byte in byte order.
  auto bits = [&](uint64_t x, unsigned char c) {
    const uint64_t y = x ^ (kOnes * c);
    const uint64_t zero = ~(((y & kLow7) + kLow7) | y | kLow7);
    return ((zero >> 7) * 0x0102040810204080ull) >> 56;
  };
  JsonBlock b;
  for (int k = 0; k < 8; ++k) {
    uint64_t x;
    std::memcpy(&x, p + 8 * k, 8);
    // '[' and ']' are '{' and '}' less 0x20: setting that bit in every byte finds both.
    const uint64_t folded = x | (kOnes * 0x20);
    b.quote |= bits(x, '"') << (8 * k);
    b.backslash |= bits(x, '\\') << (8 * k);
    b.open |= bits(folded, '{') << (8 * k);
    b.close |= bits(folded, '}') << (8 * k);
  }
  return b;
}

// The masks of the 64 bytes at p.
inline JsonBlock json_block(const char* p) {
#if defined(__SSE2__)
  JsonBlock b;
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), open = _mm_set1_epi8('{'),
                close = _mm_set1_epi8('}'), fold = _mm_set1_epi8(0x20);
  for (int k = 0; k < 4; ++k) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i folded = _mm_or_si128(x, fold);
    auto bits = [&](__m128i eq) { return uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(eq))} << (16 * k); };
    b.quote |= bits(_mm_cmpeq_epi8(x, quote));
    b.backslash |= bits(_mm_cmpeq_epi8(x, backslash));
    b.open |= bits(_mm_cmpeq_epi8(folded, open));
    b.close |= bits(_mm_cmpeq_epi8(folded, close));
  }
  return b;
#else
  return json_block_portable(p);
#endif
}

// Bit i set where an odd number of the bits 0..i of x are: with x the block's quotes that
// open or close a string, the bytes from an opening quote up to its closing one.
inline uint64_t prefix_xor(uint64_t x) {
  for (int shift = 1; shift < 64; shift *= 2) x ^= x << shift;
  return x;
}

}  // namespace kc
