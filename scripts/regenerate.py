#!/usr/bin/env python3
"""Every generator of committed files, in one table: what it writes, from what, and what it needs.

Generated files are never edited by hand; each is the output of one command here. `--check`
runs a generator with its outputs set aside, compares what it writes with the committed files,
and puts them back: exit 1 naming each file that is not current. A generator whose needs are
missing here (the pinned scikit-learn for the fitted trees, cuDNN for its answers) is skipped with
a line saying why, and fails the run under `--no-skip`. CI runs `--check --no-skip` under the
generators' Python, which has the pins of scripts/generators-requirements.txt (scripts/test_full.sh).

A generator of a target's data (its folder passes/targets/<folder>/: trees, tables, answers) runs
once for each target of the registry (passes/targets/targets.def, scripts/targets.py), or for the
one named by --target FOLDER.

Run from the repository root after building:
  scripts/regenerate.py                   list the generators
  scripts/regenerate.py [--target FOLDER] NAME...|all       regenerate (then rebuild, review git diff)
  scripts/regenerate.py [--target FOLDER] --check [NAME...] check that the committed outputs are current
  $(scripts/generators_env.sh) scripts/regenerate.py ...   the same with the pinned versions
"""
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile

import targets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KC = "build/kernelcount"
# The generators run under the Python that runs this script (CI: scripts/generators_env.sh's).
PYTHON = sys.executable


def have_pinned():
    """The versions scripts/generators-requirements.txt pins, in this Python (the trees a fit
    writes depend on them)."""
    pins = [l.split("==") for l in open(os.path.join(ROOT, "scripts", "generators-requirements.txt"))
            if "==" in l and not l.startswith("#")]
    def have(name):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return "none"

    wrong = [f"{name} {have(name)}" for name, version in pins if have(name) != version.strip()]
    return None if not wrong else (f"needs the versions scripts/generators-requirements.txt pins (this Python has "
                                    f"{', '.join(wrong)}): run it under scripts/generators_env.sh's Python")


def have_file(path, why):
    return lambda: None if os.path.exists(os.path.join(ROOT, path)) else f"needs {path} ({why})"


def have_cudnn():
    cache = os.path.join(ROOT, "build", "CMakeCache.txt")
    found = os.path.exists(cache) and any(l.startswith("KC_CUDNN_INCLUDE:") and not l.rstrip().endswith("NOTFOUND")
                                          for l in open(cache))
    return None if found else "needs cuDNN 9.19's headers and library (scripts/setup.sh fetches them)"


BUILT = have_file(KC, "build first")


def gen(name, cmd, outputs, source, needs=lambda: None, check=None, slow=False, per_target=False):
    """check: the generator's own check command, where it has one (else outputs are compared);
    slow: left out of a plain --check (CI), run when named; per_target: run once a target, with
    "{target}" in cmd, check and outputs standing for the target's folder name."""
    return {"name": name, "cmd": cmd, "outputs": outputs, "source": source, "needs": needs, "check": check,
            "slow": slow, "per_target": per_target}


def for_target(g, folder):
    """The generator g of a target's data, for the target in that folder."""
    fill = lambda xs: xs and [x.replace("{target}", folder) for x in xs]
    return dict(g, name=f"{g['name']} [{folder}]", cmd=fill(g["cmd"]), check=fill(g["check"]),
                outputs=fill(g["outputs"]))


