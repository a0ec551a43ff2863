#include "analyzer/torchscript_archive.h"

#include <caffe2/serialize/file_adapter.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzer/error.h"
#include "analyzer/zip_directory.h"

namespace kc {
namespace {

// Pickle opcodes (Python's Lib/pickletools.py) that push one value after a fixed-size
// argument, and that size: ints, floats, None, bools, empty containers.
int fixed_push_argument(unsigned char op) {
  switch (op) {
    case 'K':
      return 1;  // BININT1
    case 'M':
      return 2;  // BININT2
    case 'J':
      return 4;  // BININT
    case 'G':
      return 8;  // BINFLOAT
    case 'N':
    case 0x88:
    case 0x89:
    case ')':
    case ']':
    case '}':
      return 0;  // NONE, bools, empties
    default:
      return -1;
  }
}

// Opcodes that pop `pops` values and push `pushes` (REDUCE, BUILD, TUPLE1, ...).
struct StackEffect {
  unsigned char op;
  int pops, pushes;
};
constexpr StackEffect kStackEffects[] = {
    {0x85, 1, 1}, {0x86, 2, 1}, {0x87, 3, 1},  // TUPLE1..3
    {'R', 2, 1},  {0x81, 2, 1},                // REDUCE, NEWOBJ
    {'Q', 1, 1},                               // BINPERSID
    {'a', 2, 1},  {'s', 3, 1},  {'b', 2, 1},   // APPEND, SETITEM, BUILD
    {'0', 1, 0},                               // POP
};

// A storage a TorchScript pickle names by persistent id.
struct StorageRef {
  std::string key;        // the record under data/ or constants/
  uint64_t elements = 0;  // numel the pickle declares for it
  int element_bytes = 0;  // from its storage class (torch.FloatStorage: 4); 0 when unknown
  std::string location;   // where it was saved: "cpu", "cuda:0"
};

// What a walk of a TorchScript pickle finds: the storages named by its persistent ids (and their
// locations), and whether a string or bytes argument claims more bytes than the pickle has left
// (libtorch allocates that length before reading it).
struct PickleScan {
  std::vector<std::string> locations;
  std::vector<StorageRef> storages;
  uint64_t overrun = 0;  // the length claimed past the end, 0 when none
  // A LONG_BINPUT memo index larger than the pickle's size, 0 when none. A pickler numbers memo
  // entries from 0, one per opcode at most, so no valid index reaches the size; libtorch's
  // unpickler grows its memo table to the index (16 bytes an entry) before anything else.
  uint64_t memo_overrun = 0;
};

// Bytes an element of a storage class, 0 for one not listed (libtorch then names the error).
int storage_element_bytes(const std::string& global) {
  static const std::unordered_map<std::string, int> kBytes = {
      {"torch.DoubleStorage", 8},      {"torch.FloatStorage", 4},         {"torch.HalfStorage", 2},
      {"torch.BFloat16Storage", 2},    {"torch.LongStorage", 8},          {"torch.IntStorage", 4},
      {"torch.ShortStorage", 2},       {"torch.CharStorage", 1},          {"torch.ByteStorage", 1},
      {"torch.BoolStorage", 1},        {"torch.ComplexFloatStorage", 8},  {"torch.ComplexDoubleStorage", 16},
      {"torch.ComplexHalfStorage", 4}, {"torch.QInt8Storage", 1},         {"torch.QUInt8Storage", 1},
      {"torch.QInt32Storage", 4},      {"torch.Float8_e4m3fnStorage", 1}, {"torch.Float8_e5m2Storage", 1}};
  auto it = kBytes.find(global);
  return it == kBytes.end() ? 0 : it->second;
}

// The storages named by persistent ids in a TorchScript pickle. TorchScript's pickler writes
// each storage as the tuple ('storage', <global>, key, location, numel) followed by BINPERSID;
// strings repeat through the memo. Only what is needed to see those tuples is modelled: each
// stack value is a string (or a GLOBAL's "module.name"), a non-negative integer or something
// else. Stops (returning what it found) at an opcode it does not know or at a truncated argument.
PickleScan scan_pickle(const char* data, size_t size) {
  struct Item {
    std::optional<std::string> text;
    std::optional<uint64_t> number;
    bool operator==(const std::string& s) const { return text && *text == s; }
  };
  std::vector<Item> stack;
  std::vector<size_t> marks;
  std::unordered_map<uint64_t, Item> memo;
  PickleScan found;
  size_t pos = 0;
  // Reads an n-byte little-endian unsigned argument at pos and steps over it.
  auto arg = [&](size_t n, uint64_t* v) {
    if (pos + n > size) return false;
    *v = 0;
    std::memcpy(v, data + pos, n);
    pos += n;
    return true;
  };
  auto pop_to_mark = [&]() {
    size_t m = marks.empty() ? 0 : std::min(marks.back(), stack.size());
    if (!marks.empty()) marks.pop_back();
    std::vector<Item> items(stack.begin() + m, stack.end());
    stack.resize(m);
    return items;
  };
  while (pos < size) {
    const unsigned char op = data[pos++];
    uint64_t n = 0;
    if (int fixed = fixed_push_argument(op); fixed >= 0) {
      if (!arg(fixed, &n)) return found;
      stack.emplace_back();
      if (op == 'K' || op == 'M' || (op == 'J' && n < 0x80000000u)) stack.back().number = n;
      continue;
    }
    bool known = false;
    for (const StackEffect& e : kStackEffects) {
      if (e.op != op) continue;
      stack.resize(stack.size() > static_cast<size_t>(e.pops) ? stack.size() - e.pops : 0);
      stack.resize(stack.size() + e.pushes);
      known = true;
    }
    if (known) continue;
    switch (op) {
      case 0x80:  // PROTO
        if (!arg(1, &n)) return found;
        break;
      case 0x95:  // FRAME
        if (!arg(8, &n)) return found;
        break;
      case '.':  // STOP
        return found;
      case '(':  // MARK
        marks.push_back(stack.size());
        break;
      case 'X':     // BINUNICODE
      case 0x8c:    // SHORT_BINUNICODE
      case 0x8d: {  // BINUNICODE8
        if (!arg(op == 'X' ? 4 : op == 0x8c ? 1 : 8, &n)) return found;
        if (n > size - pos) {
          found.overrun = n;
          return found;
        }
        stack.push_back({std::string(data + pos, n), std::nullopt});
        pos += n;
        break;
      }
      case 'B':     // BINBYTES
      case 'C':     // SHORT_BINBYTES
      case 0x8e:    // BINBYTES8
      case 0x8a: {  // LONG1
        if (!arg(op == 'B' ? 4 : op == 0x8e ? 8 : 1, &n)) return found;
        if (n > size - pos) {
          if (op != 0x8a) found.overrun = n;  // LONG1's length is one byte: nothing to allocate
          return found;
        }
        stack.emplace_back();
        if (op == 0x8a && n >= 1 && n <= 8 && !(data[pos + n - 1] & 0x80)) {  // a non-negative LONG1
          uint64_t v = 0;
          std::memcpy(&v, data + pos, n);
          stack.back().number = v;
        }
        pos += n;
        break;
      }
      case 'c': {  // GLOBAL "module\nname\n"
        std::string name;
        for (int line = 0; line < 2; ++line) {
          const void* nl = std::memchr(data + pos, '\n', size - pos);
          if (!nl) return found;
          const size_t end = static_cast<const char*>(nl) - data;
          name += (line ? "." : "") + std::string(data + pos, end - pos);
          pos = end + 1;
        }
        stack.push_back({std::move(name), std::nullopt});
        break;
      }
      case 'q':  // BINPUT
      case 'r':  // LONG_BINPUT
        if (!arg(op == 'q' ? 1 : 4, &n)) return found;
        if (n > size) {
          found.memo_overrun = n;
          return found;
        }
        if (!stack.empty()) memo[n] = stack.back();
        break;
      case 0x94:  // MEMOIZE
        if (!stack.empty()) memo[memo.size()] = stack.back();
        break;
      case 'h':  // BINGET
      case 'j':  // LONG_BINGET
        if (!arg(op == 'h' ? 1 : 4, &n)) return found;
        stack.push_back(memo[n]);
        break;
      case 't':    // TUPLE: the one that names a storage is what this walk is for
      case 'l':    // LIST
      case 'd': {  // DICT
        auto items = pop_to_mark();
        if (op == 't' && items.size() >= 4 && items[0] == "storage" && items[3].text) {
          found.locations.push_back(*items[3].text);
          if (items.size() == 5 && items[1].text && items[2].text && items[4].number)
            found.storages.push_back(
                {*items[2].text, *items[4].number, storage_element_bytes(*items[1].text), *items[3].text});
        }
        stack.emplace_back();
        break;
      }
      case 'e':  // APPENDS
      case 'u':  // SETITEMS
        pop_to_mark();
        break;
      default:
        return found;
    }
  }
  return found;
}

std::vector<std::string> locations_in(caffe2::serialize::PyTorchStreamReader& archive, const std::string& record) {
  if (!archive.hasRecord(record)) return {};
  auto [data, size] = archive.getRecord(record);
  return scan_pickle(static_cast<const char*>(data.get()), size).locations;
}

// The scan of one pickle, after throwing Error for a length or memo index past its end.
PickleScan checked_scan(const std::string& name, const char* data, size_t size) {
  PickleScan scan = scan_pickle(data, size);
  check(scan.overrun == 0, "pickle " + name + " holds a string of " + std::to_string(scan.overrun) +
                               " bytes in a record of " + std::to_string(size) + " (a damaged length)");
  check(scan.memo_overrun == 0, "pickle " + name + " stores memo entry " + std::to_string(scan.memo_overrun) +
                                    " in a record of " + std::to_string(size) + " bytes (a damaged index)");
  return scan;
}

}  // namespace

void check_pickle_lengths(caffe2::serialize::PyTorchStreamReader& archive) {
  for (const std::string& name : archive.getAllRecords()) {
    if (!(name.size() > 4 && name.compare(name.size() - 4, 4, ".pkl") == 0)) continue;
    auto [data, size] = archive.getRecord(name);
    const PickleScan scan = checked_scan(name, static_cast<const char*>(data.get()), size);
    if (name != "data.pkl" && name != "constants.pkl") continue;
    // libtorch sizes a storage by the numel its pickle declares and fills it from the record:
    // a shorter record leaves the tensor reading past its buffer.
    const std::string folder = name.substr(0, name.size() - 4) + "/";
    for (const StorageRef& s : scan.storages) {
      const std::string record = folder + s.key;
      if (!s.element_bytes || !archive.hasRecord(record)) continue;  // libtorch names these
      const uint64_t held = archive.getRecordSize(record);
      check(s.elements <= held / static_cast<uint64_t>(s.element_bytes),
            "tensor record " + record + " holds " + std::to_string(held) + " bytes, but " + name + " declares " +
                std::to_string(s.elements) + " elements of " + std::to_string(s.element_bytes) +
                " bytes (a damaged archive)");
    }
  }
}

namespace {

// The layout libtorch's SourceRangeDeserializer reads a .debug_pkl in, indexing tuples and its
// string table without checking (a damaged one is a segmentation fault, not an error): either
// ("FORMAT_WITH_STRING_TABLE", (text, ...), lines) or lines alone; each line (byte offset,
// (source, start, end), tag); each source (text index list, file name index, first line) with
// a table, else (text, file name or None, first line). Returns what is wrong, or "".
std::string debug_table_problem(const c10::IValue& root) {
  if (!root.isTuple()) return "not a tuple";
  const auto& top = root.toTupleRef().elements();
  int64_t strings = -1;  // size of the string table, -1 when there is none
  const c10::IValue* lines = &root;
  if (!top.empty() && top[0].isString() && top[0].toStringRef() == "FORMAT_WITH_STRING_TABLE") {
    if (top.size() != 3 || !top[1].isTuple() || !top[2].isTuple()) return "a string-table header of the wrong shape";
    for (const auto& t : top[1].toTupleRef().elements())
      if (!t.isString()) return "a string table with a non-string";
    strings = static_cast<int64_t>(top[1].toTupleRef().elements().size());
    lines = &top[2];
  }
  for (const auto& line : lines->toTupleRef().elements()) {
    if (!line.isTuple() || line.toTupleRef().elements().size() < 2) return "a line that is not (offset, range, ...)";
    const auto& l = line.toTupleRef().elements();
    if (!l[0].isInt() || !l[1].isTuple() || l[1].toTupleRef().elements().size() != 3) return "a malformed range";
    const auto& range = l[1].toTupleRef().elements();
    if (!range[1].isInt() || !range[2].isInt() || !range[0].isTuple()) return "a malformed range";
    const auto& source = range[0].toTupleRef().elements();
    if (source.size() != 3 || !source[2].isInt()) return "a malformed source";
    if (strings < 0) {
      if (!source[0].isString() || !(source[1].isString() || source[1].isNone())) return "a malformed source";
      continue;
    }
    if (!source[0].isIntList() || !source[1].isInt()) return "a malformed source";
    const int64_t name = source[1].toInt();
    if (name < 0 || name >= strings) return "a file name index out of its string table";
    for (int64_t i : source[0].toIntList())
      if (i < 0 || i >= strings) return "a text index out of its string table";
  }
  return "";
}

}  // namespace

std::unordered_map<std::string, c10::IValue> read_debug_tables(caffe2::serialize::PyTorchStreamReader& archive) {
  std::unordered_map<std::string, c10::IValue> tables;
  for (const std::string& name : archive.getAllRecords()) {
    if (!(name.size() > 10 && name.compare(name.size() - 10, 10, ".debug_pkl") == 0)) continue;
    auto [data, size] = archive.getRecord(name);
    checked_scan(name, static_cast<const char*>(data.get()), size);
    std::string problem;
    c10::IValue table;
    try {
      table = torch::jit::unpickle(static_cast<const char*>(data.get()), size);
      problem = debug_table_problem(table);
    } catch (const std::exception&) {
      problem = "it does not unpickle";
    }
    check(problem.empty(), "TorchScript debug info " + name + " is damaged: " + problem);
    tables.emplace(name.substr(0, name.size() - 10), std::move(table));
  }
  return tables;
}

std::string saved_device(caffe2::serialize::PyTorchStreamReader& archive) {
  for (const char* pickle : {"data.pkl", "constants.pkl"}) {
    auto locations = locations_in(archive, pickle);
    // A model split over devices reports the first GPU one: that is where it computes.
    for (const auto& l : locations)
      if (l != "cpu") return l;
    if (!locations.empty()) return locations.front();
  }
  return "";
}

std::string constants_device(caffe2::serialize::PyTorchStreamReader& archive) {
  const auto locations = locations_in(archive, "constants.pkl");
  for (const auto& l : locations)
    if (l != locations.front()) return "";
  return locations.empty() ? "" : locations.front();
}

std::vector<std::pair<std::string, std::string>> constant_storages(caffe2::serialize::PyTorchStreamReader& archive) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!archive.hasRecord("constants.pkl")) return out;
  auto [data, size] = archive.getRecord("constants.pkl");
  for (const StorageRef& s : scan_pickle(static_cast<const char*>(data.get()), size).storages) {
    const std::string record = "constants/" + s.key;
    if (!archive.hasRecord(record)) continue;
    auto [bytes, n] = archive.getRecord(record);
    out.emplace_back(std::string(static_cast<const char*>(bytes.get()), n), s.location);
  }
  return out;
}

