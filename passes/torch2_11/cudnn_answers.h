// cuDNN's heuristic answers kept, so that cuDNN is loaded (a fifth of a second and 290 MB) only
// for a convolution never seen before: a lookup goes to the table built into kernelcount
// (cudnn_table.h), then to the answers earlier runs kept on disk, and only then to cuDNN itself,
// whose answer is appended to the disk cache. Answers are cuDNN's for one version and one set of
// device properties: the disk cache keeps a file per pair, the table answers only for its own.
// Where cuDNN cannot be loaded, known answers are still given; unknown ones are none (the trees
// alone), as without cuDNN.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "passes/device.h"
#include "passes/torch2_11/cudnn_heuristics.h"

namespace kc::torch2_11 {

// Where an answer came from: the built-in table, the disk cache, cuDNN itself in this run, or
// nowhere (cuDNN could not be asked and nothing kept answers the query).
enum class CudnnSource { kNone, kTable, kCache, kCudnn };

// "none", "table", "cache", "cudnn": the report's words for a source.
const char* cudnn_source_name(CudnnSource s);

// An answer: cuDNN's engine choice, nullopt where cuDNN refused the problem or none was had.
struct CudnnAnswer {
  std::optional<CudnnEngineChoice> choice;
  CudnnSource source = CudnnSource::kNone;
};

// Answers by query key (cudnn_query_key), nullopt where cuDNN refused the problem.
using CudnnAnswerMap = std::unordered_map<std::string, std::optional<CudnnEngineChoice>>;

// A query as one line's key: dtype, layout (n: NCHW, c: channels last; dn, dc: a data gradient), then x, w, padding,
// stride and dilation as comma-separated integers, space-separated: "f32 n 8,64,56,56 ...".
std::string cudnn_query_key(const CudnnConvQuery& q);

// One line of the table or the disk cache: the key, then "-" (refused) or the engine, the
// workspace bytes, the next engine and the knob values; with its newline.
std::string cudnn_answer_line(const std::string& key, const std::optional<CudnnEngineChoice>& answer);

// Reads one line (without its newline) into key and answer; false, changing nothing, for a line
// that is not exactly one written by cudnn_answer_line (a damaged or foreign line).
bool parse_cudnn_answer_line(std::string_view line, std::string& key, std::optional<CudnnEngineChoice>& answer);

// Every well-formed line of text into answers (a later line of a key wins); returns how many
// lines were damaged and skipped. A last line without its newline counts as damaged: a writer
// may still be on it.
int read_cudnn_answer_lines(std::string_view text, CudnnAnswerMap& answers);

// The folder kernelcount keeps its caches in: $KERNELCOUNT_CACHE, else
// $XDG_CACHE_HOME/kernelcount, else $HOME/.cache/kernelcount (scripts/setup.sh's); empty where
// none of them is set.
std::string kernelcount_cache_folder();

// A hash of the device properties (FNV-1a, 16 hex digits), naming whose answers a file holds.
std::string device_properties_hash(std::string_view properties_json);

// The disk cache's file in folder for cuDNN `version` asked with the properties of `hash`.
std::string cudnn_cache_file(const std::string& folder, size_t version, const std::string& hash);

// The heuristics behind the store, asked on a miss only: an answer from cuDNN (source kCudnn),
// or source kNone where cuDNN cannot be loaded.
using CudnnAsk = std::function<CudnnAnswer(const CudnnConvQuery&)>;

// Answers looked up by key: the built-in table (cudnn_table.h), or a map.
class CudnnAnswerTable {
 public:
  virtual ~CudnnAnswerTable() = default;
  // Whether the table holds key, with its answer (nullopt: cuDNN refused the problem).
  virtual bool find(const std::string& key, std::optional<CudnnEngineChoice>& answer) const = 0;
  virtual size_t size() const = 0;
};

// A map of answers as a table; it must outlive the table.
class CudnnAnswerMapTable : public CudnnAnswerTable {
 public:
  explicit CudnnAnswerMapTable(const CudnnAnswerMap& answers) : answers_(answers) {}
  bool find(const std::string& key, std::optional<CudnnEngineChoice>& answer) const override {
    auto it = answers_.find(key);
    if (it == answers_.end()) return false;
    answer = it->second;
    return true;
  }
  size_t size() const override { return answers_.size(); }

 private:
  const CudnnAnswerMap& answers_;
};

// The store: the table, the disk cache and cuDNN, in that order. Thread-safe.
class CudnnAnswers {
 public:
  struct Options {
    const CudnnAnswerTable* table = nullptr;  // the built-in answers, where they apply; nullptr: none
    std::string cache_file;                   // the disk cache; empty: none (answers are not kept)
    CudnnAsk ask;                             // cuDNN itself; empty: never asked
    std::string describe;                     // the table and cache in words, for status()
  };
  explicit CudnnAnswers(Options options) : o_(std::move(options)) {}

  // The process's store for a target's device, with the target's table (its text,
  // Target::tables.cudnn_answers), configured from the environment (KERNELCOUNT_CACHE,
  // KERNELCOUNT_CUDNN_TABLE=off leaves the table out, KERNELCOUNT_CUDNN_GPU); nullptr where
  // KERNELCOUNT_CUDNN=off, which means no cuDNN answers at all.
  static CudnnAnswers* get(const Device& device, std::string_view table_text);

  // The answer for q and where it came from. A miss asks cuDNN (loading it the first time) and
  // appends the answer, nullopt included, to the disk cache; a cache that cannot be read or
  // written is no cache, never an error.
  CudnnAnswer choose(const CudnnConvQuery& q);

  // One line: where answers come from, and whether cuDNN was loaded and why not.
  std::string status() const;

  // Whether cuDNN itself was asked (and so loaded) in this store's life.
  bool asked_cudnn() const;

 private:
  void read_cache();
  void append(const std::string& line);
  Options o_;
  mutable std::mutex mutex_;
  bool cache_read_ = false;
  CudnnAnswerMap cache_;        // the disk cache's answers, read at the first miss of the table
  CudnnAnswerMap asked_;        // cuDNN's answers in this run
  bool cudnn_missing_ = false;  // cuDNN could not be loaded: not asked again
  bool asked_cudnn_ = false;
};

}  // namespace kc::torch2_11
