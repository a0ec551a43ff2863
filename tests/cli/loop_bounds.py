#!/usr/bin/env python3
"""TorchScript loops are counted, not run: a `while True` around a layer, a layer in a loop of
10**12 trips, and loops of x.size(0) // 4 trips at 4,000,000 rows each end with a report or a
one-line error, within 1 GiB of memory. The CPU time each case took is printed, not asserted:
a shared machine's timing is no test (the 2 s bound is a measurement: run this script alone);
an unrolling without bound shows as the 60 s timeout. With --sanitized (an ASan build, whose
shadow memory, redzones and freed-memory quarantine multiply what a process holds) the memory is
printed, not asserted.
Usage: tests/cli/loop_bounds.py KERNELCOUNT [--sanitized]   (from the repository root)"""
import resource
import subprocess
import sys

RSS_KB = 1 << 20
CASES = [  # model, input, expected exit status, what stderr (status 2) or stdout (status 0) holds
    ("scripted_while_true.pt", "8x16", 2, "a loop runs its body 9223372036854775807 times"),
    ("scripted_huge_range.pt", "8x16", 2, "a loop runs its body 1000000000000 times"),
    ("scripted_row_loop_layer.pt", "4000000x16", 0, "linear x999999"),
    ("scripted_row_loop.pt", "4000000x16", 0, "mul.Scalar x999999"),
    ("scripted_list_loop.pt", "4000000x16", 2, "more than 200000 ops for these inputs"),
]


def main():
    kc, failed = sys.argv[1], 0
    sanitized = "--sanitized" in sys.argv[2:]
    for model, shape, want_status, want in CASES:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run([kc, f"tests/models/{model}", "--input", shape, "--by", "op"], capture_output=True,
                           text=True, timeout=60)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        err = p.stderr.strip().splitlines()
        text = p.stdout if want_status == 0 else p.stderr
        problems = []
        if p.returncode != want_status:
            problems.append(f"exit status {p.returncode}, expected {want_status}")
        if want not in text:
            problems.append(f"no '{want}' in its output")
        if want_status == 2 and (len(err) != 1 or not err[0].startswith("kernelcount: error: ")):
            problems.append("not one error line")
        # ru_maxrss of the children is the largest one so far: a case over the bound shows here.
        if after.ru_maxrss > RSS_KB and not sanitized:
            problems.append(f"{after.ru_maxrss} KB resident, more than 1 GiB")
        status = "FAIL" if problems else "ok"
        print(f"{status} {model} --input {shape}: {cpu:.2f} s CPU, {after.ru_maxrss // 1024} MiB peak so far"
              + ("; " + "; ".join(problems) if problems else ""))
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
