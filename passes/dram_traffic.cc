#include "passes/dram_traffic.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <map>
#include <string>

#include "analyzer/error.h"
#include "passes/hbm_traffic.h"
#include "passes/kernel_steps.h"

namespace kc {
namespace {

// A range of device memory as the caching allocator hands it out, cut into segments that the
// L2 model tracks one by one: a kernel streams through its arrays side by side, segment by
// segment, so a large array's head is evicted while its tail is still resident.
struct Segment {
  double size = 0;
  double resident = 0;  // bytes in L2
  double dirty = 0;     // of those, bytes written and not yet written back
  // Its neighbours in the LRU list (toward the most and the least recently used), -1 at an
  // end: the list is threaded through the segments, so a touch allocates nothing.
  int newer = -1, older = -1;
  bool cached = false;  // in the LRU list
  int stamp = 0;        // with ways: its place in Recency
};

// The bytes of segments touched after a given one, in O(log n): a Fenwick tree of segment
// sizes by the order of their last touch (stamps), renumbered when the stamps run out.
class Recency {
 public:
  // Gives segment `size` the next stamp; 0 when the stamps ran out (renumber, then retry).
  int add(double size) {
    if (next_ + 1 >= static_cast<int>(tree_.size())) return 0;
    change(++next_, size);
    live_ += size;
    return next_;
  }
  void remove(int stamp, double size) {
    change(stamp, -size);
    live_ -= size;
  }
  // Bytes of the segments with a later stamp than `stamp`.
  double after(int stamp) const {
    double before = 0;
    for (int i = stamp; i > 0; i -= i & -i) before += tree_[i];
    return std::max(0.0, live_ - before);
  }
  double live() const { return live_; }
  // Room for `n` more stamps than the `count` live ones, which the caller adds again in order.
  void reset(int count) {
    tree_.assign(static_cast<size_t>(2 * count + 1024), 0.0);
    next_ = 0;
    live_ = 0;
  }

 private:
  void change(int i, double d) {
    for (; i < static_cast<int>(tree_.size()); i += i & -i) tree_[i] += d;
  }
  std::vector<double> tree_ = std::vector<double>(1024, 0.0);
  int next_ = 0;
  double live_ = 0;
};

struct Block {
  int64_t size = 0;
  int first = 0, count = 0;  // its segments
};

constexpr int64_t kSegmentBytes = 2 << 20;
constexpr int kMaxSegments = 16;

// A write-back L2 with least-recently-used replacement, at the granularity of segments; with
// ways, a segment keeps of its lines the share that survives the data touched since (survive).
class L2 {
 public:
  L2(int64_t capacity, int ways) : capacity_(static_cast<double>(capacity)), ways_(ways) {}

  int add(int64_t size) {
    Block b;
    b.size = size;
    b.first = static_cast<int>(segments_.size());
    b.count = static_cast<int>(std::clamp<int64_t>((size + kSegmentBytes - 1) / kSegmentBytes, 1, kMaxSegments));
    for (int k = 0; k < b.count; ++k) {
      Segment seg;
      seg.size = static_cast<double>(size) / b.count;
      segments_.push_back(seg);
    }
    blocks_.push_back(b);
    return static_cast<int>(blocks_.size()) - 1;
  }
  int64_t size(int b) const { return blocks_[b].size; }
  int segments(int b) const { return blocks_[b].count; }

  // Reads the share `bytes / size` of segment k of block b; returns the bytes from DRAM.
  double read(int b, int k, int64_t bytes, DramTraffic& t) {
    Segment& seg = segment(b, k);
    survive(blocks_[b].first + k);
    const double share = std::min(1.0, static_cast<double>(bytes) / static_cast<double>(blocks_[b].size));
    const double miss = share * (seg.size - seg.resident);
    seg.resident += miss;
    total_ += miss;
    touch(blocks_[b].first + k);
    evict(t);
    return miss;
  }

  // Writes the share `bytes / size` of segment k of block b: allocated in L2 and dirty, no DRAM
  // traffic until evicted. Not `dirty`: a clean copy of lines the other partition holds, which
  // takes room and is dropped when evicted.
  void write(int b, int k, int64_t bytes, DramTraffic& t, bool dirty = true) {
    Segment& seg = segment(b, k);
    survive(blocks_[b].first + k);
    const double share = std::min(1.0, static_cast<double>(bytes) / static_cast<double>(blocks_[b].size));
    const double add = share * (seg.size - seg.resident);
    if (dirty) seg.dirty += share * (seg.size - seg.dirty);
    seg.resident += add;
    total_ += add;
    touch(blocks_[b].first + k);
    evict(t);
  }

