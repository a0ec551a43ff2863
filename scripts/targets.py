"""The targets built into kernelcount, for the generators that write a target's data: each line
KC_TARGET(folder) of passes/targets/targets.def names a folder passes/targets/<folder>/, whose
target.cc sets the name that kernelcount's --target takes. The first is the default."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGISTRY = os.path.join(ROOT, "passes", "targets", "targets.def")


def folders():
    """The registry's target folders, the default first."""
    with open(REGISTRY) as f:
        return re.findall(r"^KC_TARGET\((\w+)\)", f.read(), re.M)


def path(folder, *parts):
    """A file of the target's folder, relative to the repository root."""
    return os.path.join("passes", "targets", folder, *parts)


def name(folder):
    """The target's name (kernelcount --target NAME), as its target.cc sets it."""
    with open(os.path.join(ROOT, path(folder, "target.cc"))) as f:
        m = re.search(r'\bt\.name = "([^"]+)";', f.read())
    if not m:
        raise SystemExit(f"targets: {path(folder, 'target.cc')} sets no t.name")
    return m.group(1)


def add_argument(parser):
    """--target FOLDER, defaulting to the registry's first."""
    known = folders()
    parser.add_argument("--target", default=known[0], choices=known,
                        help=f"the target folder under passes/targets/ to write (default: {known[0]})")
