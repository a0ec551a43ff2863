#include "passes/torch2_11/cudnn_answers.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "analyzer/error.h"
#include "passes/torch2_11/cudnn_table.h"

namespace kc::torch2_11 {

namespace {

void put_ints(std::string& out, const std::vector<int64_t>& v) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(v[i]);
  }
}

bool parse_int(std::string_view s, int64_t& v) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  return ec == std::errc() && p == end;
}

// Comma-separated integers (none for an empty field), exactly `n` of them where n >= 0.
bool parse_ints(std::string_view s, std::vector<int64_t>& out, int n = -1) {
  out.clear();
  if (s.empty()) return n <= 0;
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    int64_t v;
    if (!parse_int(s.substr(start, comma == std::string_view::npos ? comma : comma - start), v)) return false;
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return n < 0 || out.size() == static_cast<size_t>(n);
}

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= line.size()) {
    const size_t space = line.find(' ', start);
    const size_t end = space == std::string_view::npos ? line.size() : space;
    out.push_back(line.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// mkdir -p; false where the folder is not there afterwards.
bool make_folder(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1))
    mkdir(path.substr(0, slash).c_str(), 0755);
  mkdir(path.c_str(), 0755);
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string folder_of(const std::string& file) {
  const size_t slash = file.rfind('/');
  return slash == std::string::npos ? "." : file.substr(0, slash);
}

}  // namespace

const char* cudnn_source_name(CudnnSource s) {
  switch (s) {
    case CudnnSource::kTable:
      return "table";
    case CudnnSource::kCache:
      return "cache";
    case CudnnSource::kCudnn:
      return "cudnn";
    case CudnnSource::kNone:
      break;
  }
  return "none";
}

std::string cudnn_query_key(const CudnnConvQuery& q) {
  std::string key = dtype_short_name(q.dtype);
  key += q.backward_data ? (q.channels_last ? " dc" : " dn") : (q.channels_last ? " c" : " n");
  for (const auto* v : {&q.x, &q.w, &q.padding, &q.stride, &q.dilation}) {
    key += ' ';
    put_ints(key, *v);
  }
  return key;
}

std::string cudnn_answer_line(const std::string& key, const std::optional<CudnnEngineChoice>& answer) {
  std::string line = key;
  if (!answer) {
    line += " -\n";
    return line;
  }
  line += ' ' + std::to_string(answer->engine) + ' ' + std::to_string(answer->workspace) + ' ' +
          std::to_string(answer->next_engine) + ' ';
  put_ints(line, std::vector<int64_t>(answer->knobs.begin(), answer->knobs.end()));
  line += '\n';
  return line;
}

bool parse_cudnn_answer_line(std::string_view line, std::string& key, std::optional<CudnnEngineChoice>& answer) {
  const std::vector<std::string_view> f = fields_of(line);
  constexpr size_t kKeyFields = 7;
  if (f.size() != kKeyFields + 1 && f.size() != kKeyFields + 4) return false;
  if (!parse_dtype(std::string(f[0])) || (f[1] != "n" && f[1] != "c" && f[1] != "dn" && f[1] != "dc")) return false;
  std::vector<int64_t> ints;
  for (size_t i = 2; i < kKeyFields; ++i)
    if (!parse_ints(f[i], ints)) return false;
  std::optional<CudnnEngineChoice> parsed;
  if (f.size() == kKeyFields + 1) {
    if (f[kKeyFields] != "-") return false;
  } else {
    CudnnEngineChoice c;
    if (!parse_int(f[kKeyFields], c.engine) || !parse_int(f[kKeyFields + 1], c.workspace) ||
        !parse_int(f[kKeyFields + 2], c.next_engine) ||
        !parse_ints(f[kKeyFields + 3], ints, static_cast<int>(kCudnnKnobs.size())))
      return false;
    std::copy(ints.begin(), ints.end(), c.knobs.begin());
    parsed = c;
  }
  const std::string_view k = line.substr(0, static_cast<size_t>(f[kKeyFields].data() - line.data()) - 1);
  key.assign(k.data(), k.size());
  answer = parsed;
  return true;
}

int read_cudnn_answer_lines(std::string_view text, CudnnAnswerMap& answers) {
  int damaged = 0;
  size_t start = 0;
  std::string key;
  std::optional<CudnnEngineChoice> answer;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) return damaged + 1;
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    if (parse_cudnn_answer_line(line, key, answer))
      answers[key] = answer;
    else
      ++damaged;
  }
  return damaged;
}

std::string kernelcount_cache_folder() {
  if (const char* c = std::getenv("KERNELCOUNT_CACHE"); c && *c) return c;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/kernelcount";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/kernelcount";
  return "";
}

std::string device_properties_hash(std::string_view properties_json) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : properties_json) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

std::string cudnn_cache_file(const std::string& folder, size_t version, const std::string& hash) {
  return folder + "/cudnn-" + std::to_string(version) + "-" + hash + ".answers";
}

