#!/usr/bin/env python3
"""Drives gstack-lsp through scripted Language Server Protocol sessions and checks every answer.

    lsp_session.py GSTACK_LSP GSTACKC TEST_MODEL_DIR SHIPPED_MODEL_DIR

The test model (tests/lsp/model) has three files: units, a trip (distance, duration, speed) and its
cost, which uses the trip. Positions in the protocol are 0-based lines and UTF-16 characters; the
expected ones below are written out by hand (and, where a line holds a character outside the Basic
Multilingual Plane, also computed from the text, to show why they differ from code-point columns).
Every read has a deadline, so a server that hangs fails the test instead of stalling ctest.
"""
import json
import os
import random
import select
import shutil
import subprocess
import sys
import tempfile
import time

LSP, GSTACKC, MODEL, SHIPPED = (os.path.abspath(p) for p in sys.argv[1:5])
TIMEOUT_S = 30
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tally import check, finish  # noqa: E402


def uri(path):
    return "file://" + path


class Session:
    def __init__(self):
        # The server logs failed notifications to stderr: a file, so a full pipe can never block it.
        self.log = tempfile.TemporaryFile()
        self.p = subprocess.Popen([LSP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        self.buf = b""
        self.next_id = 0
        self.notes = []  # notifications received while waiting for replies

    def raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def _read_some(self, deadline):
        left = deadline - time.time()
        if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
            raise TimeoutError("no message from gstack-lsp within %d s" % TIMEOUT_S)
        chunk = os.read(self.p.stdout.fileno(), 65536)
        if not chunk:
            raise EOFError("gstack-lsp closed its output")
        self.buf += chunk

    def read(self):
        deadline = time.time() + TIMEOUT_S
        while b"\r\n\r\n" not in self.buf:
            self._read_some(deadline)
        header, self.buf = self.buf.split(b"\r\n\r\n", 1)
        length = int(header.decode().split(":")[1])
        while len(self.buf) < length:
            self._read_some(deadline)
        body, self.buf = self.buf[:length], self.buf[length:]
        return json.loads(body)

    def request(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.reply(self.next_id)

    def reply(self, id):
        while True:
            m = self.read()
            if "method" in m:
                self.notes.append(m)
            elif m.get("id") == id:
                return m

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics(self, path):
        """The next diagnostics published for `path` (earlier ones already read are used first)."""
        deadline = time.time() + TIMEOUT_S
        while time.time() < deadline:
            for i, n in enumerate(self.notes):
                if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri(path):
                    del self.notes[i]
                    return n["params"]
            self.notes.append(self.read())
        raise TimeoutError("no diagnostics for " + path)

    def wait(self):
        try:
            return self.p.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return None


def doc(path, line, character):
    return {"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": character}}


def utf16(s):
    return len(s.encode("utf-16-le")) // 2


def apply_edits(text, edits):
    """Applies LSP TextEdits (non-overlapping) to text, last first."""
    lines = text.split("\n")
    offsets = [0]
    for l in lines:
        offsets.append(offsets[-1] + len(l) + 1)

    def offset(pos):  # the test texts are ASCII, so UTF-16 characters are code points here
        return min(offsets[pos["line"]] + pos["character"], len(text)) if pos["line"] < len(lines) else len(text)

    for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]), reverse=True):
        text = text[:offset(e["range"]["start"])] + e["newText"] + text[offset(e["range"]["end"]):]
    return text


units, trip, cost = (os.path.join(MODEL, f) for f in ("00_units.gstack", "10_trip.gstack", "20_cost.gstack"))
trip_text = open(trip, encoding="utf-8").read()
cost_text = open(cost, encoding="utf-8").read()

