"""Every exercise's answer against its committed GPU measurement, and the checker's verdicts.

For each exercises/*.json: the per-op kernels, memcpys and memsets and their totals equal the
kernelcount-validate measurement the file names (data/results/...), op by op; the transfers
and host syncs equal kernelcount's current prediction for the same archive; `kernelcount exercise
check N` accepts the answer (exit 0) and rejects a wrong one (exit 1), naming an op to look at.
Usage: python3 tests/exercises/check_exercises.py KERNELCOUNT   (from the repository root)
"""
import glob
import json
import subprocess
import sys


def measurement(where):
    path, _, key = where.partition("#")
    doc = json.load(open(path))
    return doc[key] if key else doc


def main():
    kc = sys.argv[1]
    failures = []
    files = sorted(glob.glob("exercises/*.json"))
    if len(files) < 15:
        failures.append(f"only {len(files)} exercises")
    for path in files:
        ex = json.load(open(path))
        ans, n = ex["answer"], ex["number"]
        fail = lambda msg: failures.append(f"{path}: {msg}")  # noqa: E731
        meas = measurement(ex["measurement"])
        if meas["model"]["path"] != ex["model"]:
            fail(f"measured {meas['model']['path']}, exercise uses {ex['model']}")
        if len(meas["ops"]) != len(ans["ops"]):
            fail(f"{len(ans['ops'])} ops in the answer, {len(meas['ops'])} measured")
        for mine, m in zip(ans["ops"], meas["ops"]):
            got = (mine["op"], mine["kernels"], mine["memcpy"], mine["memset"])
            want = (m["op"], m["measured"]["kernels"], m["measured"]["memcpy"], m["measured"]["memset"])
            if got != want:
                fail(f"op {m['index']}: answer {got}, measured {want}")
        s = meas["summary"]["measured"]
        if (ans["kernels"], ans["memcpy"], ans["memset"]) != (s["kernels"], s["memcpy"], s["memset"]):
            fail(f"totals {ans['kernels']}/{ans['memcpy']}/{ans['memset']} differ from the measured "
                 f"{s['kernels']}/{s['memcpy']}/{s['memset']}")
        pred = json.loads(subprocess.run([kc, ex["model"], "--format", "json", *ex.get("model_args", [])],
                                         capture_output=True, text=True, check=True).stdout)
        if ans["transfers"] != pred["totals"]["eager_hbm_transfers"]:
            fail(f"transfers {ans['transfers']}, kernelcount predicts {pred['totals']['eager_hbm_transfers']}")
        if ans["host_syncs"] != pred["totals"]["host_syncs"]:
            fail(f"host syncs {ans['host_syncs']}, kernelcount predicts {pred['totals']['host_syncs']}")
        for i, (mine, p) in enumerate(zip(ans["ops"], pred["ops"])):
            if mine["transfers"] != p["hbm"]["reads"] + p["hbm"]["writes"]:
                fail(f"op {i}: transfers {mine['transfers']}, predicted {p['hbm']['reads'] + p['hbm']['writes']}")

        def check(*args):
            return subprocess.run([kc, "exercise", "check", str(n), *args], capture_output=True, text=True)

        right = check("--kernels", str(ans["kernels"]), "--transfers", str(ans["transfers"]),
                      "--memcpy", str(ans["memcpy"]), "--memset", str(ans["memset"]), "--syncs", str(ans["host_syncs"]))
        if right.returncode != 0:
            fail(f"the right answer was rejected: {right.stdout}{right.stderr}")
        per_op = check("--kernels", ",".join(str(o["kernels"]) for o in ans["ops"]),
                       "--transfers", ",".join(str(o["transfers"]) for o in ans["ops"]))
        if per_op.returncode != 0:
            fail(f"the right per-op answer was rejected: {per_op.stdout}")
        # One op off by one: the checker must say wrong and name that op.
        off = [o["kernels"] for o in ans["ops"]]
        off[-1] += 1
        wrong = check("--kernels", ",".join(map(str, off)), "--transfers", str(ans["transfers"]))
        last = ans["ops"][-1]
        if wrong.returncode != 1 or f"op {last['index']} {last['op']}" not in wrong.stdout:
            fail(f"a wrong per-op answer was not pinned on op {last['index']}: {wrong.stdout}{wrong.stderr}")
        wrong_total = check("--kernels", str(ans["kernels"] + 1), "--transfers", str(ans["transfers"]))
        if wrong_total.returncode != 1 or "wrong kernels" not in wrong_total.stdout:
            fail(f"a wrong total was accepted: {wrong_total.stdout}{wrong_total.stderr}")
    for f in failures:
        print("FAIL", f)
    if not failures:
        print(f"exercises: {len(files)} answers match their H200 measurements and the checker")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
