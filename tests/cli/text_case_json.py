"""The JSON side of the text CLI cases (run_text_tests.py): paths into a document, the values a check
compares with (literals, references to this or a labelled output, arithmetic), and the `JSON` check itself.
docs/testing.md describes the syntax."""
import json
import re
import sys

DEFAULT_REL = 1e-12


class CaseError(Exception):
    """A check failed or the case file is malformed; the runner adds the file and line."""


# ---- JSON paths

_STEP = re.compile(r'\.?"([^"]*)"|\.?([^.\[\]"]+)|\[([^\]]*)\]')


def _steps(path):
    pos, out = 0, []
    while pos < len(path):
        m = _STEP.match(path, pos)
        if not m:
            raise CaseError(f"bad JSON path '{path}' at '{path[pos:]}'")
        # a key, a quoted key (one with dots or brackets: ."econ.run.power_cost[USD]"), or an index/selector
        key = m.group(1) if m.group(1) is not None else m.group(2)
        out.append(("key", key) if key is not None else ("index", m.group(3)))
        pos = m.end()
    return out


def _literal(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


def _call(path):
    """A leading function call `fn(args)` of a path: (fn, args, the steps after it), or None."""
    m = re.match(r"(len|sum|keys|count|depth|join|sorted|sortby)\(", path)
    if not m:
        return None
    depth = 0
    for i in range(m.end() - 1, len(path)):
        depth += {"(": 1, ")": -1}.get(path[i], 0)
        if depth == 0:
            return m.group(1), path[m.end():i], path[i + 1:]
    raise CaseError(f"unbalanced parentheses in path '{path}'")


def _apply(fn, args, doc):
    if fn == "sortby":
        # sortby(key, path): the objects path selects (one list is taken as its elements), ordered by key,
        # so two documents' lists can be compared element by element (`each`).
        key, _, inner = (a.strip() for a in args.partition(","))
        values = select(doc, inner)
        items = values[0] if len(values) == 1 and isinstance(values[0], list) else values
        try:
            return [sorted(items, key=lambda e: e[key])]
        except (KeyError, TypeError):
            raise CaseError(f"sortby: not every element of '{inner}' has a key '{key}'")
    values = select(doc, args)
    if fn == "count":
        return [len(values)]
    if fn == "join":
        return [", ".join(v) for v in values]
    if fn == "depth":
        return [_depth(v) for v in values]
    if fn == "sorted":
        return [sorted(v) for v in values]
    if fn == "len":
        return [len(v) for v in values]
    if fn == "keys":
        return [sorted(v) for v in values]
    if len(values) == 1 and isinstance(values[0], (list, dict)):
        return [sum(values[0].values()) if isinstance(values[0], dict) else sum(values[0])]
    return [sum(values)]


def _depth(value):
    """How deeply arrays and objects nest (a scalar 0, [] 1, {"a": []} 2), walked without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, above = stack.pop()
        if isinstance(node, (list, dict)):
            deepest = max(deepest, above + 1)
            stack.extend((child, above + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _parse_deep(text):
    """json.loads for documents nested deeper than Python's recursion limit (a 30,000-link trace): parsed in a
    thread with a large stack."""
    import threading
    result = {}

    def parse():
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(1_000_000)
        try:
            result["doc"] = json.loads(text)
        except (ValueError, RecursionError) as e:
            result["error"] = e
        finally:
            sys.setrecursionlimit(limit)
    previous = threading.stack_size(1 << 29)
    try:
        worker = threading.Thread(target=parse)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(previous)
    if "error" in result:
        raise ValueError(str(result["error"]))
    return result["doc"]


def _holds(element, key, want):
    if not key.endswith("^"):
        return element.get(key) == want
    value = element.get(key[:-1])
    items = value if isinstance(value, list) else [value]
    return any(isinstance(v, str) and v.startswith(str(want)) for v in items)


def select(doc, path):
    """The values at path: a list (one element unless the path has [*]). `.` is the whole document."""
    call = _call(path)
    if call:
        nodes, path = _apply(call[0], call[1], doc), call[2]
    else:
        nodes = [doc]
    if path in ("", "."):
        return nodes
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
                # [a=x&b=y]: every condition holds; [?a^=text]: a starts with text (or, a list, has an item that does)
                conds = [(k, _literal(w)) for k, _, w in (c.partition("=") for c in arg.lstrip("?").split("&"))]
                hit = [e for e in node if isinstance(e, dict) and all(_holds(e, k, w) for k, w in conds)]
                if not hit and not every:
                    want = " and ".join(f"{k} = {w!r}" for k, w in conds)
                    raise CaseError(f"no element with {want} at path '{path}'")
                nxt.extend(hit if every else hit[:1])
            elif ":" in arg:
                # a slice, [1:] or [:-1]: the elements as many values
                lo, _, hi = arg.partition(":")
                try:
                    nxt.extend(node[int(lo) if lo else None:int(hi) if hi else None])
                except (ValueError, TypeError, KeyError):
                    raise CaseError(f"bad slice [{arg}] at path '{path}'")
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
    # Relative to the expected value, so `rel 0.05` means within 5% of the number the case states.
    return abs(actual - expected) <= (DEFAULT_REL if rel is None else rel) * abs(expected)


def _compare(op, actual, expected, tol):
    if op == "=":
        return actual == expected
    if op == "!=":
        return actual != expected
    if op == "~":
        return _close(actual, expected, **tol)
    if op == "!~":
        return isinstance(actual, (int, float)) and not _close(actual, expected, **tol)
    if op == "contains":
        return expected in actual
    if op == "!contains":
        return expected not in actual
    if op == "in":
        return actual in expected
    if op == "startswith":
        return isinstance(actual, str) and actual.startswith(expected)
    if op == "endswith":
        return isinstance(actual, str) and actual.endswith(expected)
    ops = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
    if op in ops:
        return isinstance(actual, (int, float)) and ops[op](actual, expected)
    raise CaseError(f"unknown operator '{op}'")


# A path is written without spaces except inside [...] and "..." (`results[label=peak per GPU].value`).
_PATH = r'(?:[^\s\["]|\[[^\]]*\]|"[^"]*")+'
_JSON_CHECK = re.compile(r"(" + _PATH + r")\s+(?:(all|any|each)\s+)?(=|!=|<=|>=|<|>|~|!~|!contains|contains|startswith|endswith|in|all=|any="
                         r"|sorted-desc-abs|sorted-desc|sorted)(?:\s+(.*))?$")


def document(ctx, label=None):
    """The last stdout (or a labelled one) read as JSON."""
    text = ctx.out if label is None else ctx.labelled.get(label)
    if text is None:
        raise CaseError(f"no RUN@{label} or READ@{label} before this line")
    try:
        try:
            return json.loads(text)
        except RecursionError:
            return _parse_deep(text)
    except ValueError as e:
        raise CaseError(f"{'stdout' if label is None else label} is not JSON ({e}):\n{text[:2000]}")


def reference(ctx, text):
    """The values of `@path` (the last stdout's JSON) or `@label:path` (a labelled RUN's or READ's)."""
    m = re.fullmatch(r"(\w+):(.*)", text)
    if m:
        return select(document(ctx, m.group(1)), m.group(2))
    return select(document(ctx), text)


def _references(text):
    """Split arithmetic into text and `@...` references; a reference ends at a space or an unmatched ')'."""
    parts, i = [], 0
    while True:
        at = text.find("@", i)
        if at < 0:
            return parts + [text[i:]]
        parts.append(text[i:at])
        j, depth = at + 1, 0
        while j < len(text) and (depth > 0 or not text[j].isspace()):
            depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(text[j], 0)
            if depth < 0:
                break
            j += 1
        parts.append(text[at:j])
        i = j


def arithmetic(ctx, text):
    """A number written as arithmetic (`=5200 * 1.5 / 3.6e9 * 100`), so a case shows how it is derived. It may
    use other values: `=@total:value / @steps:value` (each reference must select one number)."""
    import ast
    import operator
    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow, ast.USub: operator.neg}
    names, source = {}, ""
    for part in _references(text):
        if part.startswith("@"):
            # A reference to many values makes the arithmetic element by element (a list, checked with
            # `each` or `all`): `LET gap (@rows[*].reported - @rows[*].low)`.
            values = reference(ctx, part[1:])
            if not values or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
                raise CaseError(f"{part} in '{text}' is not a number: {values!r}")
            name = f"_ref{len(names)}"
            names[name] = values[0] if len(values) == 1 else values
            source += name
        else:
            source += part

    def apply(fn, *args):
        lists = [a for a in args if isinstance(a, list)]
        if not lists:
            return fn(*args)
        if len({len(a) for a in lists}) != 1:
            raise CaseError(f"'{text}' combines lists of different lengths")
        return [fn(*(a[i] if isinstance(a, list) else a for a in args)) for i in range(len(lists[0]))]

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "abs" and len(node.args) == 1:
            return apply(abs, value(node.args[0]))
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return apply(ops[type(node.op)], value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in ops:
            return apply(ops[type(node.op)], value(node.operand))
        raise CaseError(f"'{text}' is not plain arithmetic")
    try:
        return value(ast.parse(source.strip(), mode="eval").body)
    except (SyntaxError, ZeroDivisionError, OverflowError) as e:
        raise CaseError(f"'{text}' is not plain arithmetic ({e})")


def json_check(ctx, text):
    m = _JSON_CHECK.match(text)
    if not m:
        raise CaseError(f"expected 'JSON path op value', got '{text}'")
    path, quantifier, op, rhs = m.groups()
    rhs = rhs or ""
    if op in ("all=", "any="):
        quantifier, op = op[:3], "="
    tol = {}
    tm = re.fullmatch(r"(.*?)\s+(rel|abs)\s+(\S+)", rhs) if op in ("~", "!~") else None
    if tm:
        rhs = tm.group(1)
        tol = {"rel": float(tm.group(3))} if tm.group(2) == "rel" else {"abs_tol": float(tm.group(3))}
    if op == "in" and rhs.startswith("@"):
        # The values of one or more references, pooled: `in @a:nodes[*].name @b:nodes[*].name`.
        expected = [v for ref in _references(rhs) if ref.startswith("@") for v in reference(ctx, ref[1:])]
    elif rhs.startswith("@"):
        expected = reference(ctx, rhs[1:])
        if quantifier != "each":
            expected = expected[0] if len(expected) == 1 else expected
    elif rhs.startswith("="):
        expected = arithmetic(ctx, rhs[1:])
    else:
        expected = _literal(rhs)
    # The checked path may itself be another document's: `JSON @a:nodes[*].name all in @both:nodes[*].name`.
    values = reference(ctx, path[1:]) if path.startswith("@") else select(document(ctx), path)
    if op.startswith("sorted"):
        key = abs if op.endswith("-abs") else None
        if values != sorted(values, key=key, reverse="desc" in op):
            raise CaseError(f"{path} is not in {'descending' if 'desc' in op else 'ascending'} order: {values!r}")
        return
    if quantifier == "each":
        # Element by element: the i-th value of the path against the i-th value on the right.
        if not isinstance(expected, list) or len(expected) != len(values) or not values:
            raise CaseError(f"{path} each {op}: {len(values)} values against {expected!r}")
        bad = [(v, e) for v, e in zip(values, expected) if not _compare(op, v, e, tol)]
        if bad:
            raise CaseError(f"{path} each {op}: {len(bad)} pairs fail, the first {bad[0][0]!r} {op} {bad[0][1]!r}")
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