  // Drops segment k of block b from the L2 without writing it back: a copy made stale by a write
  // to the lines it copies.
  void drop(int b, int k) {
    const int s = blocks_[b].first + k;
    Segment& seg = segments_[s];
    if (!seg.cached) return;
    total_ -= seg.resident;
    seg.resident = seg.dirty = 0;
    unlink(s);
  }

 private:
  Segment& segment(int b, int k) { return segments_[blocks_[b].first + k]; }

  void touch(int s) {
    Segment& seg = segments_[s];
    if (seg.cached) unlink(s);
    seg.older = newest_;
    seg.newer = -1;
    (newest_ >= 0 ? segments_[newest_].newer : oldest_) = s;
    newest_ = s;
    seg.cached = true;
    if (ways_ > 0) stamp(s);
  }

  void unlink(int s) {
    Segment& seg = segments_[s];
    (seg.newer >= 0 ? segments_[seg.newer].older : newest_) = seg.older;
    (seg.older >= 0 ? segments_[seg.older].newer : oldest_) = seg.newer;
    seg.cached = false;
    if (ways_ > 0) recency_.remove(seg.stamp, seg.size);
  }

  // Gives the newest segment s its stamp, renumbering the list oldest first when they ran out.
  void stamp(int s) {
    if ((segments_[s].stamp = recency_.add(segments_[s].size)) > 0) return;
    int count = 0;
    for (int k = oldest_; k >= 0; k = segments_[k].newer) ++count;
    recency_.reset(count);
    for (int k = oldest_; k >= 0; k = segments_[k].newer) segments_[k].stamp = recency_.add(segments_[k].size);
  }

  // The share of a line that survives `bytes` of other lines touched after it, in a hashed
  // set-associative cache of capacity_ and ways_: fewer than ways_ of them land in its set, a
  // Poisson count of mean ways_ x bytes / capacity_. A loss under one line in 10^4 is none (a
  // model whose data fits expects no DRAM traffic, as measured).
  double survival(double bytes) const {
    constexpr double kWhole = 1 - 1e-4;
    const double mean = ways_ * bytes / capacity_;
    double term = std::exp(-mean), sum = term;
    // The terms are never negative: once the sum is past kWhole, the rest cannot change the
    // answer, and recently touched data (most reads) stops after a term or two.
    for (int k = 1; k < ways_ && sum <= kWhole; ++k) {
      term *= mean / k;
      sum += term;
    }
    return sum > kWhole ? 1.0 : sum;
  }

  // With ways: what of segment s is still in L2, given the data touched since it was (its LRU
  // depth); its dirty lines lost are written back now.
  void survive(int s) {
    if (ways_ <= 0 || !segments_[s].cached) return;
    Segment& seg = segments_[s];
    const double keep = survival(recency_.after(seg.stamp));
    written_ += seg.dirty * (1 - keep);
    total_ -= seg.resident * (1 - keep);
    seg.resident *= keep;
    seg.dirty *= keep;
  }

  // Evicts least recently used lines until the L2 holds its capacity (with ways: drops the
  // segments so deep that nothing of them survives), charging write-backs to t.
  void evict(DramTraffic& t) {
    if (ways_ > 0) {
      // The oldest segment has every other one after it.
      while (oldest_ >= 0 && recency_.live() - segments_[oldest_].size >= kDeepest * capacity_) {
        Segment& v = segments_[oldest_];
        written_ += v.dirty;
        total_ -= v.resident;
        v.resident = v.dirty = 0;
        unlink(oldest_);
      }
      t.write_bytes = static_cast<int64_t>(written_ + 0.5);
      return;
    }
    while (total_ > capacity_ + 0.5 && oldest_ >= 0) {
      Segment& v = segments_[oldest_];
      const double e = std::min(v.resident, total_ - capacity_);
      const double back = v.resident > 0 ? e * v.dirty / v.resident : 0;
      written_ += back;
      v.dirty -= back;
      v.resident -= e;
      total_ -= e;
      if (v.resident <= 0.5) {
        total_ -= v.resident;
        v.resident = v.dirty = 0;
        unlink(oldest_);
      }
    }
    t.write_bytes = static_cast<int64_t>(written_ + 0.5);
  }

 public:
  // Bytes written back so far; an op's share is the difference across it.
  void start_op() { written_ = 0; }

