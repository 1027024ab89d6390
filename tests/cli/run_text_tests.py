#!/usr/bin/env python3
"""Text CLI cases: each tests/cli/cases/*.test file is one self-describing case.

The format (docs/testing.md has the full reference):

  # The first comment says what the case checks; more comment lines may follow.
  FILE %t/rack.toml            write the lines up to END into a file (for presets, runs, scenarios)
  ENV NAME=VALUE               set a variable for the next RUN only;  TIMEOUT S: the next RUN must end within S s
  RUN[model] resolve X --json  run gpu-stack (image: test by default; [model] the shipped one; [none] no
                               --image; [gstackc] runs gstackc);  RUN@name labels the run's output
  EXIT 2                       the exit status the last RUN must have (0 when absent)
  CHECK text                   stdout contains text;  CHECK-ERR: stderr;  CHECK-NOT / CHECK-ERR-NOT: lacks it
  CHECK-RE regex               stdout matches (multi-line);  CHECK-NOT-RE, CHECK-ERR-RE, CHECK-ERR-NOT-RE
  GOLDEN name                  stdout equals tests/cli/golden/name.txt (image paths and %t normalised)
  NORMALIZE regex => text      rewrite output before GOLDEN/CHECK/SAME (e.g. wall-clock times)
  DIR folder = a b*            the folder holds exactly one entry per name or glob;  ABSENT path: nothing there
  SH command                   a setup step in bash, or a shell condition that must hold; it must exit 0
  READ path                    later checks read this file as the last stdout (READ @path: the file a JSON
                               value names; READ-CSV: rows as JSON objects; READ-JSONL: a list of documents;
                               READ@name labels it, and may come before any RUN)
  SAME name                    the last stdout equals the labelled one byte for byte (after NORMALIZE)
  LET name arithmetic          a number derived from outputs;  CAPTURE name regex: a number from stdout text
  JSON path op value           a check on the last RUN's stdout read as JSON (or `@name:path` another's)

JSON paths, operators, references (@path, @name:path, =arithmetic) and substitutions (%t, %presets, %data,
%model-image, %test-image, %gstackc, %gpu-stack, %xNN, %{name:path}) are described in docs/testing.md.

  run_text_tests.py --list [--dir DIR]
  run_text_tests.py --case NAME --gpu-stack BIN --test-image FILE --model-image FILE [--update]
  run_text_tests.py --dir tests/cli/selftest --expect-failures ...   (the runner's own test)
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

from text_case_json import CaseError, arithmetic, json_check, reference

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CASES_DIR = os.path.join(HERE, "cases")
GOLDEN = os.path.join(HERE, "golden")


class Context:
    def __init__(self, args, tmp, path):
        self.args = args
        self.tmp = tmp
        self.path = path
        self.subs = {
            "%test-image": args.test_image, "%model-image": args.model_image, "%presets": os.path.join(ROOT, "presets"),
            "%data": os.path.join(ROOT, "data"), "%gpu-stack": os.path.abspath(args.gpu_stack), "%gstackc": os.path.join(os.path.dirname(os.path.abspath(args.gpu_stack)), "gstackc"),
            "%t": tmp,
        }
        self.out = self.err = None
        self.rc = None
        self.cmd = None
        self.exit_checked = True
        self.env = {}
        self.normalizers = []
        self.labelled = {}
        self.timeout = None

    def substitute(self, text):
        for key in sorted(self.subs, key=len, reverse=True):
            text = text.replace(key, self.subs[key])
        # %xNN is the character with that hex code (a control character a case feeds in or looks for).
        text = re.sub(r"%x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)
        # %{label:path} is a value of a labelled run's JSON (%{path}: the last stdout's), innermost first.
        while True:
            m = re.search(r"%\{([^{}]*)\}", text)
            if not m:
                return text
            values = reference(self, m.group(1))
            if len(values) != 1 or isinstance(values[0], (list, dict)):
                raise CaseError(f"%{{{m.group(1)}}} is not one value: {values!r}")
            value = values[0] if isinstance(values[0], str) else json.dumps(values[0])
            text = text[:m.start()] + value + text[m.end():]

    def where(self, lineno):
        return f"{os.path.relpath(self.path, ROOT)}:{lineno}"


# ---- running a case

def run(ctx, image, argv):
    cmd = [ctx.subs["%gstackc"] if image == "gstackc" else ctx.args.gpu_stack, *argv]
    if image == "test":
        cmd += ["--image", ctx.args.test_image]
    elif image == "model":
        cmd += ["--image", ctx.args.model_image]
    env = dict(os.environ)
    for key in ("GSTACK_IMAGE", "GSTACK_PRESETS"):
        env.pop(key, None)
    env["GSTACK_CACHE_DIR"] = "off"  # never the user's compiled-cone cache; a case sets its own with ENV
    env.update(ctx.env)
    ctx.env = {}
    limit, ctx.timeout = ctx.timeout, None
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=limit)
    except subprocess.TimeoutExpired:
        raise CaseError(f"{' '.join(cmd)}: did not finish within {limit} s")
    ctx.out, ctx.err, ctx.rc, ctx.cmd = p.stdout, p.stderr, p.returncode, cmd
    ctx.exit_checked = False


def normalised(ctx, text):
    for pattern, repl in ctx.normalizers:
        text = re.sub(pattern, repl, text)
    return text


def golden(ctx, name):
    text = normalised(ctx, ctx.out)
    for value, mark in ((ctx.args.test_image, "<test-image>"), (ctx.args.model_image, "<model-image>"), (ctx.tmp, "<tmp>")):
        text = text.replace(value, mark)
    path = os.path.join(GOLDEN, name + ".txt")
    if ctx.args.update:
        with open(path, "w") as f:
            f.write(text)
        return
    if not os.path.exists(path):
        raise CaseError(f"no golden file {path}; run with --update to create it")
    with open(path) as f:
        expected = f.read()
    if text != expected:
        raise CaseError(f"output differs from {path}:\n--- expected\n{expected}\n--- actual\n{text}")


def check_exit(ctx, want):
    if ctx.rc != want:
        raise CaseError(f"{' '.join(ctx.cmd)}: exit {ctx.rc}, expected {want}\nstdout:\n{ctx.out}\nstderr:\n{ctx.err}")
    ctx.exit_checked = True


def run_case(args, path):
    with open(path) as f:
        lines = f.read().split("\n")
    with tempfile.TemporaryDirectory() as tmp:
        ctx = Context(args, tmp, path)
        i = 0
        while i < len(lines):
            lineno, raw = i + 1, lines[i]
            i += 1
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            word, _, rest = line.partition(" ")
            # Text to look for keeps its spaces: everything after the directive and one space.
            try:
                rest = ctx.substitute(raw.lstrip()[len(word) + 1:] if word in _TEXT_CHECKS else rest.strip())
                if word == "FILE":
                    body = []
                    while i < len(lines) and lines[i].strip() != "END":
                        body.append(ctx.substitute(lines[i]))
                        i += 1
                    if i == len(lines):
                        raise CaseError("FILE without END")
                    i += 1
                    os.makedirs(os.path.dirname(rest), exist_ok=True)
                    with open(rest, "w") as f:
                        f.write("\n".join(body) + "\n")
                    continue
                if word == "ENV":
                    key, _, value = rest.partition("=")
                    ctx.env[key] = value
                    continue
                if word == "DIR":
                    folder, _, names = rest.partition(" = ")
                    check_listing(folder, names.split())
                    continue
                if word == "LET":
                    # LET name arithmetic: a number derived from earlier outputs, checked as `JSON @name:. ~ X`.
                    name, _, expr = rest.partition(" ")
                    if not re.fullmatch(r"\w+", name):
                        raise CaseError(f"expected 'LET name arithmetic', got '{rest}'")
                    ctx.labelled[name] = json.dumps(arithmetic(ctx, expr.lstrip("=")))
                    continue
                if word == "CAPTURE":
                    # CAPTURE name regex: the first group of the regex's first match in stdout, a number where it
                    # reads as one, for checks such as `JSON @name:. ~ =@value / 1e-6 rel 5e-7`.
                    name, _, pattern = rest.partition(" ")
                    if ctx.rc is None:
                        raise CaseError("CAPTURE before any RUN")
                    found = re.search(pattern, normalised(ctx, ctx.out), re.M)
                    if not found or found.lastindex is None:
                        raise CaseError(f"no match of /{pattern}/ (with a group) in stdout:\n{ctx.out}")
                    try:
                        ctx.labelled[name] = json.dumps(float(found.group(1)))
                    except ValueError:
                        ctx.labelled[name] = json.dumps(found.group(1))
                    continue
                if word == "ABSENT":
                    if os.path.lexists(rest):
                        raise CaseError(f"{rest} exists")
                    continue
                if word == "NORMALIZE":
                    pattern, _, repl = rest.partition(" => ")
                    ctx.normalizers.append((pattern if pattern != ctx.tmp else re.escape(pattern), repl))
                    continue
                m = re.fullmatch(r"RUN(?:\[(test|model|none|gstackc)\])?(?:@(\w+))?", word)
                if m:
                    if not ctx.exit_checked:
                        check_exit(ctx, 0)
                    run(ctx, m.group(1) or "test", shlex.split(rest))
                    if m.group(2):
                        ctx.labelled[m.group(2)] = ctx.out
                    continue
                m = re.fullmatch(r"READ(-CSV|-JSONL)?(?:@(\w+))?", word)
                if m:
                    # Later checks read this file's text as if it were the last RUN's stdout; a labelled READ may
                    # come before any RUN (data a later RUN line uses through %{label:path}).
                    if ctx.rc is None and not m.group(2):
                        raise CaseError("READ before any RUN (label it, READ@name, to load data for later lines)")
                    if not ctx.exit_checked:
                        check_exit(ctx, 0)
                    text = read_file(ctx, rest, m.group(1))
                    if m.group(2):
                        ctx.labelled[m.group(2)] = text
                    if ctx.rc is not None:
                        ctx.out = text
                    continue
                if word == "TIMEOUT":
                    # the next RUN must finish within this many seconds (a guard against a hang)
                    ctx.timeout = float(rest)
                    continue
                if word == "SH":
                    if not ctx.exit_checked:
                        check_exit(ctx, 0)
                    p = subprocess.run(["bash", "-c", rest], capture_output=True, text=True, cwd=ROOT)
                    if p.returncode != 0:
                        raise CaseError(f"setup command failed ({p.returncode}): {rest}\n{p.stderr}")
                    continue
                if ctx.rc is None:
                    raise CaseError(f"{word} before any RUN")
                if word == "EXIT":
                    check_exit(ctx, int(rest))
                    continue
                if not ctx.exit_checked:
                    check_exit(ctx, 0)
                if word == "SAME":
                    if rest not in ctx.labelled:
                        raise CaseError(f"no RUN@{rest} or READ@{rest} before this line")
                    if normalised(ctx, ctx.out) != normalised(ctx, ctx.labelled[rest]):
                        raise CaseError(f"stdout differs from that of RUN@{rest}")
                    continue
                if word in ("CHECK-RE", "CHECK-NOT-RE", "CHECK-ERR-RE", "CHECK-ERR-NOT-RE"):
                    stream = "stderr" if word.startswith("CHECK-ERR") else "stdout"
                    text = normalised(ctx, ctx.err if stream == "stderr" else ctx.out)
                    found = re.search(rest, text, re.M) is not None
                    if found == ("-NOT-" in word):
                        raise CaseError(f"{'unexpected' if found else 'no'} match of /{rest}/ in {stream}:\n{text}")
                elif word in _TEXT_CHECKS:
                    stream = "stderr" if word.startswith("CHECK-ERR") else "stdout"
                    text = normalised(ctx, ctx.err if stream == "stderr" else ctx.out)
                    found = unescape(rest) in text
                    if found == word.endswith("-NOT"):
                        raise CaseError(f"{'unexpected' if found else 'missing'} {rest!r} in {stream}:\n{text}")
                elif word == "GOLDEN":
                    golden(ctx, rest)
                elif word == "JSON":
                    json_check(ctx, rest)
                else:
                    raise CaseError(f"unknown directive '{word}'")
            except CaseError as e:
                raise CaseError(f"{ctx.where(lineno)}: {e}")
        if ctx.rc is None:
            raise CaseError(f"{ctx.where(1)}: the case runs nothing")
        if not ctx.exit_checked:
            check_exit(ctx, 0)


def unescape(text):
    """\\n and \\t in a CHECK's text are a newline and a tab; \\\\ is one backslash; any other backslash stays."""
    return re.sub(r"\\([\\nt])", lambda m: {"n": "\n", "t": "\t", "\\": "\\"}[m.group(1)], text)


