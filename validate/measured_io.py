"""kernelcount-validate outputs of one results folder (data/results/<set>/): its <name>.json
and <name>.err files, loose or packed in the folder's measured.tar.xz as measured/<name>.json, which
keeps the repository small enough to travel to the GPU machine whole."""
import glob
import json
import os
import tarfile


def _files(folder):
    """(name, extension, text) of every .json and .err file, sorted by name."""
    out = []
    tgz = os.path.join(folder, "measured.tar.xz")
    if os.path.exists(tgz):
        with tarfile.open(tgz) as tar:
            for m in tar.getmembers():
                base, ext = os.path.splitext(os.path.basename(m.name))
                if m.isfile() and ext in (".json", ".err"):
                    out.append((base, ext, tar.extractfile(m).read().decode()))
    for path in glob.glob(os.path.join(folder, "*.json")) + glob.glob(os.path.join(folder, "*.err")):
        base, ext = os.path.splitext(os.path.basename(path))
        with open(path) as f:
            out.append((base, ext, f.read()))
    return sorted(out)


# A record names its model where it was when measured; the corpora and reference cases moved from
# validate/ to data/ after most were measured, and the records are kept as the tool wrote them.
_MOVED = (("validate/corpus/", "data/corpus/"), ("validate/truth/", "data/truth/"))


def current_path(path):
    """The model's path in this checkout, for a path a record names."""
    for old, new in _MOVED:
        if path.startswith(old):
            return new + path[len(old):]
    return path


def _current(record):
    model = record.get("model")
    if isinstance(model, str):
        record["model"] = current_path(model)
    elif isinstance(model, dict) and isinstance(model.get("path"), str):
        model["path"] = current_path(model["path"])
    return record


def measured(folder):
    """[(name, validate's JSON)] of a results folder, by name, each naming its model's current path."""
    return [(name, _current(json.loads(text))) for name, ext, text in _files(folder) if ext == ".json"]


def errors(folder):
    """[(name, stderr text)] of the runs that wrote something to stderr."""
    return [(name, text) for name, ext, text in _files(folder) if ext == ".err" and text.strip()]