CudnnAnswer CudnnAnswers::choose(const CudnnConvQuery& q) {
  const std::string key = cudnn_query_key(q);
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::optional<CudnnEngineChoice> answer; o_.table && o_.table->find(key, answer))
    return {answer, CudnnSource::kTable};
  if (!cache_read_) read_cache();
  if (auto it = cache_.find(key); it != cache_.end()) return {it->second, CudnnSource::kCache};
  if (auto it = asked_.find(key); it != asked_.end()) return {it->second, CudnnSource::kCudnn};
  if (!o_.ask || cudnn_missing_) return {};
  const CudnnAnswer a = o_.ask(q);
  if (a.source != CudnnSource::kCudnn) {
    cudnn_missing_ = true;
    return {};
  }
  asked_cudnn_ = true;
  asked_.emplace(key, a.choice);
  append(cudnn_answer_line(key, a.choice));
  return a;
}

void CudnnAnswers::read_cache() {
  cache_read_ = true;
  if (o_.cache_file.empty()) return;
  std::ifstream in(o_.cache_file, std::ios::binary);
  if (!in) return;
  std::ostringstream text;
  text << in.rdbuf();
  read_cudnn_answer_lines(text.str(), cache_);
}

void CudnnAnswers::append(const std::string& line) {
  if (o_.cache_file.empty()) return;
  int fd = open(o_.cache_file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ENOENT && make_folder(folder_of(o_.cache_file)))
    fd = open(o_.cache_file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    o_.cache_file.clear();  // unwritable: this run keeps its answers in memory only
    return;
  }
  // One write of a whole line with O_APPEND: concurrent runs' lines never interleave.
  const ssize_t n = write(fd, line.data(), line.size());
  (void)n;  // a short or failed write leaves a damaged line, which readers skip
  close(fd);
}

std::string CudnnAnswers::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string s = "cuDNN answers: " + o_.describe;
  if (asked_cudnn_)
    s += "; " + CudnnHeuristics::status();
  else if (cudnn_missing_)
    s += "; cuDNN not available, known answers only (" + CudnnHeuristics::status() + ")";
  else
    s += "; cuDNN not loaded (no convolution needed it)";
  return s;
}

bool CudnnAnswers::asked_cudnn() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return asked_cudnn_;
}

namespace {

// The process's store for a device: its properties and its table, or GPU N's properties under
// KERNELCOUNT_CUDNN_GPU (which needs cuDNN loaded to read them, and never uses the table).
std::unique_ptr<CudnnAnswers> process_store(const Device& device, std::string_view table_text) {
  const char* setting = std::getenv("KERNELCOUNT_CUDNN");
  if (setting && std::string(setting) == "off") return nullptr;
  CudnnAnswers::Options o;
  std::string properties = device.cudnn_properties;
  o.ask = [properties](const CudnnConvQuery& q) -> CudnnAnswer {
    const CudnnHeuristics* h = CudnnHeuristics::get(properties);
    if (!h) return {};
    return {h->choose(q), CudnnSource::kCudnn};
  };
  std::string whose = "the " + device.name + "'s properties";
  size_t version = 0;
  if (const char* gpu = std::getenv("KERNELCOUNT_CUDNN_GPU")) {
    const CudnnHeuristics* h = CudnnHeuristics::get(properties);
    properties.clear();
    whose = std::string("GPU ") + gpu + "'s properties";
    if (h) {
      try {
        properties = h->live_device_properties(static_cast<int>(std::strtol(gpu, nullptr, 10)));
        version = h->version();
      } catch (const Error&) {
      }
    }
  } else {
    const char* table_setting = std::getenv("KERNELCOUNT_CUDNN_TABLE");
    const CudnnTable& table = cudnn_table(table_text);
    const bool table_on = !(table_setting && std::string(table_setting) == "off");
    // The answers kept are those of the version the target runs. A table made with a version the
    // heuristics take names it; only without one is the installed cuDNN opened to read its
    // version (loading it cost about 1.2 ms, a quarter of a warm run). Without a cuDNN that
    // could answer, the version is the table's.
    version = CudnnHeuristics::supported_version(table.version) ? table.version : CudnnHeuristics::probe_version();
    if (!CudnnHeuristics::supported_version(version)) version = table.version;
    if (table_on && table.version != 0 && table.version == version &&
        table.properties_hash == device_properties_hash(properties))
      o.table = &table;
  }
  const std::string folder = kernelcount_cache_folder();
  if (version != 0 && !properties.empty() && !folder.empty())
    o.cache_file = cudnn_cache_file(folder, version, device_properties_hash(properties));
  o.describe = "cuDNN " + (version ? std::to_string(version) : std::string("unknown")) + " with " + whose +
               (o.table ? ", built-in table of " + std::to_string(o.table->size()) + " shapes" : ", no table") +
               (o.cache_file.empty() ? ", no disk cache" : ", disk cache " + o.cache_file);
  return std::make_unique<CudnnAnswers>(std::move(o));
}

}  // namespace

CudnnAnswers* CudnnAnswers::get(const Device& device, std::string_view table_text) {
  // One store per device a target describes, made at its first convolution and kept for the
  // process's life.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<CudnnAnswers>> stores;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, added] = stores.try_emplace(device.cudnn_properties);
  if (added) it->second = process_store(device, table_text);
  return it->second.get();
}

}  // namespace kc::torch2_11
