"""The select_sizes sweep (sweep.py --families select_sizes) against the launch counts the
nonzero, masked_select and index rules give (passes/torch2_11/selection.cc, indexing.cc),
restated here from the same ATen mechanisms:

  nonzero      a copy of a non-contiguous input; cub's count: 1 kernel up to 4096 elements, 2
               above; the count copied to the host (1 memcpy); for rank >= 1 cub's select (2, the
               init alone over no elements); for rank >= 2 write_indices when any element is
               non-zero
  masked_select  nonzero of the mask expanded to self's shape (a copy when expanded) + 1 gather
  x[mask]      nonzero of the mask + 1 gather
  x[i, j]      1 gather, + a copy of each index whose strides, once broadcast, are not
               contiguous, when the indices' broadcast strides differ

The rules assume at least one selected element (a shape-only run cannot know); a configuration
whose random mask selected nothing launches what the mechanism launches for a count of 0, and is
counted apart. Standard library only:
    python3 research/sweeps/check_selection.py [data/sweeps/sweep_select_sizes.jsonl.gz]
"""
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def contiguous(shape, stride):
    expected = 1
    for size, st in reversed(list(zip(shape, stride))):
        if size == 1:
            continue
        if st != expected:
            return False
        expected *= size
    return True


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def nonzero(n, rank, is_contiguous, selected=True):
    k = (0 if is_contiguous else 1) + (1 if n <= 4096 else 2)
    if rank >= 1:
        k += 2 if n > 0 else 1
    if rank >= 2 and n > 0 and selected:
        k += 1
    return k


def broadcast(*shapes):
    rank = max(len(s) for s in shapes)
    padded = [[1] * (rank - len(s)) + list(s) for s in shapes]
    return [max(dims) for dims in zip(*padded)]


def expanded_strides(shape, stride, target):
    """The strides expand() gives a tensor at `target` (inferExpandGeometry)."""
    out = [0] * len(target)
    lead = len(target) - len(shape)
    for i in range(len(target) - 1, -1, -1):
        d = i - lead
        size = shape[d] if d >= 0 else 1
        st = stride[d] if d >= 0 else (target[i + 1] * out[i + 1] if i + 1 < len(target) else 1)
        out[i] = 0 if size != target[i] else st
    return out


def predict(r):
    """(kernels with something selected, kernels with nothing selected)."""
    ins = r["inputs"]
    shape, stride, _ = ins[0]
    n = numel(shape)
    if r["op"] == "nonzero":
        c = contiguous(shape, stride)
        return nonzero(n, len(shape), c), nonzero(n, len(shape), c, False)
    if r["op"] == "masked_select":
        mask = ins[1][0]
        wide = broadcast(shape, mask)
        c = wide == list(mask) or numel(wide) <= 1
        return nonzero(numel(wide), len(wide), c) + 1, nonzero(numel(wide), len(wide), c, False)
    if r["op"] == "index:x[mask]":
        return nonzero(n, len(shape), True) + 1, nonzero(n, len(shape), True, False)
    (sa, ta, _), (sb, tb, _) = ins[1], ins[2]
    wide = broadcast(sa, sb)
    strides = [expanded_strides(sa, ta, wide), expanded_strides(sb, tb, wide)]
    copies = 0 if strides[0] == strides[1] else sum(not contiguous(wide, s) for s in strides)
    return 1 + copies, 1 + copies


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "data", "sweeps", "sweep_select_sizes.jsonl.gz")
    tally = {"exact": 0, "nothing selected": 0, "miss": 0}
    for line in gzip.open(path, "rt"):
        r = json.loads(line)
        if "op" not in r or r.get("error"):
            continue
        want_memcpy = 0 if r["op"].startswith("index:x[i") else 1
        k, k0 = predict(r)
        if r["kernels"] == k and r["memcpy"] == want_memcpy:
            tally["exact"] += 1
        elif r["kernels"] == k0:
            tally["nothing selected"] += 1
        else:
            tally["miss"] += 1
            print("miss", r["op"], r["params"], "predicted", k, "measured", r["kernels"], r["memcpy"])
    total = sum(tally.values())
    print("select_sizes: %d configurations: %d exact, %d where the random mask selected nothing (launches as "
          "for a count of 0), %d misses" % (total, tally["exact"], tally["nothing selected"], tally["miss"]))


if __name__ == "__main__":
    main()