namespace {

// Parameters and buffers (data/N), and the example inputs a trace keeps (traced_inputs/N,
// activation-sized), under the archive's one top folder.
bool is_weight(const std::string& name) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return false;
  return name.compare(slash + 1, 5, "data/") == 0 || name.compare(slash + 1, 14, "traced_inputs/") == 0;
}

// The file as libtorch's zip reader sees it: each weight record stored at its uncompressed
// size, whose one read (the whole record) leaves the destination unwritten. A deflated record
// becomes a stored one through its directory entry, and the archive grows past the file's end
// (zeros, then the file's end records again) so that the record fits inside it.
class WeightSkippingReader : public caffe2::serialize::ReadAdapterInterface {
 public:
  WeightSkippingReader(const std::string& path) : file_(path), file_size_(file_.size()), size_(file_size_) {}

  size_t size() const override { return size_; }

  size_t read(uint64_t pos, void* buf, size_t n, const char* what) const override {
    if (auto it = skip_.find(pos); it != skip_.end() && it->second == n) return n;
    if (pos >= size_) return 0;
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - pos));
    auto* out = static_cast<unsigned char*>(buf);
    size_t done = 0;
    if (pos < file_size_) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(n, file_size_ - pos));
      done = file_.read(pos, out, want, what);
      if (done < want) return done;
    }
    const uint64_t tail_at = size_ - tail_.size();
    for (; done < n; ++done) out[done] = pos + done >= tail_at ? tail_[pos + done - tail_at] : 0;
    // miniz reads the directory a few entries at a time: only the patches near the read are looked at.
    for (auto it = patches_.lower_bound(pos > kMaxPatch ? pos - kMaxPatch : 0);
         it != patches_.end() && it->first < pos + n; ++it)
      for (size_t i = 0; i < it->second.size(); ++i)
        if (it->first + i >= pos && it->first + i - pos < n) out[it->first + i - pos] = it->second[i];
    return n;
  }

  // Makes the record's bytes go unread; a deflated record is first declared stored.
  void skip(const ZipRecord& r, uint64_t data_at) {
    skip_.emplace(data_at, r.uncompressed);
    if (r.method == 0) return;
    patches_[r.method_at] = {0, 0};
    std::vector<unsigned char> size(r.compressed_width);
    for (int i = 0; i < r.compressed_width; ++i) size[i] = static_cast<unsigned char>(r.uncompressed >> (8 * i));
    patches_[r.compressed_at] = std::move(size);
    if (data_at + r.uncompressed > size_) size_ = data_at + r.uncompressed;
  }

  // Repeats the file's end records at the archive's new end, where a zip reader looks for them.
  void finish(uint64_t tail_at) {
    if (size_ == file_size_) return;
    tail_.resize(file_size_ - tail_at);
    check(file_.read(tail_at, tail_.data(), tail_.size(), "zip end records") == tail_.size(),
          "TorchScript archive: cannot read its end records");
    size_ += tail_.size();
  }

  const caffe2::serialize::FileAdapter& file() const { return file_; }

 private:
  caffe2::serialize::FileAdapter file_;
  const uint64_t file_size_;
  uint64_t size_;                                // the archive as served: the file, then zeros and tail_
  std::vector<unsigned char> tail_;              // the file's end records, repeated at the end
  std::unordered_map<uint64_t, uint64_t> skip_;  // offset -> size of each weight's bytes
  // Bytes served in place of the file's, by file offset: directory entries declaring deflated
  // weights stored (a method field, or a size field of at most 8 bytes).
  std::map<uint64_t, std::vector<unsigned char>> patches_;
  static constexpr uint64_t kMaxPatch = 8;
};

}  // namespace

