#include "analyzer/torchscript_archive.h"

#include <caffe2/serialize/file_adapter.h>

#include <cstring>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kc {
namespace {

// The storage locations named by persistent ids in a TorchScript pickle. TorchScript's
// pickler writes each storage as the tuple ('storage', <global>, key, location, numel)
// followed by BINPERSID; strings repeat through the memo. Only what is needed to see those
// tuples is modelled: each stack item is a string or "something else". Stops (returning what
// it found) at an opcode it does not know.
std::vector<std::string> storage_locations(const char* data, size_t size) {
  using Item = std::optional<std::string>;
  std::vector<Item> stack;
  std::vector<size_t> marks;
  std::unordered_map<uint32_t, Item> memo;
  std::vector<std::string> found;
  size_t pos = 0;
  auto need = [&](size_t n) { return pos + n <= size; };
  auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, data + at, 4);
    return v;
  };
  auto pop_to_mark = [&]() -> std::vector<Item> {
    if (marks.empty()) return {};
    size_t m = std::min(marks.back(), stack.size());
    marks.pop_back();
    std::vector<Item> items(stack.begin() + m, stack.end());
    stack.resize(m);
    return items;
  };
  auto pop = [&](size_t n) { stack.resize(stack.size() > n ? stack.size() - n : 0); };
  while (pos < size) {
    const unsigned char op = data[pos++];
    switch (op) {
      case 0x80: pos += 1; break;                                     // PROTO
      case 0x95: pos += 8; break;                                     // FRAME
      case '.': return found;                                         // STOP
      case '(': marks.push_back(stack.size()); break;                 // MARK
      case 'X': case 0x8c: case 0x8d: {                               // BINUNICODE(8), SHORT_
        size_t len_size = op == 'X' ? 4 : op == 0x8c ? 1 : 8;
        if (!need(len_size)) return found;
        uint64_t len = 0;
        std::memcpy(&len, data + pos, len_size);
        pos += len_size;
        if (!need(len)) return found;
        stack.emplace_back(std::string(data + pos, len));
        pos += len;
        break;
      }
      case 'B': case 'C': case 0x8e: {                                // BINBYTES, SHORT_, 8
        size_t len_size = op == 'B' ? 4 : op == 'C' ? 1 : 8;
        if (!need(len_size)) return found;
        uint64_t len = 0;
        std::memcpy(&len, data + pos, len_size);
        pos += len_size + len;
        stack.emplace_back();
        break;
      }
      case 'c': {                                                     // GLOBAL module\nname\n
        for (int line = 0; line < 2; ++line) {
          const void* nl = std::memchr(data + pos, '\n', size - pos);
          if (!nl) return found;
          pos = static_cast<const char*>(nl) - data + 1;
        }
        stack.emplace_back();
        break;
      }
      case 'q': if (!need(1)) return found; if (!stack.empty()) memo[static_cast<unsigned char>(data[pos])] = stack.back(); pos += 1; break;
      case 'r': if (!need(4)) return found; if (!stack.empty()) memo[u32(pos)] = stack.back(); pos += 4; break;
      case 0x94: if (!stack.empty()) memo[static_cast<uint32_t>(memo.size())] = stack.back(); break;  // MEMOIZE
      case 'h': if (!need(1)) return found; stack.push_back(memo[static_cast<unsigned char>(data[pos])]); pos += 1; break;
      case 'j': if (!need(4)) return found; stack.push_back(memo[u32(pos)]); pos += 4; break;
      case 'K': pos += 1; stack.emplace_back(); break;                // BININT1
      case 'M': pos += 2; stack.emplace_back(); break;                // BININT2
      case 'J': pos += 4; stack.emplace_back(); break;                // BININT
      case 'G': pos += 8; stack.emplace_back(); break;                // BINFLOAT
      case 0x8a: if (!need(1)) return found; pos += 1 + static_cast<unsigned char>(data[pos]); stack.emplace_back(); break;  // LONG1
      case 'N': case 0x88: case 0x89: case ')': case ']': case '}':   // NONE, bools, empties
        stack.emplace_back();
        break;
      case 't': case 'l': case 'd': {                                 // TUPLE, LIST, DICT
        auto items = pop_to_mark();
        if (op == 't' && items.size() >= 4 && items[0] == std::string("storage") && items[3])
          found.push_back(*items[3]);
        stack.emplace_back();
        break;
      }
      case 'e': case 'u': pop_to_mark(); break;                       // APPENDS, SETITEMS
      case 0x85: pop(1); stack.emplace_back(); break;                 // TUPLE1
      case 0x86: pop(2); stack.emplace_back(); break;                 // TUPLE2
      case 0x87: pop(3); stack.emplace_back(); break;                 // TUPLE3
      case 'a': case 'b': pop(1); break;                              // APPEND, BUILD
      case 's': pop(2); break;                                        // SETITEM
      case 'R': case 0x81: pop(2); stack.emplace_back(); break;       // REDUCE, NEWOBJ
      case 'Q': pop(1); stack.emplace_back(); break;                  // BINPERSID
      case '0': pop(1); break;                                        // POP
      default: return found;
    }
  }
  return found;
}

std::vector<std::string> locations_in(caffe2::serialize::PyTorchStreamReader& archive, const std::string& record) {
  if (!archive.hasRecord(record)) return {};
  auto [data, size] = archive.getRecord(record);
  return storage_locations(static_cast<const char*>(data.get()), size);
}

class WeightSkippingReader : public caffe2::serialize::ReadAdapterInterface {
 public:
  WeightSkippingReader(const std::string& path, std::vector<std::pair<uint64_t, uint64_t>> skip)
      : file_(path), skip_(std::move(skip)) {}
  size_t size() const override { return file_.size(); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* what) const override {
    for (const auto& [begin, end] : skip_)
      if (pos >= begin && pos + n <= end) return n;
    return file_.read(pos, buf, n, what);
  }

 private:
  caffe2::serialize::FileAdapter file_;
  std::vector<std::pair<uint64_t, uint64_t>> skip_;  // [begin, end) byte ranges of weights
};

}  // namespace

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

std::shared_ptr<caffe2::serialize::ReadAdapterInterface> weight_skipping_reader(
    const std::string& path, caffe2::serialize::PyTorchStreamReader& archive) {
  std::vector<std::pair<uint64_t, uint64_t>> skip;
  for (const std::string& name : archive.getAllRecords()) {
    // Parameters and buffers, and the example inputs a trace keeps (activation-sized).
    if (name.rfind("data/", 0) != 0 && name.rfind("traced_inputs/", 0) != 0) continue;
    const uint64_t offset = archive.getRecordOffset(name);
    skip.emplace_back(offset, offset + archive.getRecordSize(name));
  }
  return std::make_shared<WeightSkippingReader>(path, std::move(skip));
}

}  // namespace kc
