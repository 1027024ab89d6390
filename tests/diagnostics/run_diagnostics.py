#!/usr/bin/env python3
"""Checks .gstack diagnostics cases whose expectations are written in the case itself (clang -verify style).

  run_diagnostics.py --gstackc PATH CASE.gstack...               check each case
  run_diagnostics.py --gstackc PATH --print CASE.gstack          the directives its diagnostics would need
  run_diagnostics.py --gstackc PATH --expect-failures DIR        the runner's own test (selftest/)

A case is compiled with `gstackc check --json` after the units and physics systems, from its own folder
with relative paths. Every diagnostic emitted must match one expectation and every expectation must
match one diagnostic (file, line, column, severity, code, message, hint as written). Where NAME.expected
sits beside the case, gstackc's whole stderr (caret lines and all) must also equal it. docs/testing.md
gives the directives; in short:

  # expect-error@+1:39 E-UNKNOWN-NAME: unknown name 'econ.cost.per_tokn'
  # expect-hint: did you mean 'econ.cost.per_token'?
"""
import argparse
import difflib
import json
import os
import re
import subprocess
import sys

# @WHERE is [FILE:]LINE[:COLUMN]; LINE is +N / -N (counted from the directive, skipping expect lines) or N.
DIRECTIVE = re.compile(r"^# expect-(?P<sev>error|warning)@(?P<where>\S+) (?P<code>[A-Z][A-Z0-9-]*)"
                       r"(?:(?P<op>: | ~ )(?P<text>.*))?$")
HINT = re.compile(r"^# expect-hint(?P<op>: | ~ )(?P<text>.*)$")
NO_DIAGNOSTICS = "# expect-no-diagnostics"
LINE_SPEC = re.compile(r"^[+-]?\d+$")


class CaseError(Exception):
    """A case that fails: its message says why."""


class Expectation:
    def __init__(self, at, severity, file, line, column, code, op, text):
        self.at, self.severity, self.file, self.line, self.column = at, severity, file, line, column
        self.code, self.op, self.text = code, op, text
        self.hint_op = self.hint = None

    def where(self):
        return f"{self.file}:{self.line}" + (f":{self.column}" if self.column is not None else "")

    def describe(self):
        msg = "" if self.op is None else (f": {self.text}" if self.op == ": " else f" ~ {self.text}")
        hint = " (no hint)" if self.hint_op is None else f" (hint{self.hint_op.rstrip()} {self.hint})"
        return f"{self.severity}[{self.code}] at {self.where()}{msg}{hint}"

    def matches(self, d):
        def text_ok(op, want, got):
            return op is None or (got == want if op == ": " else want in got)
        # A hint is part of what a diagnostic says: without expect-hint, the diagnostic must have none.
        hint_ok = d["hint"] == "" if self.hint_op is None else text_ok(self.hint_op, self.hint, d["hint"])
        return (d["severity"] == self.severity and d["file"] == self.file and d["line"] == self.line
                and (self.column is None or d["column"] == self.column) and d["code"] == self.code
                and text_ok(self.op, self.text, d["message"]) and hint_ok)

    def strictness(self):
        # Strict expectations claim their diagnostics first, so a looser one cannot take another's match.
        return (self.column is None, self.op != ": ", self.hint_op not in (None, ": "))


def describe_diagnostic(d):
    hint = f" (hint: {d['hint']})" if d["hint"] else ""
    return f"{d['severity']}[{d['code']}] at {d['file']}:{d['line']}:{d['column']}: {d['message']}{hint}"


def read_lines(path):
    # Cases may hold bytes that are not UTF-8 (the encoding diagnostic's own case): keep them as they are.
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines  # the final newline ends a line, starts none


def load_order(lines):
    """The prelude a case loads before itself ("units" or "physics") and the files it loads after itself."""
    prelude = "units" if "# prelude: units" in lines else "physics"
    return prelude, [l[len("# load-after: "):] for l in lines if l.startswith("# load-after: ")]


def parse_case(path):
    """The case's expectations, its prelude and the files it loads after itself."""
    name = os.path.basename(path)
    lines = read_lines(path)
    is_directive = [l.startswith("# expect-") for l in lines]
    source_lines = [n for n, d in enumerate(lines, 1) if not is_directive[n - 1]]
    expectations, no_diagnostics = [], False

    def resolve_line(spec, at, file):
        if not spec.startswith(("+", "-")):
            return int(spec)
        if file != name:
            raise CaseError(f"{name}:{at}: a line in another file ({file}) must be absolute")
        offset = int(spec)
        later = [n for n in source_lines if (n > at if offset > 0 else n < at)]
        if offset == 0 or abs(offset) > len(later):
            raise CaseError(f"{name}:{at}: @{spec} points outside the file")
        return later[offset - 1] if offset > 0 else later[offset]

    for n, line in enumerate(lines, 1):
        if line == NO_DIAGNOSTICS:
            no_diagnostics = True
        elif is_directive[n - 1]:
            m, h = DIRECTIVE.match(line), HINT.match(line)
            if h:
                if not expectations or expectations[-1].at != n - 1 - (expectations[-1].hint_op is not None):
                    raise CaseError(f"{name}:{n}: expect-hint must directly follow the expectation it belongs to")
                if expectations[-1].hint_op is not None:
                    raise CaseError(f"{name}:{n}: a second expect-hint for one expectation")
                expectations[-1].hint_op, expectations[-1].hint = h["op"], h["text"]
                continue
            if not m:
                raise CaseError(f"{name}:{n}: malformed directive (docs/testing.md): {line}")
            parts = m["where"].split(":")
            file = name
            if not LINE_SPEC.match(parts[0]):
                file, parts = parts[0], parts[1:]
            if not parts or len(parts) > 2 or not LINE_SPEC.match(parts[0]) or (len(parts) == 2 and not parts[1].isdigit()):
                raise CaseError(f"{name}:{n}: malformed location '@{m['where']}' (want [FILE:]LINE[:COLUMN])")
            column = int(parts[1]) if len(parts) == 2 else None
            expectations.append(Expectation(n, m["sev"], file, resolve_line(parts[0], n, file), column,
                                            m["code"], m["op"], m["text"]))
    if no_diagnostics and expectations:
        raise CaseError(f"{name}: expect-no-diagnostics together with expectations")
    if not no_diagnostics and not expectations:
        raise CaseError(f"{name}: no expectations (write '{NO_DIAGNOSTICS}' for a case that must compile cleanly)")
    return (expectations,) + load_order(lines)


MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "model")


def gstackc_args(folder, name, prelude, load_after):
    # Relative paths from the case's folder, so that no message holds a machine-specific path.
    preludes = ["00_units.gstack"] + (["01_physics.gstack"] if prelude == "physics" else [])
    return [os.path.relpath(os.path.join(MODEL, p), folder) for p in preludes] + [name] + load_after


def run_gstackc(gstackc, folder, args, json_out):
    """Exit status, stdout and stderr as bytes (a golden may hold bytes that are not UTF-8)."""
    cmd = [gstackc, "check"] + (["--json"] if json_out else []) + args
    try:
        p = subprocess.run(cmd, cwd=folder, capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise CaseError(f"'{' '.join(cmd)}' did not finish within 120 s")
    return p.returncode, p.stdout, p.stderr


def check_case(gstackc, path, update=False):
    folder, name = os.path.dirname(os.path.abspath(path)), os.path.basename(path)
    expectations, prelude, load_after = parse_case(path)
    args = gstackc_args(folder, name, prelude, load_after)
    status, out, err = run_gstackc(gstackc, folder, args, json_out=True)
    err = err.decode("utf-8", "replace")
    want_status = 1 if any(e.severity == "error" for e in expectations) else 0
    if status not in (0, 1):
        raise CaseError(f"{name}: gstackc exited {status}; stderr:\n{err}")
    try:
        emitted = json.loads(out)
    except json.JSONDecodeError as e:
        raise CaseError(f"{name}: gstackc --json printed no JSON ({e}):\n{out}")

    problems = []
    unmatched = list(emitted)
    for e in sorted(expectations, key=Expectation.strictness):
        hit = next((d for d in unmatched if e.matches(d)), None)
        if hit is None:
            problems.append(f"{name}:{e.at}: expected {e.describe()}, not emitted")
        else:
            unmatched.remove(hit)
    problems += [f"{name}: unexpected {describe_diagnostic(d)}" for d in unmatched]
    if status != want_status:
        problems.append(f"{name}: gstackc exited {status}, expected {want_status}")

    golden = os.path.join(folder, name[:-len(".gstack")] + ".expected")
    if os.path.exists(golden):
        _, _, text = run_gstackc(gstackc, folder, args, json_out=False)
        if update:
            with open(golden, "wb") as f:
                f.write(text)
            print(f"updated {golden}")
        else:
            with open(golden, "rb") as f:
                want = f.read()
            if text != want:
                lines = lambda b: b.decode("utf-8", "replace").splitlines(True)
                diff = "".join(difflib.unified_diff(lines(want), lines(text), golden, "gstackc stderr"))
                problems.append(f"{name}: the rendered diagnostics differ from {os.path.basename(golden)}:\n{diff}")
    if problems:
        raise CaseError("\n".join(problems))


def print_directives(gstackc, path):
    """Directives with absolute lines for what the case emits now: a start for writing a case, to be read."""
    folder, name = os.path.dirname(os.path.abspath(path)), os.path.basename(path)
    _, out, _ = run_gstackc(gstackc, folder, gstackc_args(folder, name, *load_order(read_lines(path))), json_out=True)
    for d in json.loads(out):
        file = "" if d["file"] == name else d["file"] + ":"
        print(f"# expect-{d['severity']}@{file}{d['line']}:{d['column']} {d['code']}: {d['message']}")
        if d["hint"]:
            print(f"# expect-hint: {d['hint']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gstackc", required=True)
    ap.add_argument("--update", action="store_true", help="rewrite the .expected goldens that exist")
    ap.add_argument("--print", action="store_true", help="print directives for what each case emits now")
    ap.add_argument("--expect-failures", metavar="DIR",
                    help="every case in DIR must fail with each message its '# EXPECT-FAIL:' lines give")
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    if os.sep in args.gstackc:  # the cases run from their own folder, so a relative path must not stay relative
        args.gstackc = os.path.abspath(args.gstackc)

    if args.expect_failures:
        failed = 0
        cases = sorted(f for f in os.listdir(args.expect_failures) if f.endswith(".gstack"))
        for case in cases:
            path = os.path.join(args.expect_failures, case)
            wanted = [l.split(":", 1)[1].strip() for l in read_lines(path) if l.startswith("# EXPECT-FAIL:")]
            try:
                check_case(args.gstackc, path)
                failed += 1
                print(f"FAIL {case}: the case passed, but it must fail")
            except CaseError as e:
                missing = [w for w in wanted if w not in str(e)]
                if not wanted or missing:
                    failed += 1
                    print(f"FAIL {case}: it failed, but not with {missing or 'an EXPECT-FAIL line'}:\n{e}")
        print(f"{len(cases) - failed} of {len(cases)} self-test cases failed as they must")
        return 1 if failed or not cases else 0

    failed = 0
    for path in args.cases:
        if args.print:
            print_directives(args.gstackc, path)
            continue
        try:
            check_case(args.gstackc, path, args.update)
        except CaseError as e:
            failed += 1
            print(f"FAIL {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
