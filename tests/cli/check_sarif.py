#!/usr/bin/env python3
"""Validates a `kernelcount --format sarif` log against SARIF 2.1.0's required structure
(tests/cli/sarif-2.1.0-required.schema.json) and checks what code scanning relies on: every
result names a rule of the driver by id and index, and sits on a source line of the user's
code (a file and a line >= 1), never on one of PyTorch's own files.

Usage: check_sarif.py LOG.sarif [RULE_ID...]   (the rule ids that must occur)
"""
import json
import os
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sarif-2.1.0-required.schema.json")


def problems(log, must):
    with open(SCHEMA) as f:
        schema = json.load(f)
    out = [f"schema: {e.message} at {list(e.absolute_path)}"
           for e in jsonschema.Draft7Validator(schema).iter_errors(log)]
    if out:
        return out
    run = log["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"].get("rules", [])]
    seen = set()
    for k, res in enumerate(run.get("results", [])):
        if rules[res["ruleIndex"]] != res["ruleId"]:
            out.append(f"result {k}: ruleIndex {res['ruleIndex']} is not {res['ruleId']}")
        seen.add(res["ruleId"])
        locs = res.get("locations", [])
        if not locs:
            out.append(f"result {k}: no location")
            continue
        uri = locs[0]["physicalLocation"]["artifactLocation"]["uri"]
        if "/site-packages/torch/" in uri or uri.startswith("torch/"):
            out.append(f"result {k}: on PyTorch's own file {uri}")
    for rule in must:
        if rule not in seen:
            out.append(f"no result for {rule}")
    return out


def main():
    with open(sys.argv[1]) as f:
        log = json.load(f)
    found = problems(log, sys.argv[2:])
    for p in found:
        print(f"{sys.argv[1]}: {p}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