# ---- a session over the test model
s = Session()
r = s.request("textDocument/hover", doc(cost, 0, 0))
check(r.get("error", {}).get("code") == -32002, "a request before initialize: ServerNotInitialized (-32002)")
r = s.request("initialize", {"processId": None, "rootUri": uri(MODEL), "capabilities": {}})
caps = r["result"]["capabilities"]
check(caps["textDocumentSync"]["change"] == 1 and caps["hoverProvider"] and caps["definitionProvider"]
      and caps["referencesProvider"] and caps["documentFormattingProvider"]
      and caps["completionProvider"]["triggerCharacters"] == ["."], "initialize: full sync, hover, definition, references, completion, formatting")
check(r["result"]["serverInfo"]["name"] == "gstack-lsp", "initialize: serverInfo names gstack-lsp")
s.notify("initialized", {})

# A unit error typed into the cost file: the right side is USD*s/m where the left is USD.
bad_unit = cost_text.replace("cost.per_km * trip.distance", "cost.per_km * trip.duration")
s.notify("textDocument/didOpen", {"textDocument": {"uri": uri(cost), "languageId": "gstack", "version": 1, "text": bad_unit}})
d = s.diagnostics(cost)
check(d["version"] == 1, "diagnostics carry the document's version (1)")
check(len(d["diagnostics"]) == 1, "one diagnostic for the unit error (got %d)" % len(d["diagnostics"]))
diag = d["diagnostics"][0]
# gstackc: 20_cost.gstack:8:24 (the right side's first character, 'cost.per_km'): line 7, characters 23-34.
check(diag["code"] == "E-UNIT-MISMATCH" and diag["severity"] == 1, "the unit error is E-UNIT-MISMATCH, severity error")
check(diag["range"] == {"start": {"line": 7, "character": 23}, "end": {"line": 7, "character": 34}},
      "the unit error's range is 8:24 as gstackc says, over 'cost.per_km' (got %s)" % diag["range"])
check("left is USD, right is s·USD·m^-1" in diag["message"] and "hint:" in diag["message"],
      "the message gives both dimensions and the hint")

# Fixed: the diagnostics are cleared.
s.notify("textDocument/didChange", {"textDocument": {"uri": uri(cost), "version": 2}, "contentChanges": [{"text": cost_text}]})
d = s.diagnostics(cost)
check(d["diagnostics"] == [] and d["version"] == 2, "fixing the error publishes an empty list (version 2)")

# A misspelt name: E-UNKNOWN-NAME over the whole name, with the suggestion.
typo = cost_text.replace("* trip.distance", "* trip.distanse")
s.notify("textDocument/didChange", {"textDocument": {"uri": uri(cost), "version": 3}, "contentChanges": [{"text": typo}]})
diag = s.diagnostics(cost)["diagnostics"][0]
check(diag["code"] == "E-UNKNOWN-NAME" and diag["range"] == {"start": {"line": 7, "character": 37}, "end": {"line": 7, "character": 50}},
      "unknown name: E-UNKNOWN-NAME at 8:38, over 'trip.distanse' (got %s %s)" % (diag["code"], diag["range"]))
check("did you mean 'trip.distance'?" in diag["message"], "unknown name: the hint suggests trip.distance")

# A syntax error: reported where gstackc reports it; hover still works from the last tree that parsed.
broken = cost_text.replace("eq total: cost.total =", "eq total cost.total =")
s.notify("textDocument/didChange", {"textDocument": {"uri": uri(cost), "version": 4}, "contentChanges": [{"text": broken}]})
diag = s.diagnostics(cost)["diagnostics"][0]
check(diag["code"] == "E-SYNTAX" and diag["range"]["start"] == {"line": 7, "character": 9},
      "syntax error: E-SYNTAX at 8:10 (got %s %s)" % (diag["code"], diag["range"]))
r = s.request("textDocument/hover", doc(cost, 4, 6))
check(r["result"] is not None and "cost.per_km" in r["result"]["contents"]["value"], "hover works while the file does not parse")
s.notify("textDocument/didChange", {"textDocument": {"uri": uri(cost), "version": 5}, "contentChanges": [{"text": cost_text}]})
check(s.diagnostics(cost)["diagnostics"] == [], "the syntax error clears once fixed")

