"""The gemm_random sweeps (sweep.py: gemm_random, gemm_random_b) as a compact table: one CSV row per GEMM, and the launch
sequences (kernel names in order) stored once each in a gzipped JSON list the rows index, so that
hundreds of thousands of measured GEMMs stay small enough to commit.

    python3 research/sweeps/gemm_table.py OUT.csv.gz SWEEP.jsonl[.gz]... [--paths PATHS.json.gz]

Columns: op (linear | addmm | mm | bmm), dtype, bias (1: a 1-D bias in the call), b, m, k, n,
ta, tb (1: cuBLAS reads that operand transposed), kernels, memcpy, memset, path (index into
PATHS.json.gz, default OUT with .paths.json.gz). Rows with an error are left out and counted.
"""
import argparse
import csv
import gzip
import json
import sys

COLUMNS = ["op", "dtype", "bias", "b", "m", "k", "n", "ta", "tb", "kernels", "memcpy", "memset", "path"]


def rows_of(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r.get("family", "").startswith("gemm_random"):
                yield r


def table_row(r, paths, path_index):
    p = r["params"]
    bias = 1 if r["op"] == "addmm" or p.get("bias") else 0
    tb = 1 if r["op"] == "linear" or p.get("tb") else 0  # linear multiplies by the weight transposed
    seq = json.dumps([[name[:120], n] for name, n in r["kernel_names"]])
    if seq not in path_index:
        path_index[seq] = len(paths)
        paths.append(json.loads(seq))
    return [r["op"], p["dtype"], bias, p["b"], p["m"], p["k"], p["n"], int(bool(p.get("ta"))), tb,
            r["kernels"], r["memcpy"], r["memset"], path_index[seq]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("sweeps", nargs="+")
    ap.add_argument("--paths")
    a = ap.parse_args()
    paths_out = a.paths or a.out.replace(".csv.gz", "") + ".paths.json.gz"
    paths, path_index, n, errors = [], {}, 0, 0
    with gzip.open(a.out, "wt", compresslevel=9, newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for s in a.sweeps:
            for r in rows_of(s):
                if "error" in r or "kernels" not in r:
                    errors += 1
                    continue
                w.writerow(table_row(r, paths, path_index))
                n += 1
    with gzip.open(paths_out, "wt", compresslevel=9) as f:
        json.dump(paths, f, separators=(",", ":"))
    print(f"gemm_table: {n} GEMMs, {len(paths)} distinct launch sequences, {errors} left out (errors)", file=sys.stderr)


if __name__ == "__main__":
    main()
