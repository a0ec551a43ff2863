#!/usr/bin/env python3
"""Draws the next OpInfo programs to measure: the names export_opinfo.py --list-names printed,
less every name already drawn, ordered by the CRC-32 of the name (a fixed order no one chose by
hand, so a draw is reproducible and says nothing of whether a rule covers the program), the first
COUNT of them.
  python3 research/corpus/export_opinfo.py - --reference --samples 100000 --list-names > universe.txt
  python3 research/corpus/draw_opinfo.py universe.txt 3000 --drawn data/results/opinfo_scan/reference_to_measure.txt > next.txt
"""
import argparse
import zlib


def names_in(path):
    with open(path) as f:
        return {line.split("#")[0].strip() for line in f} - {""}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("universe", help="one program name a line")
    ap.add_argument("count", type=int)
    ap.add_argument("--drawn", action="append", default=[], help="a list of names drawn before (repeatable)")
    a = ap.parse_args()
    drawn = set().union(*(names_in(p) for p in a.drawn))
    left = sorted(names_in(a.universe) - drawn, key=lambda n: (zlib.crc32(n.encode()), n))
    for name in sorted(left[:a.count]):
        print(name)


if __name__ == "__main__":
    main()