# Hover: a variable's unit, description, doc line, sources and how it is defined.
r = s.request("textDocument/hover", doc(cost, 7, 42))  # on 'trip.distance' in 'eq total'
h = r["result"]["contents"]["value"]
check(r["result"]["contents"]["kind"] == "markdown", "hover is markdown")
for part in ["**`trip.distance`** : `km`", "Distance travelled", "How far the trip goes, door to door.",
             "**Root input**", "**Assumes**: positive", "`handbook`: A made-up driving handbook (test data) (textbook, 2020)",
             "Declared at `10_trip.gstack:7`", "(system `trip`)"]:
    check(part in h, "hover on trip.distance shows " + repr(part))
check(r["result"]["range"] == {"start": {"line": 7, "character": 37}, "end": {"line": 7, "character": 50}},
      "hover range is the name 'trip.distance' (got %s)" % r["result"]["range"])
s.notify("textDocument/didOpen", {"textDocument": {"uri": uri(trip), "languageId": "gstack", "version": 1, "text": trip_text}})
r = s.request("textDocument/hover", doc(trip, 8, 7))  # 'trip.speed' in its declaration
h = r["result"]["contents"]["value"]
check("`km/h`" in h and "**Defined by**:\n- `eq speed` (`10_trip.gstack:11`)" in h, "hover on trip.speed: km/h, defined by eq speed at line 11")
r = s.request("textDocument/hover", doc(cost, 7, 60))  # 'handbook' in a ref list
check("**ref `handbook`**" in r["result"]["contents"]["value"], "hover on a ref name shows the reference")
r = s.request("textDocument/hover", doc(cost, 2, 5))  # 'use trip'
check("**system `trip`**" in r["result"]["contents"]["value"], "hover on a used system shows the system")
r = s.request("textDocument/hover", doc(cost, 0, 1))
check(r["result"] is None, "hover on a comment: null")

# Definition, across files: 'trip.distance' in 20_cost.gstack -> its var line in 10_trip.gstack.
r = s.request("textDocument/definition", doc(cost, 7, 40))
check(r["result"] == {"uri": uri(trip), "range": {"start": {"line": 6, "character": 4}, "end": {"line": 6, "character": 17}}},
      "definition of trip.distance: 10_trip.gstack line 7, characters 4-17 (got %s)" % r["result"])
r = s.request("textDocument/definition", doc(cost, 4, 55))  # 'handbook' after a ref keyword
check(r["result"]["uri"] == uri(trip) and r["result"]["range"]["start"] == {"line": 3, "character": 4},
      "definition of the reference handbook: 10_trip.gstack line 4")

# References of handbook: its declaration and four uses in 10_trip.gstack (not the word inside the
# citation string on line 4), three uses in 20_cost.gstack.
# Line 11 of 10_trip.gstack has a character outside the BMP before 'handbook': the UTF-16 character is
# one more than the code-point column.
r = s.request("textDocument/references", {**doc(cost, 4, 55), "context": {"includeDeclaration": True}})
refs = sorted((x["uri"].rsplit("/", 1)[1], x["range"]["start"]["line"], x["range"]["start"]["character"]) for x in r["result"])
line11 = trip_text.split("\n")[10]
col = utf16(line11[:line11.rindex("handbook")])
check(col == 91 and len(line11[:line11.rindex("handbook")]) == 90, "line 11: 'handbook' at code point 90, UTF-16 character 91")
check(refs == [("10_trip.gstack", 3, 4), ("10_trip.gstack", 6, 48), ("10_trip.gstack", 7, 45), ("10_trip.gstack", 8, 42),
               ("10_trip.gstack", 10, 91), ("20_cost.gstack", 4, 52), ("20_cost.gstack", 5, 44), ("20_cost.gstack", 7, 55)],
      "references of handbook: 8 locations in two files (got %s)" % refs)
