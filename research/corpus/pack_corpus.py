#!/usr/bin/env python3
"""Packs a corpus's model archives into one tar.xz with every archive's entries stored, not deflated.

An exported archive is a zip whose model.json is deflated; xz cannot compress deflated bytes, so a
tar of them costs about what the archives do. Stored, xz sees the JSON itself and compresses each
float32 export together with its bfloat16 twin: a set packs to about a third of the size. The
archives read the same (kernelcount and LibTorch read stored entries as they read deflated ones).

Usage: research/corpus/pack_corpus.py TAR_XZ            (repacks it in place)
       research/corpus/pack_corpus.py TAR_XZ --from DIR  (packs DIR's contents, as DIR/...)"""
import argparse
import io
import lzma
import os
import sys
import tarfile
import tempfile
import zipfile


def stored(data: bytes) -> bytes:
    """The zip in `data` with every entry stored; bytes that are no zip come back unchanged."""
    try:
        zin = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        return data
    out = io.BytesIO()
    with zin, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zout:
        for item in zin.infolist():
            data = zin.read(item)
            item.compress_type = zipfile.ZIP_STORED
            zout.writestr(item, data)
    return out.getvalue()


def members(tar_path):
    with tarfile.open(tar_path, "r:*") as tar:
        for m in tar.getmembers():
            yield m, (tar.extractfile(m).read() if m.isfile() else None)


def from_dir(root):
    base = os.path.dirname(os.path.abspath(root))
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            info = tarfile.TarInfo(os.path.relpath(path, base))
            with open(path, "rb") as f:
                yield info, f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tar")
    ap.add_argument("--from", dest="src", help="a folder to pack instead of repacking TAR")
    args = ap.parse_args()
    entries = from_dir(args.src) if args.src else members(args.tar)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(args.tar)), suffix=".tmp")
    os.close(fd)
    before = os.path.getsize(args.tar) if os.path.exists(args.tar) else 0
    # Preset 9 with the extreme flag: a 64 MiB dictionary holds a whole set, so twins share.
    with lzma.open(tmp, "wb", preset=9 | lzma.PRESET_EXTREME) as xz, tarfile.open(fileobj=xz, mode="w") as out:
        for info, data in entries:
            if data is None:
                out.addfile(info)
                continue
            if info.name.endswith((".pt2", ".pt")):
                data = stored(data)
            info.size, info.mtime, info.uid, info.gid, info.uname, info.gname = len(data), 0, 0, 0, "", ""
            out.addfile(info, io.BytesIO(data))
    os.replace(tmp, args.tar)
    print(f"{args.tar}: {before} -> {os.path.getsize(args.tar)} bytes")


if __name__ == "__main__":
    sys.exit(main())