 private:
  // Depth, in capacities, past which no line survives (survival under 1e-6 for 8 or more ways).
  static constexpr double kDeepest = 4;
  double capacity_;
  int ways_;
  Recency recency_;
  double total_ = 0;
  double written_ = 0;
  std::vector<Segment> segments_;
  std::vector<Block> blocks_;
  int newest_ = -1, oldest_ = -1;  // the ends of the LRU list
};

// PyTorch's caching allocator, as far as reuse goes: a request takes the smallest free block
// that holds it (CUDACachingAllocator.cpp's best fit, sizes rounded to 512 bytes), else fresh
// memory. Splitting and merging of free blocks are approximated by the fit below.
class Allocator {
 public:
  explicit Allocator(L2& l2) : l2_(l2) {}

  int allocate(int64_t bytes) {
    const int64_t size = std::max<int64_t>(512, (bytes + 511) / 512 * 512);
    // A much larger free block would be split, its rest kept for other requests: reuse only a
    // block the request mostly fills.
    auto it = free_.lower_bound(size);
    if (it == free_.end() || it->first > 2 * size + (1 << 20)) return l2_.add(size);
    const int b = it->second;
    free_.erase(it);
    return b;
  }

  void release(int b) { free_.emplace(l2_.size(b), b); }

 private:
  L2& l2_;
  std::multimap<int64_t, int> free_;  // free blocks by size
};

// An op with a tensor input that launches nothing and returns as many bytes as that input
// returns the input itself (dropout outside training, contiguous of a contiguous tensor, to()
// of its own dtype): no kernel wrote anything new. Not an empty_like, whose fresh storage needs
// no kernel either.
bool returns_its_input(const Graph& g, const Op& op, const Launch& l) {
  if (!l.known || l.counts.kernels + l.counts.memcpy > 0 || op.outputs.empty() || op.outputs.front() < 0) return false;
  if (op.name.find("empty") != std::string::npos) return false;
  const std::vector<int> in = op.tensor_inputs();
  return !in.empty() && g.values[in.front()].bytes() == g.values[op.outputs.front()].bytes();
}

// Which storage each value addresses: a view, an in-place result or an input returned as it
// is shares its base's; a may-alias result that a kernel copies (contiguous of a transposed
// tensor) has its own.
std::vector<int> storage_of_values(const Graph& g, const std::vector<Launch>& launches) {
  std::vector<int> storage(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) storage[v] = static_cast<int>(v);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    int base = -1;
    // A schema's may-alias result (contiguous, reshape, to) is a view only where no kernel
    // copies it into new storage.
    const Launch& l = launches[i];
    const bool copies = l.known && l.counts.kernels + l.counts.memcpy > 0;
    if ((op.traits.view && !copies) || op.traits.inplace || op.traits.out_variant || returns_its_input(g, op, l)) {
      if (!op.traits.mutated_args.empty()) {
        const Arg& a = op.args.at(op.traits.mutated_args.front());
        if (!a.tensors.empty()) base = a.tensors.front();
      }
      if (base < 0) {
        const std::vector<int> in = op.tensor_inputs();
        if (!in.empty()) base = in.front();
      }
    }
    if (base < 0) continue;
    for (int out : op.outputs)
      if (out >= 0) storage[out] = storage[base];
  }
  return storage;
}

struct L2Model {
  double share = 1;
  int ways = 0;
};

// The target's fitted L2 parameters, or KERNELCOUNT_L2_MODEL="SHARE,WAYS" in their place: the
// leave-one-family-out study (research/accuracy/dram_lofo.py) runs one build at many settings.
L2Model l2_model(const Target& target) {
  L2Model m{target.l2_usable_fraction, target.l2_ways};
  const char* env = std::getenv("KERNELCOUNT_L2_MODEL");
  if (!env || !*env) return m;
  char* end = nullptr;
  m.share = std::strtod(env, &end);
  const bool comma = *end == ',';
  m.ways = comma ? static_cast<int>(std::strtol(end + 1, &end, 10)) : -1;
  if (!comma || *end || !(m.share > 0 && m.share <= 1) || m.ways < 0 || m.ways > 256)
    throw Error(std::string("KERNELCOUNT_L2_MODEL: expected SHARE,WAYS (0 < SHARE <= 1, 0 <= WAYS <= 256), got ") +
                env);
  return m;
}

}  // namespace

