// Value indices by name, as the .pt2 reader looks them up: once or twice for every operand of
// every node, among as many names as the graph has tensors. Open addressing in one array of
// slots, each holding its key's view and hash beside the index, so that a lookup touches one
// slot and the key's bytes rather than a bucket, a node and the key, each a cache miss in a
// table of 100,000 names (std::unordered_map's lookups were a tenth of the 100,000-op chain's
// time). Keys are views: their bytes must outlive the index. The subset of
// std::unordered_map's interface the reader uses; an iterator is a pointer to the entry, null
// for none, and any insertion may move the entries.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace kc {

class NameIndex {
 public:
  struct Entry {
    std::string_view first;  // the name; a null view marks an empty slot
    int second = 0;          // the value index
    uint32_t hash = 0;
  };
  using iterator = Entry*;

  iterator end() const { return nullptr; }
  size_t size() const { return size_; }
  // Room for n names without moving the entries.
  void reserve(size_t n) {
    if (n >= slots_.size() / 2) rehash(capacity_for(n));
  }
  const Entry* find(std::string_view key) const {
    if (slots_.empty()) return nullptr;
    const uint32_t h = hash(key);
    for (size_t i = h & mask();; i = (i + 1) & mask()) {
      const Entry& e = slots_[i];
      if (e.first.data() == nullptr) return nullptr;
      if (e.hash == h && e.first == key) return &e;
    }
  }
  iterator find(std::string_view key) { return const_cast<Entry*>(std::as_const(*this).find(key)); }
  // Asks the processor for the slot where a lookup of `key` starts, so that a find of it a
  // little later does not wait for memory: in a table of 100,000 names nearly every first
  // lookup of a name misses the caches.
  void prefetch(std::string_view key) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash(key) & mask()]);
  }
  // The entry of `key`, added with `value` where there was none (then true).
  std::pair<iterator, bool> try_emplace(std::string_view key, int value) {
    if (key.data() == nullptr) key = std::string_view("", 0);  // a null view marks empty slots
    if ((size_ + 1) * 2 > slots_.size()) rehash(capacity_for(size_ + 1));
    const uint32_t h = hash(key);
    for (size_t i = h & mask();; i = (i + 1) & mask()) {
      Entry& e = slots_[i];
      if (e.first.data() == nullptr) {
        e = Entry{key, value, h};
        ++size_;
        return {&e, true};
      }
      if (e.hash == h && e.first == key) return {&e, false};
    }
  }
  int& operator[](std::string_view key) { return try_emplace(key, 0).first->second; }
  // As std::unordered_map::at: std::out_of_range for a name that is not there.
  int at(std::string_view key) const {
    if (const Entry* e = find(key)) return e->second;
    throw std::out_of_range("NameIndex::at");
  }

 private:
  static uint32_t hash(std::string_view key) { return static_cast<uint32_t>(std::hash<std::string_view>()(key)); }
  size_t mask() const { return slots_.size() - 1; }
  // A power of two at least twice n: probes stay short at a load of one half.
  static size_t capacity_for(size_t n) {
    size_t c = 16;
    while (c < n * 2) c *= 2;
    return c;
  }
  void rehash(size_t capacity) {
    std::vector<Entry> old(capacity);
    old.swap(slots_);
    for (const Entry& e : old)
      if (e.first.data() != nullptr)
        for (size_t i = e.hash & mask();; i = (i + 1) & mask())
          if (slots_[i].first.data() == nullptr) {
            slots_[i] = e;
            break;
          }
  }

  std::vector<Entry> slots_;
  size_t size_ = 0;
};

}  // namespace kc
