#!/usr/bin/env python3
"""Runs docs/ci/kernelcount.yml as GitHub Actions would, on throwaway repositories, without network.

Each `run:` step runs as written (bash -eo pipefail, the job's and the step's env with their
${{ }} expressions evaluated, GITHUB_ENV, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY honoured, `if:`
conditions evaluated). What needs the network is stood in for, and only that:
- KERNELCOUNT_REPO is a throwaway git repository holding this checkout's docs/ci/review.sh and a
  scripts/setup.sh that links the kernelcount under test instead of building one;
- `pip` and `gh` are stubs on PATH that record their arguments (`gh` keeps the comment body);
- `uses:` steps are checked, not run: checkout must fetch the history, the cache must cover the
  folder the set-up script caches in with a key on that script, the SARIF upload's file must exist.
The model's repository is a throwaway git repository whose base branch and change each name a test
export (model.txt), with an export script that copies it: the workflow's export step runs it on
the base branch and on the change as it would run docs/ci/export_model.py.

Usage: play_workflow.py KERNELCOUNT WORKFLOW SCENARIO WORKDIR, from the repository root; SCENARIO
is BASE_MODEL:HEAD_MODEL[:fork][:no-code-scanning][:no-repo]. Prints one JSON object: the steps
run or skipped, the job's status, what the stubs recorded, the review step's output.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import yaml

ROOT = os.getcwd()


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                            GIT_COMMITTER_EMAIL="t@t"))


def make_kernelcount_repo(path, kc):
    os.makedirs(f"{path}/docs/ci")
    os.makedirs(f"{path}/scripts")
    shutil.copy(f"{ROOT}/docs/ci/review.sh", f"{path}/docs/ci/review.sh")
    shutil.copy(f"{ROOT}/scripts/setup.sh", f"{path}/scripts/setup.sh.real")
    with open(f"{path}/scripts/setup.sh", "w") as f:
        f.write("#!/usr/bin/env bash\n# Stands in for the real set-up (which downloads LibTorch): links the binary under test.\n"
                f"set -eu\nmkdir -p build\nln -sf {kc} build/kernelcount\n"
                'mkdir -p "$KERNELCOUNT_CACHE" "$CCACHE_DIR"\necho "$@" > "$KERNELCOUNT_CACHE/setup-args"\n')
    os.chmod(f"{path}/scripts/setup.sh", 0o755)
    git(path, "init", "-q", "-b", "main")
    git(path, "add", ".")
    git(path, "commit", "-qm", "kernelcount")


def make_model_repo(path, base_model, head_model):
    os.makedirs(f"{path}/ci")
    with open(f"{path}/ci/export_model.py", "w") as f:
        f.write("import argparse, os, shutil\n"
                "p = argparse.ArgumentParser(); p.add_argument('--out', required=True); a = p.parse_args()\n"
                "# Stands in for torch.export: the tree checked out here names its test export.\n"
                "shutil.copy(os.path.join(os.environ['KC_ROOT'], open('model.txt').read().strip()), a.out)\n")
    with open(f"{path}/model.txt", "w") as f:
        f.write(base_model + "\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", ".")
    git(path, "commit", "-qm", "base")
    git(path, "checkout", "-qb", "change")
    with open(f"{path}/model.txt", "w") as f:
        f.write(head_model + "\n")
    git(path, "commit", "-q", "--allow-empty", "-am", "change")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, capture_output=True, text=True).stdout.strip()
    base = subprocess.run(["git", "rev-parse", "main"], cwd=path, capture_output=True, text=True).stdout.strip()
    return base, head


def lookup(ctx, dotted):
    value = ctx
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return ""
        value = value[part]
    return value


def evaluate(expr, ctx):
    """A GitHub expression, for the forms the workflow uses: contexts, 'strings', ==, !=, &&, ||, !,
    always() and success()."""
    tokens = re.findall(r"'[^']*'|&&|\|\||==|!=|!|\(|\)|[A-Za-z_][\w.\-]*\(\)|[A-Za-z_][\w.\-]*", expr)
    out = []
    for t in tokens:
        if t.startswith("'"):
            out.append(repr(t[1:-1]))
        elif t == "&&":
            out.append(" and ")
        elif t == "||":
            out.append(" or ")
        elif t == "!":
            out.append(" not ")
        elif t in ("==", "!=", "(", ")"):
            out.append(t)
        elif t == "always()":
            out.append("True")
        elif t == "success()":
            out.append(repr(ctx["_success"]))
        elif t in ("true", "false"):
            out.append(repr(t == "true"))
        else:
            out.append(repr(lookup(ctx, t)))
    return eval(" ".join(out), {"__builtins__": {}})  # noqa: S307 (our own tokens only)


def expand(text, ctx):
    def one(m):
        v = evaluate(m.group(1), ctx)
        return ("true" if v else "false") if isinstance(v, bool) else str(v)
    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", one, str(text))


def main():
    kc, workflow, scenario, work = sys.argv[1:5]
    kc = os.path.abspath(kc)
    base_model, head_model, *flags = scenario.split(":")
    work = os.path.abspath(work)
    os.makedirs(work)
    kc_repo, repo, temp, home, stubs = (f"{work}/{d}" for d in ("kernelcount", "repo", "runner-temp", "home", "stubs"))
    for d in (temp, home, stubs):
        os.makedirs(d)
    make_kernelcount_repo(kc_repo, kc)
    base_sha, head_sha = make_model_repo(repo, base_model, head_model)
    log = f"{work}/stubs.log"
    for name in ("pip", "gh"):
        with open(f"{stubs}/{name}", "w") as f:
            f.write(f'#!/usr/bin/env bash\necho "{name} $*" >> {log}\n'
                    'while [ $# -gt 0 ]; do [ "$1" = --body-file ] && cp "$2" "' + work + '/posted.md"; shift; done\n')
        os.chmod(f"{stubs}/{name}", 0o755)
    os.symlink(shutil.which("python3"), f"{stubs}/python")

    with open(workflow) as f:
        wf = yaml.safe_load(f)
    job = next(iter(wf["jobs"].values()))
    files = {k: f"{work}/{k}" for k in ("env", "output", "summary")}
    for p in files.values():
        open(p, "w").close()
    ctx = {
        "vars": {} if "no-repo" in flags else {"KERNELCOUNT_REPO": kc_repo, "KERNELCOUNT_REF": "main"},
        "github": {
            "repository": "owner/model",
            "sha": head_sha,
            "token": "stub-token",
            "event": {"pull_request": {"number": 7, "base": {"sha": base_sha},
                                       "head": {"repo": {"full_name": "fork/model" if "fork" in flags
                                                         else "owner/model"}}}},
        },
        "runner": {"os": "Linux"},
        "steps": {},
        "env": {},
        "_success": True,
    }
    if "no-code-scanning" in flags:
        ctx["vars"]["KERNELCOUNT_CODE_SCANNING"] = "off"
    env = {k: v for k, v in os.environ.items() if k not in ("KERNELCOUNT_CACHE", "CCACHE_DIR", "XDG_CACHE_HOME")}
    env.update(HOME=home, PATH=f"{stubs}:{os.environ['PATH']}", RUNNER_TEMP=temp, GITHUB_WORKSPACE=repo,
               GITHUB_SHA=head_sha, GITHUB_ENV=files["env"], GITHUB_OUTPUT=files["output"],
               GITHUB_STEP_SUMMARY=files["summary"], KC_ROOT=ROOT, CI="true", GITHUB_ACTIONS="true")
    for k, v in job.get("env", {}).items():
        env[k] = ctx["env"][k] = expand(v, ctx)
    report = {"steps": [], "stubs": [], "uses": {}, "status": "success"}
    for step in job["steps"]:
        name = step.get("name") or step.get("uses")
        cond = step.get("if", "success()")
        if not evaluate(str(cond).replace("${{", "").replace("}}", ""), ctx):
            report["steps"].append({"name": name, "ran": False})
            continue
        step_env = dict(env)
        for k, v in step.get("env", {}).items():
            step_env[k] = ctx["env"][k] = expand(v, ctx)
        with_ = {k: expand(v, ctx) for k, v in step.get("with", {}).items()}
        if "uses" in step:
            action = step["uses"].split("@")[0]
            report["uses"][action] = with_
            ok = True
            if action == "github/codeql-action/upload-sarif":
                ok = os.path.isfile(os.path.join(repo, with_["sarif_file"]))
            report["steps"].append({"name": name, "ran": True, "ok": ok})
            if not ok:
                ctx["_success"] = False
                report["status"] = "failure"
            continue
        open(files["output"], "w").close()
        script = expand(step["run"], ctx)
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=repo,
                              env=step_env, capture_output=True, text=True)
        outputs = dict(line.split("=", 1) for line in open(files["output"]).read().splitlines() if "=" in line)
        if "id" in step:
            ctx["steps"][step["id"]] = {"outputs": outputs}
        for line in open(files["env"]).read().splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                env[k] = v
        open(files["env"], "w").close()
        report["steps"].append({"name": name, "ran": True, "exit": proc.returncode, "stdout": proc.stdout,
                                "stderr": proc.stderr[-2000:]})
        if proc.returncode != 0:
            ctx["_success"] = False
            report["status"] = "failure"
    report["env"] = {k: env.get(k, "") for k in ("KERNELCOUNT", "KERNELCOUNT_CACHE", "CCACHE_DIR")}
    report["home"] = home
    report["setup_sh_sha256_16"] = subprocess.run(
        ["sh", "-c", f"sha256sum {kc_repo}/scripts/setup.sh | cut -c1-16"], capture_output=True, text=True).stdout.strip()
    report["stubs"] = open(log).read().splitlines() if os.path.exists(log) else []
    report["posted"] = open(f"{work}/posted.md").read() if os.path.exists(f"{work}/posted.md") else None
    report["summary"] = open(files["summary"]).read()
    report["setup_args"] = (open(f"{home}/.cache/kernelcount/setup-args").read().strip()
                            if os.path.exists(f"{home}/.cache/kernelcount/setup-args") else None)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
