#!/usr/bin/env python3
"""Checks a `kernelcount --format markdown` report the way GitHub will read it: parsed with a
CommonMark parser (markdown-it-py, GFM tables on), every table the report writes is a table,
<details> blocks open and close around tables, the verdict comes before any table, the
baseline diff before the model's own numbers, and the whole fits a pull-request comment.

Usage: check_markdown.py REPORT.md [--baseline]   (exit 1 with the reasons on failure)
"""
import sys

from markdown_it import MarkdownIt

LIMIT = 60000  # what kernelcount promises; GitHub's own limit is 65,536


def problems(text, with_baseline):
    out = []
    if len(text) >= LIMIT:
        out.append(f"{len(text)} characters, over {LIMIT}")
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    # Each table the report writes has one delimiter row; each must parse as a table.
    delimiters = sum(1 for line in text.splitlines()
                     if line.startswith("|") and set(line.replace("|", "").replace(" ", "")) <= set("-:") and "---" in line)
    tables = [t for t in tokens if t.type == "table_open"]
    if len(tables) != delimiters:
        out.append(f"{delimiters} tables written but {len(tables)} parsed as tables")
    # Every row written is a row parsed, and nothing else is (text glued to a table's end
    # would be read as one more row).
    rows_written = sum(1 for line in text.splitlines() if line.startswith("|")) - delimiters
    rows_parsed = sum(1 for t in tokens if t.type == "tr_open")
    if rows_written != rows_parsed:
        out.append(f"{rows_written} table rows written but {rows_parsed} parsed")
    # No table row may end up in a paragraph.
    for t in tokens:
        if t.type == "inline" and any(line.startswith("|") for line in t.content.splitlines()):
            out.append(f"table row parsed as text: {t.content.splitlines()[0][:80]}")
    html = [t for t in tokens if t.type == "html_block"]
    opens = sum(t.content.count("<details>") for t in html)
    closes = sum(t.content.count("</details>") for t in html)
    if opens != closes:
        out.append(f"{opens} <details> but {closes} </details> in HTML blocks")
    if text.count("<details>") != opens:
        out.append("a <details> tag is not an HTML block (it would print as text)")
    # Inside each details block there is a table (the folded detail).
    depth, saw_table, seen = 0, False, 0
    for t in tokens:
        if t.type == "html_block" and "<details>" in t.content:
            depth, saw_table = depth + 1, False
        elif t.type == "table_open" and depth:
            saw_table = True
        elif t.type == "html_block" and "</details>" in t.content:
            if not saw_table:
                out.append("a <details> block holds no table")
            depth -= 1
            seen += 1
    if seen == 0:
        out.append("no <details> block: the detail is not folded")
    first_table = next((i for i, t in enumerate(tokens) if t.type == "table_open"), len(tokens))
    verdict = next((i for i, t in enumerate(tokens)
                    if t.type == "inline" and ("Verdict" in t.content or "Budgets:" in t.content)), None)
    if verdict is None or verdict > first_table:
        out.append("the budget verdict does not come before the tables")
    if with_baseline:
        change = next((i for i, t in enumerate(tokens) if t.type == "inline" and t.content.startswith("Change against")), None)
        model = next((i for i, t in enumerate(tokens) if t.type == "inline" and t.content == "This model"), None)
        if change is None or model is None or change > model:
            out.append("the baseline diff does not come before the model's own numbers")
    return out


def main():
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found = problems(text, "--baseline" in sys.argv[2:])
    for p in found:
        print(f"{path}: {p}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
