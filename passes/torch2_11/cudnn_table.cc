#include "passes/torch2_11/cudnn_table.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

namespace kc::torch2_11 {

namespace {

// gzip data inflated; empty where it is damaged.
std::string gunzip(const unsigned char* data, size_t size) {
  std::string out;
  z_stream s{};
  if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK) return out;
  s.next_in = const_cast<unsigned char*>(data);
  s.avail_in = static_cast<uInt>(size);
  char buffer[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    s.next_out = reinterpret_cast<unsigned char*>(buffer);
    s.avail_out = sizeof buffer;
    rc = inflate(&s, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - s.avail_out);
  }
  inflateEnd(&s);
  if (rc != Z_STREAM_END) out.clear();
  return out;
}

CudnnTable built_in(std::string_view gz) {
  CudnnTable t;
  if (!gz.empty()) read_cudnn_table(gunzip(reinterpret_cast<const unsigned char*>(gz.data()), gz.size()), t);
  return t;
}

}  // namespace

bool read_cudnn_table(std::string_view text, CudnnTable& t) {
  const size_t eol = text.find('\n');
  if (eol == std::string_view::npos) return false;
  const std::string first(text.substr(0, eol));
  unsigned long long version = 0;
  char hash[17] = {};
  if (std::sscanf(first.c_str(), "# cuDNN %llu properties %16[0-9a-f]", &version, hash) != 2) return false;
  t.version = static_cast<size_t>(version);
  t.properties_hash = hash;
  t.text_.assign(text.substr(eol + 1));
  t.lines_.clear();
  const std::string_view body(t.text_);
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

const CudnnTable& cudnn_table(std::string_view gz) {
  // One table per target, read at its first use; the bytes are the target's, linked in for the
  // life of the process, so their address names them.
  static std::mutex mutex;
  static std::map<const char*, std::unique_ptr<CudnnTable>> tables;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<CudnnTable>& t = tables[gz.data()];
  if (!t) t = std::make_unique<CudnnTable>(built_in(gz));
  return *t;
}

}  // namespace kc::torch2_11