std::vector<DramTraffic> run_dram_traffic(const Graph& g, const std::vector<Launch>& launches,
                                          const std::vector<Traffic>& traffic, const Target& target) {
  std::vector<DramTraffic> out(g.ops.size());
  if (target.device.l2_bytes <= 0) {
    for (size_t i = 0; i < g.ops.size(); ++i)
      out[i] = {traffic[i].read_bytes, traffic[i].write_bytes, traffic[i].read_bytes};
    return out;
  }
  const std::vector<int> storage = storage_of_values(g, launches);
  // The op after which each storage is dead (the exported module drops a value after its last
  // use); storages that outlive the call (weights, inputs, outputs) never die.
  const int forever = static_cast<int>(g.ops.size());
  std::vector<int> last_use(g.values.size(), -1);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    g.ops[i].for_each_tensor_input([&](int v) { last_use[storage[v]] = static_cast<int>(i); });
    for (int v : g.ops[i].outputs)
      if (v >= 0) last_use[storage[v]] = std::max(last_use[storage[v]], static_cast<int>(i));
  }
  for (int v : g.outputs)
    if (v >= 0) last_use[storage[v]] = forever;
  for (size_t v = 0; v < g.values.size(); ++v)
    if (g.values[v].producer < 0) last_use[storage[v]] = forever;
  // The storages dead after each op, in order of storage: those of op i are dies[dies_first[i]]
  // to dies[dies_first[i + 1]] (a list per op would cost an allocation each, at the pass's peak).
  auto dies_here = [&](size_t s) {
    return last_use[s] >= 0 && last_use[s] < forever && storage[s] == static_cast<int>(s);
  };
  std::vector<int> dies_first(g.ops.size() + 1, 0);
  for (size_t s = 0; s < g.values.size(); ++s)
    if (dies_here(s)) ++dies_first[last_use[s] + 1];
  for (size_t i = 0; i < g.ops.size(); ++i) dies_first[i + 1] += dies_first[i];
  std::vector<int> dies(dies_first.back());
  {
    std::vector<int> at(dies_first.begin(), dies_first.end() - 1);
    for (size_t s = 0; s < g.values.size(); ++s)
      if (dies_here(s)) dies[at[last_use[s]]++] = static_cast<int>(s);
  }

  // The kernel name families measured for each op's rule, dtype and launches (kernel_steps.h).
  KernelNamesLookup names(target.kernel_names);
  const std::vector<std::string_view> no_families;
  auto steps_of = [&](size_t i, const HbmArrays& arrays, OpSteps& steps) {
    const Launch& l = launches[i];
    const std::string& rule = l.rule == "measured" ? l.fitting_rule : l.rule;
    const int launched = l.counts.kernels + l.counts.memcpy + l.counts.memset;
    const std::vector<std::string_view>& f =
        l.known ? names.find(rule, kernel_names_dtype(g, g.ops[i]), launched).families : no_families;
    KernelLaunches run{0, 0, l.cudnn_engine};
    if (l.known) {
      run.kernels = l.counts.kernels;
      run.memsets = l.counts.memset;
    }
    op_kernel_steps(g, g.ops[i], arrays, rule, f, run, steps);
  };
  const L2Model model = l2_model(target);
  L2 l2(static_cast<int64_t>(static_cast<double>(target.device.l2_bytes) * model.share), model.ways);
  Allocator alloc(l2);
  std::vector<int> block(g.values.size(), -1);  // per storage, its block in the current run
  auto block_of = [&](int v) {
    const int s = storage[v];
    if (block[s] < 0) {
      const int64_t bytes = std::max<int64_t>(g.values[s].bytes(), g.values[v].bytes());
      block[s] = g.values[s].producer < 0 ? l2.add(std::max<int64_t>(bytes, 1)) : alloc.allocate(bytes);
    }
    return block[s];
  };
  std::vector<int> rows_block(g.ops.size(), -1);  // per op, the rows its gather reads
  // An op's arrays and kernels, its scratch blocks and a step's (block, bytes) of each array
  // read and written, kept from op to op for their storage.
  HbmArrays arrays;
  OpSteps op;
  std::vector<int> scratch;
  std::vector<std::pair<int, int64_t>> reads, writes;
  std::vector<bool> both;  // per read of a step, its Access::both
  // Per block, the block standing for its lines' copies in the L2's other partition (-1: none):
  // filled clean by reads `both` sides make (kernel_steps.h), dropped where the block is written.
  std::vector<int> shadow;
  auto shadow_of = [&](int b) {
    if (static_cast<int>(shadow.size()) <= b) shadow.resize(b + 1, -1);
    if (shadow[b] < 0) {
      const int s = l2.add(l2.size(b));
      if (static_cast<int>(shadow.size()) <= s) shadow.resize(s + 1, -1);
      shadow[b] = s;
    }
    return shadow[b];
  };
  // The first run leaves the L2 as the call before the measured one does; the second is reported.
  for (int run = 0; run < 2; ++run) {
    for (size_t i = 0; i < g.ops.size(); ++i) {
      try {
        hbm_arrays(g, static_cast<int>(i), launches[i], arrays);
        steps_of(i, arrays, op);
        DramTraffic t;
        double read = 0;
        l2.start_op();
        scratch.clear();  // blocks of the op's scratch arrays, freed after the call
        for (int64_t bytes : op.scratch_bytes) scratch.push_back(alloc.allocate(bytes));
        // (block, bytes the kernel touches) of a step's array
        auto access = [&](const Access& a) {
          if (a.rows) {
            // The rows a gather reads: its own block, kept from call to call.
            int& b = rows_block[i];
            if (b < 0) b = l2.add(std::max<int64_t>(a.bytes, 1));
            return std::pair{b, a.bytes};
          }
          return std::pair{a.array >= 0 ? block_of(a.array) : scratch[-1 - a.array], a.bytes};
        };
        for (const KernelStep& step : op.steps) {
          // The kernel's arrays advance side by side: segment c of each (at the same fraction).
          reads.clear();
          writes.clear();
          int steps = 0;
          both.clear();
          for (const Access& a : step.reads) {
            reads.push_back(access(a));
            both.push_back(a.both);
            t.kernel_read_bytes = add_checked(t.kernel_read_bytes, a.bytes, "DRAM bytes");
          }
          for (const Access& a : step.writes) writes.push_back(access(a));
          for (const auto& [b, n] : reads) steps = std::max(steps, l2.segments(b));
          for (const auto& [b, n] : writes) steps = std::max(steps, l2.segments(b));
          // Segment k of an array of n segments is reached at step floor(k * steps / n).
          auto due = [&](int n, int c) {
            const int k = (c * n + steps - 1) / steps;
            return k < n && k * steps / n == c ? k : -1;
          };
          for (int c = 0; c < steps; ++c) {
            for (size_t r = 0; r < reads.size(); ++r)
              if (const int k = due(l2.segments(reads[r].first), c); k >= 0) {
                read += l2.read(reads[r].first, k, reads[r].second, t);
                if (both[r]) l2.write(shadow_of(reads[r].first), k, reads[r].second, t, false);
              }
            for (const auto& [b, n] : writes)
              if (const int k = due(l2.segments(b), c); k >= 0) {
                l2.write(b, k, n, t);
                if (b < static_cast<int>(shadow.size()) && shadow[b] >= 0) l2.drop(shadow[b], k);
              }
          }
        }
        if (op.written_through > 0) {
          // Every byte a scattered transform writes past the L2 was a line it allocated there
          // and lost: that churn takes the place of other arrays' lines, whose dirty ones are
          // written back, and clean ones read again, by the ops that next touch them. Replayed
          // as fresh lines of its size, clean (their write-backs are charged above).
          const int churn = l2.add(op.written_through);
          for (int k = 0; k < l2.segments(churn); ++k) l2.write(churn, k, op.written_through, t, false);
        }
        for (int b : scratch) alloc.release(b);
        t.read_bytes = static_cast<int64_t>(read + 0.5);
        t.write_bytes = add_checked(t.write_bytes, op.written_through, "DRAM bytes");
        t.scattered_write_bytes = op.written_through;
        if (const int64_t r = g.ops[i].repeat; r > 1) {
          // Every trip of a loop moves its arrays again; the model replays one.
          t.read_bytes = mul_checked(t.read_bytes, r, "DRAM bytes");
          t.write_bytes = mul_checked(t.write_bytes, r, "DRAM bytes");
          t.kernel_read_bytes = mul_checked(t.kernel_read_bytes, r, "DRAM bytes");
          t.scattered_write_bytes = mul_checked(t.scattered_write_bytes, r, "DRAM bytes");
        }
        if (run == 1) out[i] = t;
        for (int k = dies_first[i]; k < dies_first[i + 1]; ++k)
          if (const int s = dies[k]; block[s] >= 0) {
            alloc.release(block[s]);
            block[s] = -1;
          }
      } catch (const OpError&) {
        throw;
      } catch (const Error& e) {
        throw OpError(static_cast<int>(i), e.what());
      }
    }
    // The call's outputs are dropped by the caller before the next call.
    for (int v : g.outputs)
      if (v >= 0 && g.values[storage[v]].producer >= 0 && block[storage[v]] >= 0) {
        alloc.release(block[storage[v]]);
        block[storage[v]] = -1;
      }
  }
  return out;
}

}  // namespace kc
