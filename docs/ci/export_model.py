#!/usr/bin/env python3
"""Template of the export step of docs/ci/kernelcount.yml: copy it to ci/export_model.py in the
model's repository and edit build() to make your model and an example input.

The workflow copies it out of the change and runs it twice in the repository's root: once on the
base branch, once on the change, so the base branch need not have it. It imports the model from
the tree checked out in the current folder, exports it with torch.export on the CPU (no GPU is
needed) and saves the archive to --out:

    python ci/export_model.py --out model.pt2
"""
import argparse
import os
import sys

import torch

# Import the model from the checked-out tree (the base branch's or the change's), not from
# where this script lies.
sys.path.insert(0, os.getcwd())


def build():
    """Returns (model, example inputs). EDIT: your model, in eval mode, and inputs of the shapes
    it runs on; kernelcount's counts are for these shapes."""
    from model import Model  # EDIT: your module and class

    return Model().eval(), (torch.randn(8, 3, 224, 224),)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="where to write the .pt2 archive")
    args = parser.parse_args()
    model, example = build()
    with torch.no_grad():
        exported = torch.export.export(model, example)
    torch.export.save(exported, args.out)


if __name__ == "__main__":
    main()
