#!/usr/bin/env python3
"""`gstackc lsp` is the same language server as gstack-lsp: initialize, a diagnostic for a unit error in a
one-file model, shutdown and exit 0.
    gstackc_lsp.py GSTACKC"""
import json, os, subprocess, sys, tempfile

GSTACKC = sys.argv[1]


def frame(msg):
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_all(data):
    out = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        n = int(head.split(b":")[1])
        out.append(json.loads(rest[:n]))
        data = rest[n:]
    return out


with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "m.gstack")
    text = 'system m "test"\nuse physics\nvar m.t : s "a time"\nvar m.l : m "a length"\neq e: m.t = m.l\n'
    with open(path, "w") as f:
        f.write(text)
    uri = "file://" + path
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": "file://" + d, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": "gstack", "version": 1, "text": text}}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    # Diagnostics come once input has paused, so the client reads them before it shuts the server down.
    p = subprocess.Popen([GSTACKC, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    for m in msgs[:3]:
        p.stdin.write(frame(m))
    p.stdin.flush()
    replies = []
    while not any(r.get("method") == "textDocument/publishDiagnostics" and r["params"]["uri"] == uri for r in replies):
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            c = p.stdout.read(1)
            if not c:
                break
            head += c
        if not head:
            break
        n = int(head.split(b":")[1])
        replies.append(json.loads(p.stdout.read(n)))
    out, _ = p.communicate(b"".join(frame(m) for m in msgs[3:]), timeout=120)
    replies += read_all(out)
    init = next(r for r in replies if r.get("id") == 1)
    ok = [
        (p.returncode == 0, f"exit status {p.returncode} after shutdown and exit"),
        ("capabilities" in init.get("result", {}), "initialize answers with the server's capabilities"),
        (any(r.get("method") == "textDocument/publishDiagnostics" for r in replies), "diagnostics are published"),
    ]
    diags = [x for r in replies if r.get("method") == "textDocument/publishDiagnostics"
             for x in r["params"]["diagnostics"]]
    ok.append((any("UNIT" in str(x.get("code", "")) for x in diags), f"the unit error is reported: {diags}"))
    failed = [m for good, m in ok if not good]
    for m in failed:
        print("FAIL", m)
    print(f"{len(ok) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)