r = s.request("textDocument/references", {**doc(trip, 6, 8), "context": {"includeDeclaration": False}})
refs = sorted((x["uri"].rsplit("/", 1)[1], x["range"]["start"]["line"], x["range"]["start"]["character"]) for x in r["result"])
check(refs == [("10_trip.gstack", 10, 23), ("20_cost.gstack", 7, 37)], "references of trip.distance without its declaration (got %s)" % refs)

# Completion of variable names from the typed prefix.
typing = cost_text.replace("cost.per_km * trip.distance", "cost.per_km * trip.d")
s.notify("textDocument/didChange", {"textDocument": {"uri": uri(cost), "version": 6}, "contentChanges": [{"text": typing}]})
r = s.request("textDocument/completion", doc(cost, 7, 43))
items = r["result"]["items"]
check(sorted(i["label"] for i in items) == ["trip.distance", "trip.duration"], "completion of 'trip.d': trip.distance, trip.duration")
dist = next(i for i in items if i["label"] == "trip.distance")
check(dist["kind"] == 6 and dist["detail"] == "km" and dist["documentation"] == "Distance travelled", "completion item: kind variable, unit, description")
check(dist["textEdit"]["range"] == {"start": {"line": 7, "character": 37}, "end": {"line": 7, "character": 43}},
      "completion replaces the typed 'trip.d' (characters 37-43)")
r = s.request("textDocument/completion", doc(cost, 7, 37))
check(len(r["result"]["items"]) == 5, "completion with nothing typed: all 5 variables")
s.notify("textDocument/didChange", {"textDocument": {"uri": uri(cost), "version": 7}, "contentChanges": [{"text": cost_text}]})

# Formatting: the same text as `gstackc fmt`, as one edit over the lines that change.
messy = cost_text.replace("eq total: cost.total = cost.per_km * trip.distance ref handbook",
                          "eq   total :cost.total=cost.per_km*trip.distance   ref handbook   ")
s.notify("textDocument/didChange", {"textDocument": {"uri": uri(cost), "version": 8}, "contentChanges": [{"text": messy}]})
r = s.request("textDocument/formatting", {"textDocument": {"uri": uri(cost)}, "options": {"tabSize": 4, "insertSpaces": True}})
edits = r["result"]
tmp = tempfile.mkdtemp()
try:
    shutil.copy(units, tmp), shutil.copy(trip, tmp)
    with open(os.path.join(tmp, "20_cost.gstack"), "w", encoding="utf-8") as f:
        f.write(messy)
    subprocess.run([GSTACKC, "fmt", os.path.join(tmp, "20_cost.gstack")], check=True, capture_output=True)
    by_gstackc = open(os.path.join(tmp, "20_cost.gstack"), encoding="utf-8").read()
finally:
    shutil.rmtree(tmp)
check(by_gstackc == cost_text, "gstackc fmt turns the messy line back into the original")
check(len(edits) == 1 and edits[0]["range"] == {"start": {"line": 7, "character": 0}, "end": {"line": 8, "character": 0}},
      "formatting: one edit replacing line 8 only (got %s)" % [e["range"] for e in edits])
check(apply_edits(messy, edits) == by_gstackc, "formatting edits give gstackc fmt's text")
s.notify("textDocument/didChange", {"textDocument": {"uri": uri(cost), "version": 9}, "contentChanges": [{"text": cost_text}]})
r = s.request("textDocument/formatting", {"textDocument": {"uri": uri(cost)}, "options": {"tabSize": 4, "insertSpaces": True}})
check(r["result"] == [], "formatting a canonical file: no edits")
s.notify("textDocument/didChange", {"textDocument": {"uri": uri(cost), "version": 10}, "contentChanges": [{"text": broken}]})
r = s.request("textDocument/formatting", {"textDocument": {"uri": uri(cost)}, "options": {"tabSize": 4, "insertSpaces": True}})
check(r.get("error", {}).get("code") == -32803 and "8:10" in r["error"]["message"],
      "formatting a file that does not parse: RequestFailed naming 8:10 (got %s)" % r.get("error"))