std::shared_ptr<caffe2::serialize::ReadAdapterInterface> weight_skipping_reader(const std::string& path) {
  auto reader = std::make_shared<WeightSkippingReader>(path);
  const auto& file = reader->file();
  const ByteSource bytes{file.size(), [&](uint64_t pos, void* buf, size_t n) { return file.read(pos, buf, n, "zip"); }};
  auto dir = read_zip_directory(bytes);
  if (!dir) return reader;     // not a zip libtorch can read either: its reader says why
  check_deflated_sizes(*dir);  // the sizes below become allocations
  for (const ZipRecord& r : dir->records) {
    if (!is_weight(r.name) || (r.method != 0 && r.method != 8)) continue;
    const std::optional<uint64_t> local = record_data_at(bytes, r);
    if (!local) continue;
    const uint64_t data_at = *local;
    if (r.method == 8) {
      check(data_at <= file.size() && r.compressed <= file.size() - data_at,
            "zip record " + r.name + " runs past the end of the file (" + std::to_string(r.compressed) +
                " bytes at offset " + std::to_string(data_at) + " of " + std::to_string(file.size()) + ")");
      // Declared stored, the size goes where the compressed size was: a 4-byte field cannot
      // hold 4 GiB, and such a record is inflated after all.
      if (r.compressed_width == 4 && r.uncompressed >= 0xffffffffu) continue;
    }
    reader->skip(r, data_at);
  }
  reader->finish(dir->tail_at);
  return reader;
}

}  // namespace kc
