#!/usr/bin/env python3
"""Validates a `kernelcount --format sarif` log against the official SARIF 2.1.0 JSON schema
(tests/cli/sarif-schema-2.1.0.json, see below) with a full JSON-Schema validator (the
`jsonschema` package, the draft the schema declares), and checks what code scanning relies on:
every result names a rule of the driver by id and index, and sits on a source line of the
user's code (a file and a line >= 1), never on one of PyTorch's own files.

The schema file is OASIS's "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
(id https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json),
copied unchanged from github.com/oasis-tcs/sarif-spec, sarif-2.1/schema/sarif-schema-2.1.0.json
(commit e0583813964ec43cea53b6b531b402866095ed1f). Copyright OASIS Open; it carries no
header of its own (JSON has no comments), its terms are those of that repository's LICENSE.md.

Usage: check_sarif.py LOG.sarif [RULE_ID...]   (the rule ids that must occur)
       check_sarif.py --self-test              (known-bad logs must fail the check)
"""
import copy
import json
import os
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sarif-schema-2.1.0.json")
SCHEMA_ID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def validator():
    with open(SCHEMA) as f:
        schema = json.load(f)
    # The test runs only against the file it was written for: OASIS's 2.1.0 schema.
    sid = schema.get("$id", schema.get("id"))
    if sid != SCHEMA_ID or "2.1.0" not in schema.get("title", ""):
        sys.exit(f"{SCHEMA}: not the OASIS SARIF 2.1.0 schema (id {sid})")
    # The draft the schema names in "$schema" (draft-04 for this file); the schema is checked
    # against its metaschema first so a damaged copy cannot pass everything.
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def problems(log, must, check=None):
    check = check or validator()
    out = [f"schema: {e.message} at {list(e.absolute_path)}" for e in check.iter_errors(log)]
    if out:
        return out
    run = log["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"].get("rules", [])]
    seen = set()
    for k, res in enumerate(run.get("results") or []):
        if "ruleIndex" not in res or "ruleId" not in res:
            out.append(f"result {k}: no ruleId and ruleIndex")
            continue
        if res["ruleIndex"] >= len(rules) or rules[res["ruleIndex"]] != res["ruleId"]:
            out.append(f"result {k}: ruleIndex {res['ruleIndex']} is not {res['ruleId']}")
        seen.add(res["ruleId"])
        locs = res.get("locations", [])
        if not locs:
            out.append(f"result {k}: no location")
            continue
        phys = locs[0].get("physicalLocation", {})
        uri = phys.get("artifactLocation", {}).get("uri", "")
        line = phys.get("region", {}).get("startLine", 0)
        if not uri or line < 1:
            out.append(f"result {k}: not on a file and line (uri {uri!r}, line {line})")
        if "/site-packages/torch/" in uri or uri.startswith("torch/"):
            out.append(f"result {k}: on PyTorch's own file {uri}")
    for rule in must:
        if rule not in seen:
            out.append(f"no result for {rule}")
    return out


def self_test():
    """A valid log, then copies of it broken the ways the schema forbids: each must fail."""
    good = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kernelcount", "rules": [{"id": "kernelcount/costly-line"}]}},
            "results": [{
                "ruleId": "kernelcount/costly-line", "ruleIndex": 0, "level": "warning",
                "message": {"text": "12 kernels"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": "model.py"},
                                                    "region": {"startLine": 3}}}],
            }],
        }],
    }

    def broken(edit):
        log = copy.deepcopy(good)
        edit(log)
        return log

    res = lambda log: log["runs"][0]["results"][0]  # noqa: E731
    bad = {
        "a result of level fatal": broken(lambda l: res(l).update(level="fatal")),
        "no version": broken(lambda l: l.pop("version")),
        "version 2.0.0": broken(lambda l: l.update(version="2.0.0")),
        "a run without a tool": broken(lambda l: l["runs"][0].pop("tool")),
        "a driver without a name": broken(lambda l: l["runs"][0]["tool"]["driver"].pop("name")),
        "a message with neither text nor id": broken(lambda l: res(l).update(message={})),
        "startLine 0": broken(lambda l: res(l)["locations"][0]["physicalLocation"]["region"].update(startLine=0)),
        "a ruleIndex of -2": broken(lambda l: res(l).update(ruleIndex=-2)),
        "an unknown top-level property": broken(lambda l: l.update(extra=1)),
        "a rule id that is not a string": broken(lambda l: l["runs"][0]["tool"]["driver"]["rules"][0].update(id=7)),
    }
    check = validator()
    failed = []
    if problems(good, ["kernelcount/costly-line"], check):
        failed.append(f"the valid log fails: {problems(good, [], check)}")
    for what, log in bad.items():
        if not any(p.startswith("schema:") for p in problems(log, [], check)):
            failed.append(f"a log with {what} passes the schema")
    for f in failed:
        print(f"check_sarif self-test: {f}")
    if not failed:
        print(f"check_sarif self-test: the valid log passes, {len(bad)} invalid logs fail")
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    with open(sys.argv[1]) as f:
        log = json.load(f)
    found = problems(log, sys.argv[2:])
    for p in found:
        print(f"{sys.argv[1]}: {p}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
