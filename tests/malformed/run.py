#!/usr/bin/env python3
"""Runs kernelcount on every case of a corpus from generate.py and checks the contract:
exit 0, 1 or 2 (never a signal), within 10 s of CPU time (prlimit --cpu) and 10 s of wall time
(timeout -s KILL; --wall-limit raises it on a machine shared with other loads, where wall time
says little) and 1 GiB of peak resident memory, with a 4 GiB address-space cap (prlimit) so
that a runaway allocation ends; exit 2
prints exactly one line "kernelcount: error: ..." (never "internal"), exit 0 prints nothing
on stderr; and cases whose input is known bad exit 2.

Usage: run.py KERNELCOUNT CORPUS [--jobs N] [--show N] [--resume]
Prints a table of outcomes per class and every failure; exit status 1 if any case failed. Each
result is appended to CORPUS/results.jsonl as it comes; --resume skips the cases already there.
"""
import argparse
import collections
import concurrent.futures
import json
import random
import os
import resource
import subprocess
import sys
import threading
import time

TIME_LIMIT_S = 10
RSS_LIMIT_KIB = 1 << 20  # 1 GiB
AS_LIMIT_BYTES = 4 << 30  # libtorch maps ~1.5 GiB of address space before main()


def run_case(kc, case, wall_limit):
    stdout = open(case["stdout"], "wb") if case["stdout"] else subprocess.DEVNULL
    cmd = ["timeout", "-s", "KILL", str(wall_limit), "prlimit", f"--as={AS_LIMIT_BYTES}",
           f"--cpu={TIME_LIMIT_S}:{TIME_LIMIT_S + 1}", kc] + case["args"]
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.monotonic() - start
    cpu = usage.ru_utime + usage.ru_stime
    if stdout is not subprocess.DEVNULL:
        stdout.close()
    err = err.decode("utf-8", "replace")
    lines = [l for l in err.split("\n") if l != ""]
    rc = p.returncode
    problems = []
    if rc == 137 or rc < 0:
        problems.append("killed (wall time limit)" if elapsed >= wall_limit - 0.5 else
                        "killed (CPU time limit)" if cpu >= TIME_LIMIT_S - 0.5 else f"signal {-rc if rc < 0 else 9}")
    elif rc == 124:
        problems.append("timed out")
    elif rc not in (0, 1, 2):
        problems.append(f"exit {rc}")
    if usage.ru_maxrss > RSS_LIMIT_KIB:
        problems.append(f"peak RSS {usage.ru_maxrss // 1024} MiB")
    if rc == 2 and (len(lines) != 1 or not lines[0].startswith("kernelcount: error: ")):
        problems.append(f"{len(lines)} stderr lines")
    if rc == 2 and lines and lines[0].startswith("kernelcount: error: internal:"):
        problems.append("internal error")
    if rc == 0 and lines:
        problems.append("stderr on success")
    if rc == 1 and any(not l.startswith("kernelcount: over budget: ") for l in lines):
        problems.append("unexpected stderr with exit 1")
    if case["expect"] != "any" and not problems and str(rc) != case["expect"]:
        problems.append(f"exit {rc}, expected {case['expect']}")
    if cpu > TIME_LIMIT_S and not problems:
        problems.append(f"{cpu:.1f} s of CPU time")
    return {"case": case, "rc": rc, "elapsed": elapsed, "cpu_s": cpu, "rss_kib": usage.ru_maxrss, "stderr": lines[:3],
            "problems": problems}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernelcount")
    ap.add_argument("corpus")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--show", type=int, default=50)
    ap.add_argument("--wall-limit", type=float, default=TIME_LIMIT_S)
    ap.add_argument("--resume", action="store_true", help="skip the cases already passed in results.jsonl")
    ap.add_argument("--shuffle", action="store_true", help="run in a fixed random order (a partial run samples every class)")
    a = ap.parse_args()
    kc = os.path.abspath(a.kernelcount)
    with open(os.path.join(a.corpus, "cases.jsonl")) as f:
        cases = [json.loads(l) for l in f]
    start = time.monotonic()
    results_path = os.path.join(a.corpus, "results.jsonl")
    done = []
    if a.resume and os.path.exists(results_path):
        with open(results_path) as f:
            done = [r for r in map(json.loads, filter(str.strip, f)) if not r["problems"]]
    done_ids = {r["case"]["id"] for r in done}
    todo = [c for c in cases if c["id"] not in done_ids]
    if a.shuffle:
        random.Random(1).shuffle(todo)
    lock = threading.Lock()
    with open(results_path + ".new", "w") as out:
        for r in done:
            out.write(json.dumps(r) + "\n")
    os.replace(results_path + ".new", results_path)
    with open(results_path, "a") as out:
        def one(c):
            r = run_case(kc, c, a.wall_limit)
            with lock:
                out.write(json.dumps(r) + "\n")
                out.flush()
            return r
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            results = done + list(ex.map(one, todo))
    by_class = collections.defaultdict(collections.Counter)
    for r in results:
        by_class[r["case"]["class"]][f"exit {r['rc']}" if not r["problems"] else "FAIL"] += 1
    print(f"{'class':16} {'cases':>6} {'exit 0':>7} {'exit 1':>7} {'exit 2':>7} {'FAIL':>5}")
    total = collections.Counter()
    for cls in sorted(by_class):
        cnt = by_class[cls]
        n = sum(cnt.values())
        total.update(cnt)
        print(f"{cls:16} {n:6} {cnt['exit 0']:7} {cnt['exit 1']:7} {cnt['exit 2']:7} {cnt['FAIL']:5}")
    print(f"{'all':16} {len(results):6} {total['exit 0']:7} {total['exit 1']:7} {total['exit 2']:7} {total['FAIL']:5}")
    slowest = max(results, key=lambda r: r.get("cpu_s", 0))
    biggest = max(results, key=lambda r: r["rss_kib"])
    print(f"most CPU {slowest.get('cpu_s', 0):.2f} s ({slowest['case']['class']} #{slowest['case']['id']}); "
          f"largest peak RSS {biggest['rss_kib'] // 1024} MiB ({biggest['case']['class']} #{biggest['case']['id']}); "
          f"wall {time.monotonic() - start:.0f} s")
    failed = [r for r in results if r["problems"]]
    for r in failed[:a.show]:
        args = " ".join(x if len(x) < 120 else x[:117] + "..." for x in r["case"]["args"])
        print(f"FAIL #{r['case']['id']} [{r['case']['class']}] {'; '.join(r['problems'])}: kernelcount {args}"
              + (f" > {r['case']['stdout']}" if r["case"]["stdout"] else ""))
        for l in r["stderr"]:
            print("    " + (l if len(l) < 300 else l[:297] + "..."))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