s.notify("textDocument/didChange", {"textDocument": {"uri": uri(cost), "version": 11}, "contentChanges": [{"text": cost_text}]})

# Document symbols: the declarations of the file, in order.
r = s.request("textDocument/documentSymbol", {"textDocument": {"uri": uri(cost)}})
check([(x["name"], x["kind"]) for x in r["result"]] == [("cost.per_km", 13), ("cost.total", 13), ("total", 12)],
      "document symbols: two variables and a relation")

# Garbage: every bad message gets a JSON-RPC error and the session goes on.
s.raw(b"Content-Length: 9\r\n\r\n{not json")
check(s.read() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "the message is not valid JSON"}},
      "malformed JSON: ParseError (-32700) with id null")
s.raw(b"Content-Type: application/json\r\n\r\n")
m = s.read()
check(m["error"]["code"] == -32700 and "Content-Length" in m["error"]["message"], "a header without Content-Length: ParseError")
s.raw(b"Content-Length: -5\r\n\r\n")
check(s.read()["error"]["code"] == -32700, "a negative Content-Length: ParseError")
big = 33 << 20  # over the 32 MiB limit: the body is read and dropped
s.raw(b"Content-Length: %d\r\n\r\n" % big + b" " * big)
m = s.read()
check(m["error"]["code"] == -32600 and "limit" in m["error"]["message"], "a 33 MiB message: InvalidRequest naming the limit")
s.raw(b"x" * 10000 + b"\r\n\r\n")
check(s.read()["error"]["code"] == -32700, "a 10,000-byte header line: ParseError")
s.send([{"jsonrpc": "2.0", "id": 99, "method": "shutdown"}])
check(s.read()["error"]["code"] == -32600, "a batch (JSON array): InvalidRequest")
s.send({"jsonrpc": "2.0", "id": {"a": 1}, "method": "shutdown"})
check(s.read()["error"]["code"] == -32600, "an object as id: InvalidRequest")
r = s.request("textDocument/noSuchMethod", {})
check(r["error"]["code"] == -32601 and "noSuchMethod" in r["error"]["message"], "an unknown method: MethodNotFound (-32601)")
r = s.request("textDocument/hover", {"textDocument": {"uri": uri(cost)}})
check(r["error"]["code"] == -32602, "hover without a position: InvalidParams (-32602)")
r = s.request("textDocument/hover", {"textDocument": {"uri": "https://example.org/x.gstack"}, "position": {"line": 0, "character": 0}})
check(r["error"]["code"] == -32602 and "file://" in r["error"]["message"], "a URI that is not file://: InvalidParams")
r = s.request("textDocument/hover", {"textDocument": {"uri": uri(cost)}, "position": {"line": "x", "character": 0}})
check(r["error"]["code"] == -32602, "a position of the wrong type: InvalidParams")
r = s.request("textDocument/hover", doc(cost, 10**6, 10**6))
check(r["result"] is None, "hover past the end of the file: null")
s.notify("$/cancelRequest", {"id": 1})
s.notify("textDocument/didChange", {"textDocument": {"uri": uri("/nonexistent/x.gstack")}, "contentChanges": []})
r = s.request("textDocument/hover", doc(cost, 7, 42))
check("trip.distance" in r["result"]["contents"]["value"], "after all the garbage the server still answers")

body = b"[" * 1000000 + b"]" * 1000000
s.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
check(s.read()["error"]["code"] == -32600, "an array nested a million deep: InvalidRequest, no stack overflow")

# 2,000 messages of known methods with parameters drawn at random (seeded): every request is answered
# (a result or an error), and the server still works afterwards.
rnd = random.Random(18)
methods = ["textDocument/hover", "textDocument/definition", "textDocument/references", "textDocument/completion",
           "textDocument/formatting", "textDocument/documentSymbol", "textDocument/didOpen", "textDocument/didChange",
           "textDocument/didClose", "textDocument/didSave", "workspace/didChangeWatchedFiles", "initialize", "shutdownx"]
