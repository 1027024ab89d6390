#!/usr/bin/env python3
"""Text CLI cases: each tests/cli/cases/*.test file is one self-describing case.

The format (docs/testing.md has the full reference):

  # The first comment says what the case checks; more comment lines may follow.
  FILE %t/rack.toml            write the lines up to END into a file (for presets, runs, scenarios)
  ENV NAME=VALUE               set a variable for the next RUN only
  RUN[model] resolve X --json  run gpu-stack (image: test by default; [model] the shipped one; [none] no --image)
  EXIT 2                       the exit status the last RUN must have (0 when absent)
  CHECK text                   stdout contains text;  CHECK-ERR: stderr;  CHECK-NOT: stdout lacks it
  CHECK-RE regex               stdout matches (multi-line: ^ and $ at each line);  CHECK-NOT-RE: it does not
  GOLDEN name                  stdout equals tests/cli/golden/name.txt (image paths and %t normalised)
  NORMALIZE regex => text      rewrite stdout before GOLDEN/CHECK (e.g. wall-clock times)
  DIR folder = a b             the folder holds exactly these entries (e.g. no temporary file left behind)
  SH command                   a setup step in bash (plant a link, copy a file); it must exit 0
  READ path                    later checks read this file as if it were the last RUN's stdout
  RUN@name ...; SAME name      label a RUN's stdout; SAME checks the last stdout equals it byte for byte
  JSON path op value           a check on the last RUN's stdout read as JSON

JSON paths: a.b[0].c, list[key=value] (the first element whose key equals value), list[?key=value] (every
such element), list[*] (every element), len(path), sum(path), keys(path). Operators: = != < <= > >= , ~
(relative 1e-12, or `~ X rel 1e-6` / `~ X abs 1e-9`), contains, !contains, startswith; `all OP` / `any OP`
(every / some value of a many-valued path; `all=` is `all =`); sorted, sorted-desc, sorted-desc-abs (no
value). A many-valued path compares whole with a list (`= [..]`) and contains tests membership. The value is a JSON literal, a bare word (read as a string), @path (another path of
the same document) or =arithmetic (`=5200 * 1.5 / 3.6e9`, to show how an expected number is derived).

Substitutions in every line: %t (a temporary folder kept for the case), %presets, %data, %model-image,
%test-image, %gstackc.

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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CASES_DIR = os.path.join(HERE, "cases")
GOLDEN = os.path.join(HERE, "golden")
DEFAULT_REL = 1e-12


class CaseError(Exception):
    """A check failed or the case file is malformed; the message names the file and line."""


class Context:
    def __init__(self, args, tmp, path):
        self.args = args
        self.tmp = tmp
        self.path = path
        self.subs = {
            "%test-image": args.test_image, "%model-image": args.model_image, "%presets": os.path.join(ROOT, "presets"),
            "%data": os.path.join(ROOT, "data"), "%gstackc": os.path.join(os.path.dirname(os.path.abspath(args.gpu_stack)), "gstackc"),
            "%t": tmp,
        }
        self.out = self.err = None
        self.rc = None
        self.cmd = None
        self.exit_checked = True
        self.env = {}
        self.normalizers = []
        self.labelled = {}

    def substitute(self, text):
        for key in sorted(self.subs, key=len, reverse=True):
            text = text.replace(key, self.subs[key])
        return text

    def where(self, lineno):
        return f"{os.path.relpath(self.path, ROOT)}:{lineno}"


# ---- JSON paths

_STEP = re.compile(r"\.?([^.\[\]]+)|\[([^\]]*)\]")


def _steps(path):
    pos, out = 0, []
    while pos < len(path):
        m = _STEP.match(path, pos)
        if not m:
            raise CaseError(f"bad JSON path '{path}' at '{path[pos:]}'")
        out.append(("key", m.group(1)) if m.group(1) is not None else ("index", m.group(2)))
        pos = m.end()
    return out


def _literal(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


def select(doc, path):
    """The values at path: a list (one element unless the path has [*])."""
    fn = re.fullmatch(r"(len|sum|keys)\((.*)\)", path)
    if fn:
        values = select(doc, fn.group(2))
        if fn.group(1) == "len":
            return [len(v) for v in values]
        if fn.group(1) == "keys":
            return [sorted(v) for v in values]
        return [sum(v.values()) if isinstance(v, dict) else sum(v) for v in values] if len(values) == 1 else [sum(values)]
    nodes = [doc]
    for kind, arg in _steps(path):
        nxt = []
        for node in nodes:
            if kind == "key":
                if isinstance(node, dict) and arg in node:
                    nxt.append(node[arg])
                elif arg == "*" and isinstance(node, dict):
                    nxt.extend(node.values())
                else:
                    raise CaseError(f"no key '{arg}' at path '{path}'")
            elif arg == "*":
                nxt.extend(node if isinstance(node, list) else node.values())
            elif "=" in arg:
                every = arg.startswith("?")
                key, want = arg.lstrip("?").split("=", 1)
                want = _literal(want)
                hit = [e for e in node if isinstance(e, dict) and e.get(key) == want]
                if not hit:
                    raise CaseError(f"no element with {key} = {want!r} at path '{path}'")
                nxt.extend(hit if every else hit[:1])
            else:
                try:
                    nxt.append(node[int(arg)])
                except (IndexError, ValueError, TypeError, KeyError):
                    raise CaseError(f"no element [{arg}] at path '{path}'")
        nodes = nxt
    return nodes


def _close(actual, expected, rel=None, abs_tol=None):
    if not isinstance(actual, (int, float)) or isinstance(actual, bool):
        return False
    if abs_tol is not None:
        return abs(actual - expected) <= abs_tol
    scale = max(abs(actual), abs(expected))
    return scale == 0 or abs(actual - expected) / scale <= (DEFAULT_REL if rel is None else rel)


def _compare(op, actual, expected, tol):
    if op == "=":
        return actual == expected
    if op == "!=":
        return actual != expected
    if op == "~":
        return _close(actual, expected, **tol)
    if op == "contains":
        return expected in actual
    if op == "!contains":
        return expected not in actual
    if op == "startswith":
        return isinstance(actual, str) and actual.startswith(expected)
    ops = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
    if op in ops:
        return isinstance(actual, (int, float)) and ops[op](actual, expected)
    raise CaseError(f"unknown operator '{op}'")


_JSON_CHECK = re.compile(r"(\S+)\s+(?:(all|any)\s+)?(=|!=|<=|>=|<|>|~|!contains|contains|startswith|all=|any="
                         r"|sorted-desc-abs|sorted-desc|sorted)(?:\s+(.*))?$")


def arithmetic(text):
    """A number written as arithmetic (`=5200 * 1.5 / 3.6e9 * 100`), so a case shows how it is derived."""
    import ast
    import operator
    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow, ast.USub: operator.neg}

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in ops:
            return ops[type(node.op)](value(node.operand))
        raise CaseError(f"'{text}' is not plain arithmetic")
    try:
        return value(ast.parse(text.strip(), mode="eval").body)
    except SyntaxError:
        raise CaseError(f"'{text}' is not plain arithmetic")


def json_check(ctx, text):
    m = _JSON_CHECK.match(text)
    if not m:
        raise CaseError(f"expected 'JSON path op value', got '{text}'")
    path, quantifier, op, rhs = m.groups()
    rhs = rhs or ""
    if op in ("all=", "any="):
        quantifier, op = op[:3], "="
    tol = {}
    tm = re.fullmatch(r"(.*?)\s+(rel|abs)\s+(\S+)", rhs) if op == "~" else None
    if tm:
        rhs = tm.group(1)
        tol = {"rel": float(tm.group(3))} if tm.group(2) == "rel" else {"abs_tol": float(tm.group(3))}
    try:
        doc = json.loads(ctx.out)
    except ValueError as e:
        raise CaseError(f"stdout is not JSON ({e}):\n{ctx.out}")
    if rhs.startswith("@"):
        expected = select(doc, rhs[1:])
        expected = expected[0] if len(expected) == 1 else expected
    elif rhs.startswith("="):
        expected = arithmetic(rhs[1:])
    else:
        expected = _literal(rhs)
    values = select(doc, path)
    if op.startswith("sorted"):
        key = abs if op.endswith("-abs") else None
        if values != sorted(values, key=key, reverse="desc" in op):
            raise CaseError(f"{path} is not in {'descending' if 'desc' in op else 'ascending'} order: {values!r}")
        return
    if quantifier:
        hits = [_compare(op, v, expected, tol) for v in values]
        ok = bool(values) and (all(hits) if quantifier == "all" else any(hits))
        if not ok:
            raise CaseError(f"{path} {quantifier} {op} {expected!r}: values are {values!r}")
        return
    if len(values) != 1:
        if (op == "=" and isinstance(expected, list)) or op in ("contains", "!contains"):
            values = [values]  # a [*] path as one list: compared whole, or searched for a member
        else:
            raise CaseError(f"{path} selects {len(values)} values; use all/any, or compare with a list")
    if not _compare(op, values[0], expected, tol):
        raise CaseError(f"{path} = {values[0]!r}, expected {op} {expected!r}" + (f" ({tol})" if tol else ""))


# ---- running a case

def run(ctx, image, argv):
    cmd = [ctx.args.gpu_stack, *argv]
    if image == "test":
        cmd += ["--image", ctx.args.test_image]
    elif image == "model":
        cmd += ["--image", ctx.args.model_image]
    env = dict(os.environ)
    for key in ("GSTACK_IMAGE", "GSTACK_PRESETS"):
        env.pop(key, None)
    env.update(ctx.env)
    ctx.env = {}
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
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
            rest = ctx.substitute(rest.strip())
            try:
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
                    found = sorted(os.listdir(folder))
                    if found != sorted(names.split()):
                        raise CaseError(f"{folder} holds {found}, expected {sorted(names.split())}")
                    continue
                if word == "NORMALIZE":
                    pattern, _, repl = rest.partition(" => ")
                    ctx.normalizers.append((pattern if pattern != ctx.tmp else re.escape(pattern), repl))
                    continue
                m = re.fullmatch(r"RUN(?:\[(test|model|none)\])?(?:@(\w+))?", word)
                if m:
                    if not ctx.exit_checked:
                        check_exit(ctx, 0)
                    run(ctx, m.group(1) or "test", shlex.split(rest))
                    if m.group(2):
                        ctx.labelled[m.group(2)] = ctx.out
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
                if word == "READ":
                    # Later checks read this file's text as if it were the last RUN's stdout.
                    try:
                        with open(rest) as f:
                            ctx.out = f.read()
                    except OSError as e:
                        raise CaseError(f"cannot read {rest}: {e.strerror}")
                    continue
                if word == "SAME":
                    if ctx.out != ctx.labelled.get(rest):
                        raise CaseError(f"stdout differs from that of RUN@{rest}")
                    continue
                if word in ("CHECK-RE", "CHECK-NOT-RE"):
                    text = normalised(ctx, ctx.out)
                    found = re.search(rest, text, re.M) is not None
                    if found == (word == "CHECK-NOT-RE"):
                        raise CaseError(f"{'unexpected' if found else 'no'} match of /{rest}/ in stdout:\n{text}")
                elif word in ("CHECK", "CHECK-ERR", "CHECK-NOT"):
                    text = normalised(ctx, ctx.err if word == "CHECK-ERR" else ctx.out)
                    found = rest.replace("\\n", "\n").replace("\\t", "\t") in text
                    if found == (word == "CHECK-NOT"):
                        stream = "stderr" if word == "CHECK-ERR" else "stdout"
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
