#!/usr/bin/env python3
"""Docs check: every count a system's page in docs/model/ quotes matches the live image.

Each page opens with a sentence like "72 variables (27 root inputs), 60 value relations, 2 constraints."
This reads `gpu-stack stats --json` (its `by_system` table) and fails, naming the page, the quoted number
and the live one, when they differ; it also fails when a quoted system does not exist in the image.

  tests/repo/check_model_counts.py --gpu-stack BIN --image FILE [--docs DIR]   (ctest: repo.docs_model_counts)
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SENTENCE = re.compile(
    r"(?P<vars>\d[\d,]*) variables \((?P<roots>\d[\d,]*)(?: of them)? root inputs?\),\s+"
    r"(?P<values>\d[\d,]*) value relations(?: \([^)]*\))?"
    r"(?:(?:,| and)\s+(?P<constraints>\d[\d,]*|no) constraints?)?")


def number(text):
    return 0 if text == "no" else int(text.replace(",", ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu-stack", required=True)
    ap.add_argument("--image", required=True)
    ap.add_argument("--docs", default=os.path.join(HERE, "..", "..", "docs", "model"))
    args = ap.parse_args()
    out = subprocess.run([args.gpu_stack, "stats", "--json", "--image", args.image], capture_output=True, text=True, check=True).stdout
    live = {s["system"]: s for s in json.loads(out)["by_system"]}
    problems, checked = [], 0
    for name in sorted(os.listdir(args.docs)):
        if not name.endswith(".md"):
            continue
        system = name[:-3]
        with open(os.path.join(args.docs, name)) as f:
            head = " ".join(f.read().split("\n\n")[:3]).replace("\n", " ")
        m = SENTENCE.search(head)
        if not m:
            continue
        if system not in live:
            problems.append(f"docs/model/{name}: quotes counts for '{system}', which is not a system of the image")
            continue
        quoted = {"variables": m["vars"], "root_inputs": m["roots"], "value_relations": m["values"], "constraints": m["constraints"]}
        for key, text in quoted.items():
            if text is None:
                continue
            checked += 1
            if number(text) != live[system][key]:
                problems.append(f"docs/model/{name}: says {text} {key.replace('_', ' ')}, the image has {live[system][key]}")
    for p in problems:
        print(p)
    print(f"{checked} quoted counts checked, {len(problems)} wrong")
    if checked == 0:
        print("no count sentence found in docs/model/*.md: the pattern no longer matches the pages")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
