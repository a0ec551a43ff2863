#!/usr/bin/env python3
"""Renders the markdown report of every corpus model, alone and against a baseline, and checks
each with tests/cli/check_markdown.py (CommonMark structure, under 60,000 characters).

The baseline of a model is the `--format json` report of another model of the list, half the
list away (so, mostly, another family: the diff has op types and lines added and removed, the
report's biggest case), with `--max-kernel-increase 0` so that the verdict is written too.
A model the analyzer refuses (exit 2 with its one error line, e.g. an op it cannot load) has no
report to check; it is listed as not loaded, and takes no part in the pairs.

Usage (from the repository root):
  scripts/check_markdown_corpus.py KERNELCOUNT [DIR...]     every .pt2 under the DIRs (default:
      data/corpus/broad, fresh, fresh2, fresh3 and data/corpus/models)
      [--write-sample FILE [N]]  also write the N (default 40) pairs CI checks: the largest
                                 reports, then an even spread of the rest
  scripts/check_markdown_corpus.py KERNELCOUNT --sample FILE [N]   only the "MODEL BASELINE" pairs
      of FILE (tests/cli/markdown_sample.txt is CI's), or only its first N (the largest reports)
Prints the number of reports checked and the largest of each kind; exit 1 on any problem.
"""
import concurrent.futures
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "cli"))
try:
    import check_markdown  # noqa: E402  (needs markdown-it-py)
except ImportError:
    # scripts/setup.sh installs markdown-it-py as a Debian package, into the system Python;
    # another python3 earlier on PATH may lack it.
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    sys.exit("check_markdown_corpus: no markdown-it-py (run scripts/setup.sh)")

DIRS = ["data/corpus/broad", "data/corpus/fresh", "data/corpus/fresh2", "data/corpus/fresh3",
        "data/corpus/models"]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stderr.strip()


def json_report(kc, tmp, model):
    """The model's --format json report, or None with the analyzer's error when it refuses it."""
    path = os.path.join(tmp, os.path.relpath(model).replace("/", "_") + ".json")
    rc, err = run([kc, model, "--format", "json", "-o", path])
    return (path, None) if rc == 0 else (None, f"exit {rc}: {err}")


def check_one(kc, tmp, model, base_json):
    """Returns (plain length, baseline length, problems)."""
    name = os.path.relpath(model).replace("/", "_")
    out = []
    lengths = []
    for kind, extra, ok in (("plain", [], (0,)),
                            ("baseline", ["--baseline", base_json, "--max-kernel-increase", "0"], (0, 1))):
        md = os.path.join(tmp, f"{name}.{kind}.md")
        rc, err = run([kc, model, "--format", "markdown", *extra, "-o", md])
        if rc not in ok:
            out.append(f"{kind}: exit {rc}: {err}")
            lengths.append(0)
            continue
        with open(md, encoding="utf-8") as f:
            text = f.read()
        os.remove(md)
        lengths.append(len(text))
        out += [f"{kind}: {p}" for p in check_markdown.problems(text, kind == "baseline")]
    return lengths[0], lengths[1], out


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    kc = args.pop(0)
    sample_in = sample_out = None
    sample_n = 40
    sample_first = None
    if args[:1] == ["--sample"]:
        sample_in = args[1]
        args = args[2:]
        if args[:1] and args[0].isdigit():
            sample_first = int(args.pop(0))
    if "--write-sample" in args:
        i = args.index("--write-sample")
        sample_out = args[i + 1]
        tail = args[i + 2:i + 3]
        if tail and tail[0].isdigit():
            sample_n = int(tail[0])
            del args[i + 2]
        del args[i:i + 2]
    if sample_in:
        with open(sample_in) as f:
            pairs = [tuple(line.split()) for line in f if line.strip() and not line.startswith("#")]
        pairs = pairs[:sample_first]
        models = sorted({m for pair in pairs for m in pair})
    else:
        models = None

    results = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        if models is None:
            # A set kept packed (DIR/models.tar.xz) is unpacked here.
            models = []
            for d in args or DIRS:
                packed = os.path.join(d, "models.tar.xz")
                if os.path.exists(packed):
                    unpacked = os.path.join(tmp, "packed", os.path.basename(d))
                    os.makedirs(unpacked, exist_ok=True)
                    subprocess.run(["tar", "-xJf", packed, "-C", unpacked], check=True)
                    d = unpacked
                models += glob.glob(os.path.join(d, "**", "*.pt2"), recursive=True)
            models.sort()
        # Two workers: the analyzer is single-threaded and a report takes about half a second.
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            reports = dict(zip(models, pool.map(lambda m: json_report(kc, tmp, m), models)))
            refused = sorted(m for m, (path, _) in reports.items() if path is None)
            for m in refused:
                print(f"not loaded: {m}: {reports[m][1]}")
            if sample_in:
                # CI's sample holds models that load: a refusal there is a failure.
                failed = bool(refused)
                pairs = [p for p in pairs if p[0] not in refused and p[1] not in refused]
            else:
                loaded = [m for m in models if m not in refused]
                n = len(loaded)
                if n < 2:
                    sys.exit("check_markdown_corpus: fewer than two models load: nothing to diff against")
                pairs = [(m, loaded[(k + n // 2) % n]) for k, m in enumerate(loaded)]
            checked = pool.map(lambda p: check_one(kc, tmp, p[0], reports[p[1]][0]), pairs)
            for (model, base), (plain, based, found) in zip(pairs, checked):
                results.append((model, plain, based, base))
                for p in found:
                    print(f"FAIL {model}: {p}")
                    failed = True
    if not results:
        sys.exit("check_markdown_corpus: no report checked")
    plain = max(results, key=lambda r: r[1])
    based = max(results, key=lambda r: r[2])
    print(f"markdown: {len(models)} models, {len(refused)} not loaded; {2 * len(results)} reports "
          f"of {len(results)} models checked ({'with problems' if failed else 'all valid'})")
    print(f"  largest alone:             {plain[1]} characters ({plain[0]})")
    print(f"  largest against a baseline: {based[2]} characters ({based[0]} against {based[3]})")
    print(f"  limit:                      {check_markdown.LIMIT}")
    if sample_out:
        write_sample(sample_out, results, sample_n)
    return 1 if failed else 0


def write_sample(path, results, n):
    """The n/2 largest reports (by the larger of the two), then an even spread of the rest."""
    by_size = sorted(results, key=lambda r: (-max(r[1], r[2]), r[0]))
    big = by_size[:n // 2]
    rest = sorted(by_size[n // 2:], key=lambda r: r[0])
    want = max(1, n - len(big))
    step = max(1, -(-len(rest) // want))  # rounded up: the spread reaches the list's end
    spread = rest[::step][:want]
    with open(path, "w") as f:
        f.write("# MODEL BASELINE: the corpus pairs CI renders as markdown (ctest -R markdown_sample).\n"
                "# Written by scripts/check_markdown_corpus.py KERNELCOUNT --write-sample "
                f"{os.path.relpath(path)} {n}:\n# the {len(big)} largest reports, then an even spread of the rest.\n")
        for model, _, _, base in big + spread:
            f.write(f"{os.path.relpath(model)} {os.path.relpath(base)}\n")


if __name__ == "__main__":
    sys.exit(main())
