#include "analyzer/name.h"

#include <mutex>
#include <unordered_map>

namespace kc {

const std::string& Name::empty_text() {
  static const std::string text;
  return text;
}

const std::string& Name::intern(std::string_view s) {
  // The empty text is every default-made Name's, so that equal names share one pointer.
  if (s.empty()) return empty_text();
  // Keyed by views of the texts themselves, which are never freed or moved.
  static std::mutex mutex;
  static auto* pool = new std::unordered_map<std::string_view, const std::string*>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = pool->find(s);
  if (it == pool->end()) {
    const std::string* text = new std::string(s);
    it = pool->emplace(*text, text).first;
  }
  return *it->second;
}

}  // namespace kc
