"""Copies a .pt2 archive with every weight, constant and sample-input record kept but emptied
(zero bytes), as a "weight-blanked" export: the records and their configs are still listed,
so a reader that trusts them finds files of the wrong size. kernelcount and
kernelcount-validate (random weights, the default) must treat it like the full archive.
Usage: python3 validate/blank_weights.py IN.pt2 OUT.pt2
"""
import sys
import zipfile

BLANK = ("/data/weights/", "/data/constants/", "/data/sample_inputs/")


def blank_weights(src, dst):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            name = info.filename
            keep_config = name.endswith("_config.json")
            data = b"" if any(d in name for d in BLANK) and not keep_config else zin.read(name)
            zout.writestr(name, data)


if __name__ == "__main__":
    blank_weights(sys.argv[1], sys.argv[2])
