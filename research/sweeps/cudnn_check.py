"""cuDNN's engine choices asked without a GPU against the GPU's own (validate/device_cudnn.sh).

  cudnn_check.py queries OUT.jsonl
      the queries of data/sweeps/cudnn_engines.jsonl.gz, one JSON line each, in the cache's order
  cudnn_check.py compare QUERIES.jsonl BUILTIN.jsonl GPU.jsonl
      how many answers, asked as the built-in H200 and as the GPU itself, equal the cache's
      (engine, knobs, workspace and next engine each), and the first differences
  cudnn_check.py pointwise SWEEP_GPU.jsonl.gz COUNT SEED [LOCAL.jsonl]
      data/sweeps/cudnn_gpu_pointwise.csv.gz from device_cudnn.sh sweep's answers (for
      `cudnn_queries.py COUNT SEED`): per query the GPU's engine, then cuDNN's answer without a
      GPU (LOCAL, kernelcount-cudnn-engines' output for the same queries, else asked here):
      engine, 12 knobs, workspace, next engine; -1 for an error
"""
import gzip
import json
import os
import sys
from collections import Counter

CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "sweeps",
                     "cudnn_engines.jsonl.gz")


def cache():
    with gzip.open(CACHE, "rt") as f:
        return [json.loads(line) for line in f]


def lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def compare(queries, builtin, gpu):
    known = {c["q"]: c["e"] for c in cache()}
    with open(queries) as f:
        qs = [line.strip() for line in f]
    answers = {"built-in H200": lines(builtin), "GPU 0 itself": lines(gpu)}
    for name, got in list(answers.items()):
        if len(got) != len(qs):
            print(f"{name}: {len(got)} answers for {len(qs)} queries")
            del answers[name]
    fields = ("engine", "knobs", "workspace", "next_engine")
    both = [("built-in H200 against GPU 0", None)] if len(answers) == 2 else []
    for name, got in list(answers.items()) + both:
        if got is None:  # the two device runs against each other
            pairs = list(zip(answers["built-in H200"], answers["GPU 0 itself"]))
        else:
            pairs = [(known.get(q), a) for q, a in zip(qs, got)]
        same = Counter()
        diffs = []
        for i, (want, a) in enumerate(pairs):
            for fld in fields:
                same[fld] += want is not None and want.get(fld) == a.get(fld)
            if want != a and len(diffs) < 5:
                diffs.append(f"  {qs[i]}: {want} -> {a}")
        total = len(pairs)
        against = "" if got is None else " against the cache"
        print(f"{name}{against}: " + ", ".join(f"{fld} {same[fld]}/{total}" for fld in fields) +
              f"; all equal {sum(w == a for w, a in pairs)}/{total}")
        if diffs:
            print("\n".join(diffs))


def pointwise(sweep, count, seed, local=None):
    import subprocess
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "generators"))
    import cudnn_queries
    queries = [json.dumps(q, separators=(",", ":")) for q in cudnn_queries.draw(int(count), int(seed))]
    with gzip.open(sweep, "rt") as f:
        gpu = {d["q"]: d["e"] for d in map(json.loads, f)}
    if local:
        answers = [json.loads(line) for line in open(local)]
    else:
        tool = os.path.join(os.path.dirname(CACHE), "..", "..", "build", "validate", "kernelcount-cudnn-engines")
        out = subprocess.run([tool], input="\n".join(queries) + "\n", capture_output=True, text=True, check=True)
        answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(answers) == len(queries)
    path = os.path.join(os.path.dirname(CACHE), "cudnn_gpu_pointwise.csv.gz")
    with gzip.GzipFile(path, "wb", mtime=0) as f:
        f.write(f"# cudnn_queries.py {count} {seed} -- the GPU's engine, then without a GPU: engine, knobs "
                "(fit_conv.py's KNOBS), workspace, next engine\n".encode())
        for q, a in zip(queries, answers):
            g = gpu[q].get("engine", -1)
            row = [g, -1] + [-1] * 14 if "error" in a else [g, a["engine"], *a["knobs"], a["workspace"], a["next_engine"]]
            f.write((",".join(map(str, row)) + "\n").encode())
    print(f"wrote {path}: {len(queries)} queries")


def main():
    if sys.argv[1] == "queries":
        with open(sys.argv[2], "w") as f:
            for c in cache():
                f.write(c["q"] + "\n")
    elif sys.argv[1] == "compare":
        compare(*sys.argv[2:5])
    elif sys.argv[1] == "pointwise":
        pointwise(*sys.argv[2:6])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
