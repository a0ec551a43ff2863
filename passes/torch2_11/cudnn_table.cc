#include "passes/torch2_11/cudnn_table.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

namespace kc::torch2_11 {

bool read_cudnn_table(std::string_view text, CudnnTable& t) {
  const size_t eol = text.find('\n');
  if (eol == std::string_view::npos) return false;
  const std::string first(text.substr(0, eol));
  unsigned long long version = 0;
  char hash[17] = {};
  if (std::sscanf(first.c_str(), "# cuDNN %llu properties %16[0-9a-f]", &version, hash) != 2) return false;
  t.version = static_cast<size_t>(version);
  t.properties_hash = hash;
  t.lines_.clear();
  const std::string_view body = text.substr(eol + 1);
  for (size_t start = 0; start < body.size();) {
    size_t end = body.find('\n', start);
    if (end == std::string_view::npos) end = body.size();
    if (end > start && body[start] != '#') t.lines_.push_back(body.substr(start, end - start));
    start = end + 1;
  }
  // The generator sorts the lines; a table that is not sorted is sorted here.
  if (!std::is_sorted(t.lines_.begin(), t.lines_.end())) std::sort(t.lines_.begin(), t.lines_.end());
  return true;
}

bool CudnnTable::find(const std::string& key, std::optional<CudnnEngineChoice>& answer) const {
  // Every line of key starts with key and a space, and sorts at or after that probe (the bytes
  // that can follow a key in a longer one all sort after the space).
  const std::string probe = key + ' ';
  auto it = std::lower_bound(lines_.begin(), lines_.end(), std::string_view(probe));
  if (it == lines_.end() || it->compare(0, probe.size(), probe) != 0) return false;
  std::string parsed_key;
  return parse_cudnn_answer_line(*it, parsed_key, answer) && parsed_key == key;
}

const CudnnTable& cudnn_table(std::string_view text) {
  // One table per target, indexed at its first use; the bytes are the target's, linked in for
  // the life of the process, so their address names them and the index points into them.
  static std::mutex mutex;
  static std::map<const char*, std::unique_ptr<CudnnTable>> tables;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<CudnnTable>& t = tables[text.data()];
  if (!t) {
    t = std::make_unique<CudnnTable>();
    if (!text.empty()) read_cudnn_table(text, *t);
  }
  return *t;
}

}  // namespace kc::torch2_11