SCHEMAS = "analyzer/schemas/libtorch-2.11.0.txt"
GENERATORS = [
    gen("schema-table", ["build/kc-schema-table", "--write", SCHEMAS], [SCHEMAS], "the linked LibTorch's operator registry",
        have_file("build/kc-schema-table", "a build with LibTorch"), check=["build/kc-schema-table", "--check", SCHEMAS]),
    gen("reduce-cases", [PYTHON, "generators/reduce_cases.py"], ["tests/passes/reduce_config_cases.inc"],
        "the reduction sweeps (data/sweeps)"),
    gen("measured-table", [PYTHON, "generators/make_measured_table.py", "--target", "{target}"],
        ["passes/targets/{target}/measured.inc"], "data/results' measurements and the rules' predictions", BUILT,
        per_target=True),
    gen("kernel-names", [PYTHON, "generators/make_kernel_names.py", "--target", "{target}"],
        ["passes/targets/{target}/kernel_names.inc"], "data/results' kernel names and the rules' predictions",
        BUILT, per_target=True),
    gen("gemm-tree", [PYTHON, "generators/fit_gemm.py", "--target", "{target}"],
        ["passes/targets/{target}/gemm_tree.inc", "generators/fit_gemm.txt"], "the gemm_random sweeps",
        have_pinned, per_target=True),
    gen("pad-mm-tree", [PYTHON, "generators/fit_pad_mm.py", "--target", "{target}"],
        ["passes/targets/{target}/pad_mm_tree.inc", "generators/fit_pad_mm.txt"], "the pad_mm sweep",
        have_pinned, per_target=True),
    gen("conv-trees", [PYTHON, "generators/fit_conv.py", "--target", "{target}"],
        ["passes/targets/{target}/conv_engine_trees.inc"], "the convolution sweeps and the corpora's measurements",
        have_pinned, per_target=True),
    gen("cudnn-answers", [PYTHON, "generators/cudnn_table.py", "--target", "{target}"],
        ["passes/targets/{target}/cudnn_answers.txt"],
        "cuDNN's heuristics for every committed model's convolutions (about 20 minutes)", have_cudnn,
        check=[PYTHON, "generators/cudnn_table.py", "--target", "{target}", "--check"], slow=True, per_target=True),
    gen("docs", [PYTHON, "generators/update_docs.py"],
        ["README.md", "docs/accuracy.md", "docs/usage.md", "docs/speed.md", "docs/rules.md"],
        "real runs of build/kernelcount and the saved figures", BUILT),
]


def run(g, check, no_skip):
    missing = g["needs"]()
    if missing:
        print(f"regenerate: {g['name']}: {'FAIL' if no_skip else 'skipped'}: {missing}")
        return not no_skip
    own_check = check and g["check"]
    cmd = g["check"] if own_check else g["cmd"]
    print(f"regenerate: {g['name']}: {' '.join(cmd)}", flush=True)
    if not check or own_check:
        done = subprocess.run(cmd, cwd=ROOT)
        if done.returncode != 0:
            print(f"regenerate: {g['name']}: FAIL (exit {done.returncode})")
        return done.returncode == 0
    stale = []
    with tempfile.TemporaryDirectory() as kept:
        for i, path in enumerate(g["outputs"]):
            shutil.copy2(os.path.join(ROOT, path), os.path.join(kept, str(i)))
        try:
            done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL)
            for i, path in enumerate(g["outputs"]):
                with open(os.path.join(ROOT, path), "rb") as a, open(os.path.join(kept, str(i)), "rb") as b:
                    if a.read() != b.read():
                        stale.append(path)
        finally:
            for i, path in enumerate(g["outputs"]):
                shutil.copy2(os.path.join(kept, str(i)), os.path.join(ROOT, path))
    if done.returncode != 0:
        print(f"regenerate: {g['name']}: FAIL (exit {done.returncode})")
        return False
    for path in stale:
        print(f"regenerate: {g['name']}: FAIL {path} is not current (scripts/regenerate.py {g['name']}, "
              "then review git diff)")
    return not stale


def main(args):
    check = "--check" in args
    no_skip = "--no-skip" in args
    args = [a for a in args if a not in ("--check", "--no-skip")]
    folders = targets.folders()
    if "--target" in args:
        i = args.index("--target")
        if i + 1 >= len(args) or args[i + 1] not in folders:
            sys.exit(f"regenerate: --target takes a target folder (known: {', '.join(folders)})")
        folders = [args[i + 1]]
        del args[i:i + 2]
    names = args
    by_name = {g["name"]: g for g in GENERATORS}
    if not names and not check:
        for g in GENERATORS:
            print(f"{g['name']:15} {' '.join(g['cmd'])}{'   (slow: not in a plain --check)' if g['slow'] else ''}\n"
                  f"{'':15} writes {', '.join(g['outputs'])}{'   (once a target)' if g['per_target'] else ''}\n"
                  f"{'':15} from {g['source']}")
        return 0
    if names == ["all"] or (check and not names):
        names = [g["name"] for g in GENERATORS if names == ["all"] or not g["slow"]]
    unknown = [n for n in names if n not in by_name]
    if unknown:
        sys.exit(f"regenerate: unknown generator {', '.join(unknown)} (known: {', '.join(by_name)})")
    runs = []
    for n in names:
        g = by_name[n]
        runs += [for_target(g, f) for f in folders] if g["per_target"] else [g]
    ok = all([run(g, check, no_skip) for g in runs])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