_TEXT_CHECKS = ("CHECK", "CHECK-ERR", "CHECK-NOT", "CHECK-ERR-NOT")


def check_listing(folder, patterns):
    """The folder holds exactly one entry per pattern (a name, or a glob such as E004-*.json)."""
    import fnmatch
    found = sorted(os.listdir(folder))
    unmatched = [p for p in patterns if not fnmatch.filter(found, p)]
    stray = [f for f in found if not any(fnmatch.fnmatch(f, p) for p in patterns)]
    if unmatched or stray or len(found) != len(patterns):
        raise CaseError(f"{folder} holds {found}, expected {sorted(patterns)}")


def read_file(ctx, rest, form):
    """A file's text (`@path` names the file by a value of the last stdout's JSON); a CSV is read as a JSON list
    of its data rows, each an object keyed by the header, a cell that is a number becoming one, so JSON checks
    reach it (`JSON [0]."econ.run.power_cost[USD]" ~ 2.1667e-4`)."""
    path = rest
    if rest.startswith("@"):
        values = reference(ctx, rest[1:])
        if len(values) != 1 or not isinstance(values[0], str):
            raise CaseError(f"{rest} does not name one file: {values!r}")
        path = values[0]
    try:
        with open(path, newline="" if form == "-CSV" else None) as f:
            text = f.read()
    except OSError as e:
        raise CaseError(f"cannot read {path}: {e.strerror}")
    if form == "-JSONL":
        # JSON lines: one document per line, read as a list of them
        try:
            return json.dumps([json.loads(line) for line in text.splitlines() if line.strip()])
        except ValueError as e:
            raise CaseError(f"{path} is not JSON lines ({e})")
    if form != "-CSV":
        return text
    import csv
    import io

    def cell(value):
        try:
            number = json.loads(value)
        except ValueError:
            return value
        return number if isinstance(number, (int, float)) and not isinstance(number, bool) else value
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise CaseError(f"{path} has no header row")
    return json.dumps([dict(zip(rows[0], (cell(c) for c in row))) for row in rows[1:]])


def case_files(directory):
    return sorted(f[:-5] for f in os.listdir(directory) if f.endswith(".test"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--dir", default=CASES_DIR)
    ap.add_argument("--case")
    ap.add_argument("--gpu-stack")
    ap.add_argument("--test-image")
    ap.add_argument("--model-image")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--expect-failures", action="store_true", help="every case must fail as its '# EXPECT-FAIL:' line says")
    args = ap.parse_args()
    if args.list:
        print("\n".join(case_files(args.dir)))
        return 0
    names = [args.case] if args.case else case_files(args.dir)
    failed = 0
    for name in names:
        path = os.path.join(args.dir, name + ".test")
        try:
            run_case(args, path)
            error = None
        except CaseError as e:
            error = str(e)
        if args.expect_failures:
            # The runner's own test: each case must fail with the message its EXPECT-FAIL line gives.
            with open(path) as f:
                wanted = [l.split(":", 1)[1].strip() for l in f if l.startswith("# EXPECT-FAIL:")]
            if error is None or not wanted or wanted[0] not in error:
                failed += 1
                print(f"FAIL {name}: expected a failure containing {wanted[:1]}, got {error!r}")
        elif error is not None:
            failed += 1
            print(f"FAIL {name}: {error}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
