#!/usr/bin/env python3
"""Docs check: every number README.md and docs/ quote about the model, tagged with a marker, matches the
live image.

A quoted number is tagged by an HTML comment right before it (invisible when the Markdown is rendered):

    <!-- stat:stats.variables -->1,648 variables            a count from `gpu-stack stats --json`
    <!-- stat:system.gpu.root_inputs -->21                   a system's row of its `by_system` table
    <!-- stat:relations_in_headline_cones*100 -->87.7%       a share, quoted in percent
    <!-- stat:validate.summary.throughput.median_ape -->6.4% from `gpu-stack validate --json`

The live value is rounded to as many decimals as the quoted number has and must equal it. An unknown
key, a marker without a number after it, or no marker at all (the pattern no longer matches) fails.
docs/model/<system>.md's count sentences are checked by check_model_counts.py.

  tests/repo/check_doc_stats.py --gpu-stack BIN --image FILE [--root DIR]   (ctest: repo.docs_stats)
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MARKER = re.compile(r"<!--\s*stat:(?P<key>[A-Za-z0-9_.]+)(?P<scale>\*100)?\s*-->\s*(?P<number>-?\d[\d,]*(?:\.\d+)?)?")


def documents(root):
    paths = [os.path.join(root, "README.md")]
    paths += sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
    return [p for p in paths if os.path.exists(p)]


def lookup(tree, path):
    for part in path:
        if isinstance(tree, dict) and part in tree:
            tree = tree[part]
        else:
            return None
    return tree if isinstance(tree, (int, float)) and not isinstance(tree, bool) else None


class Live:
    def __init__(self, gpu_stack, image):
        self.gpu_stack, self.image = gpu_stack, image
        self.cache = {}

    def json(self, *argv):
        if argv not in self.cache:
            p = subprocess.run([self.gpu_stack, *argv, "--json", "--image", self.image], capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(f"gpu-stack {' '.join(argv)} failed: {p.stderr.strip()}")
            self.cache[argv] = json.loads(p.stdout)
        return self.cache[argv]

    def value(self, key):
        parts = key.split(".")
        if parts[0] == "validate":
            return lookup(self.json("validate"), parts[1:])
        stats = self.json("stats")
        if parts[0] == "system" and len(parts) == 3:
            rows = {row["system"]: row for row in stats["by_system"]}
            return lookup(rows.get(parts[1], {}), parts[2:])
        return lookup(stats, parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu-stack", required=True)
    ap.add_argument("--image", required=True)
    ap.add_argument("--root", default=os.path.join(HERE, "..", ".."))
    args = ap.parse_args()
    live = Live(args.gpu_stack, args.image)
    problems, checked = [], 0
    for path in documents(args.root):
        with open(path) as f:
            text = f.read()
        rel = os.path.relpath(path, args.root)
        for m in MARKER.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            where = f"{rel}:{line}"
            if m["number"] is None:
                problems.append(f"{where}: marker stat:{m['key']} is not followed by a number")
                continue
            value = live.value(m["key"])
            if value is None:
                problems.append(f"{where}: stat:{m['key']} names no number of `gpu-stack stats` or `validate` (--json)")
                continue
            quoted = m["number"].replace(",", "")
            decimals = len(quoted.split(".")[1]) if "." in quoted else 0
            scaled = value * 100 if m["scale"] else value
            expected = f"{scaled:.{decimals}f}"
            checked += 1
            if float(expected) != float(quoted):
                problems.append(f"{where}: quotes {m['number']} for {m['key']}{m['scale'] or ''}, the live value is {expected}")
    for p in problems:
        print(p)
    print(f"{checked} tagged numbers checked, {len(problems)} wrong")
    if checked == 0 and not problems:
        print("no <!-- stat:KEY --> marker found in README.md or docs/: the check has nothing to check")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