scratch = os.path.join(MODEL, "99_scratch.gstack")  # never written: it exists only as an open document
values = [None, 0, -1, 2**40, "x", [], {}, True, 1.5, "file:///", uri(scratch), {"uri": uri(cost)},
          {"line": 7, "character": 40}, {"line": -3, "character": 10**12}, [{"text": "garbage ] ["}],
          [{"range": {"start": {"line": 9, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}],
          [{"uri": uri(scratch), "type": 2}], {"includeDeclaration": "yes"}]
keys = ["textDocument", "position", "contentChanges", "context", "changes", "options"]
answered = requests = 0
for i in range(2000):
    params = {k: rnd.choice(values) for k in rnd.sample(keys, rnd.randint(0, 4))}
    if rnd.random() < 0.6:
        params["textDocument"] = rnd.choice([{"uri": uri(scratch)}, {"uri": uri(scratch), "version": i, "text": "system scratch\nvar s.x : m\n"},
                                             {"uri": uri(scratch), "text": "var ] ["}, {"uri": rnd.choice(values)}])
    msg = {"jsonrpc": "2.0", "method": rnd.choice(methods), "params": params}
    if rnd.random() < 0.7:
        msg["id"] = 1000000 + i
        requests += 1
        s.send(msg)
        r = s.reply(msg["id"])
        answered += ("result" in r) != ("error" in r)
    else:
        s.send(msg)
check(answered == requests > 1300, "random messages: each of the %d requests got a result or an error (%d did)" % (requests, answered))
s.notify("textDocument/didClose", {"textDocument": {"uri": uri(scratch)}})
s.notify("textDocument/didChange", {"textDocument": {"uri": uri(cost), "version": 12}, "contentChanges": [{"text": cost_text}]})
r = s.request("textDocument/hover", doc(cost, 7, 42))
check("trip.distance" in r["result"]["contents"]["value"], "after the random messages the server still answers")

r = s.request("shutdown")
check("error" not in r and r["result"] is None, "shutdown: null result")
r = s.request("textDocument/hover", doc(cost, 7, 42))
check(r["error"]["code"] == -32600, "a request after shutdown: InvalidRequest")
s.notify("exit", {})
check(s.wait() == 0, "exit after shutdown: exit status 0")

# ---- the shipped model: opening a file checks the whole directory, and it is clean
s = Session()
s.request("initialize", {"capabilities": {}})
econ = os.path.join(SHIPPED, "26_economics.gstack")
text = open(econ, encoding="utf-8").read()
s.notify("textDocument/didOpen", {"textDocument": {"uri": uri(econ), "languageId": "gstack", "version": 1, "text": text}})
lines = text.split("\n")
line = next(i for i, l in enumerate(lines) if l.startswith("eq cost_per_token:"))
r = s.request("textDocument/definition", doc(econ, line, lines[line].index("training.total_tokens") + 3))
check(r["result"]["uri"].startswith(uri(SHIPPED)) and r["result"]["uri"] != uri(econ),
      "shipped model: training.total_tokens is defined in another model file")
r = s.request("textDocument/hover", doc(econ, line, lines[line].index("econ.cost.per_token") + 1))
check("`USD/token`" in r["result"]["contents"]["value"], "shipped model: hover on econ.cost.per_token shows USD/token")
published = [n for n in s.notes if n["method"] == "textDocument/publishDiagnostics" and n["params"]["diagnostics"]]
check(published == [], "shipped model: no diagnostics (got %d files with some)" % len(published))
s.p.stdin.close()
check(s.wait() == 1, "input closed without shutdown: exit status 1")

# ---- command line
r = subprocess.run([LSP, "--bogus"], capture_output=True, text=True, timeout=TIMEOUT_S)
check(r.returncode == 2 and "unknown argument" in r.stderr, "an unknown argument: exit 2 with a message")

finish()
