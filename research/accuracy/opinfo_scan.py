#!/usr/bin/env python3
"""Which exported programs kernelcount refuses, and which ops in them no launch rule knows: the
whole OpInfo universe checked without a GPU.

research/corpus/export_opinfo.py exports every sample of every OpInfo on the host in minutes
(`--samples 100000`: about 33,500 samples of 688 OpInfos with PyTorch 2.11, two cores, about 10
minutes); this runs kernelcount (`--no-measured`: the launch rules alone, as a model nobody
measured meets them) on each program and prints, per op with no rule, its instances, its distinct
signatures (inputs' shapes, dtypes and strides with the literal arguments) and an example, and
every refusal with its one-line error. It says nothing about whether a known op's count is right:
that takes the real run (validate/device_exported_sets.sh).

    python3 research/corpus/export_opinfo.py /tmp/opinfo_all --samples 100000
    python3 research/accuracy/opinfo_scan.py build/kernelcount /tmp/opinfo_all [--names OUT]

--names OUT writes the names of the programs holding an op with no rule, one a line: the list
export_opinfo.py --names exports again on the GPU machine, so that the rules written for them are
measured; --also N adds N of the other programs, the first N by the CRC-32 of their names (a fixed
draw anyone can repeat), as the held-out part of that look. Exit status 1 when any program is
refused or has an op with no rule.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import zlib


def scan(kc, path):
    p = subprocess.run([kc, path, "--format", "json", "--no-measured"], capture_output=True, text=True)
    if p.returncode not in (0, 1):  # 1: a budget failed; there are none here
        return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]}
    unknown = []
    for o in json.loads(p.stdout)["ops"]:
        if o["launches"]["known"]:
            continue
        sig = json.dumps([[i["shape"], i["dtype"], i.get("strides")] for i in o["inputs"]] +
                         [[a["name"], a["value"]] for a in o["args"] if "value" in a])
        unknown.append((o["op"], o["launches"]["rule"], sig))
    return {"unknown": unknown}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernelcount")
    ap.add_argument("folders", nargs="+", help="folders of exported .pt2 programs")
    ap.add_argument("--names", help="write the names of the programs with an op no rule knows here")
    ap.add_argument("--also", type=int, default=0, help="with --names: add this many other programs")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    files = sorted(os.path.join(d, f) for d in a.folders for f in os.listdir(d) if f.endswith(".pt2"))
    if not files:
        sys.exit("opinfo_scan: no .pt2 programs in %s" % ", ".join(a.folders))
    refused = {}
    by_op = collections.defaultdict(lambda: {"n": 0, "sigs": set(), "why": collections.Counter(), "example": ""})
    flagged = set()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for path, r in zip(files, pool.map(lambda f: scan(a.kernelcount, f), files)):
            name = os.path.basename(path)[:-len(".pt2")]
            if "error" in r:
                refused[name] = r["error"]
                continue
            for op, why, sig in r["unknown"]:
                e = by_op[op]
                e["n"] += 1
                e["sigs"].add(sig)
                e["why"][why] += 1
                e["example"] = e["example"] or name
                flagged.add(name)
    instances = sum(e["n"] for e in by_op.values())
    print("%d programs: %d refused, %d with an op no launch rule knows (%d op instances, %d ops)" %
          (len(files), len(refused), len(flagged), instances, len(by_op)))
    for op, e in sorted(by_op.items(), key=lambda kv: (-kv[1]["n"], kv[0])):
        why = "; ".join(w for w, _ in e["why"].most_common(2))
        print("  %-45s x%-5d %4d signatures  e.g. %s  [%s]" % (op, e["n"], len(e["sigs"]), e["example"], why))
    for name, err in sorted(refused.items()):
        print("  refused %s: %s" % (name, err))
    if a.names:
        names = [os.path.basename(p)[:-len(".pt2")] for p in files]
        others = sorted((n for n in names if n not in flagged and n not in refused),
                        key=lambda n: (zlib.crc32(n.encode()), n))
        with open(a.names, "w") as f:
            f.writelines(n + "\n" for n in sorted(flagged | set(others[:a.also])))
    sys.exit(1 if refused or flagged else 0)


if __name__ == "__main__":
    main()
