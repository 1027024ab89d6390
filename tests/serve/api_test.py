#!/usr/bin/env python3
"""`gpu-stack serve` over HTTP on a free loopback port.

--case api: a small site folder (with a symbolic link out of it and a hidden file) and the shipped model.
Good requests must answer what the CLI answers; every malformed, oversized, unknown or traversal request
must get a 4xx with a JSON {error, hint}, and the server must still answer afterwards. Ends with SIGTERM:
exit 0.
--case default_site: no --site, so the server exports the default preset's site into a temporary folder;
the page and its data must be served, and SIGINT must stop the server and remove the folder.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def start(args, extra, timeout=180):
    cmd = [args.gpu_stack, "serve", "--port", "0", "--image", args.image] + extra
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + timeout
    line = ""
    while time.time() < deadline:
        line = proc.stdout.readline()
        if line or proc.poll() is not None:
            break
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        proc.kill()
        sys.exit(f"the server did not print its address: {line!r} {proc.stderr.read()}")
    return proc, int(m.group(1))


def request(port, method, path, body=None, headers=None, raw=None):
    """(status, parsed JSON or text, headers). `raw` sends bytes as they are, for paths http.client would refuse."""
    if raw is not None:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(raw)
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        head, _, payload = data.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        try:
            return status, json.loads(payload), {}
        except ValueError:
            return status, payload.decode("utf-8", "replace"), {}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=240)
    hdrs = {"Content-Type": "application/json"}
    hdrs.update(headers or {})
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
    conn.request(method, path, body=body, headers=hdrs)
    res = conn.getresponse()
    data = res.read()
    conn.close()
    ctype = res.getheader("Content-Type", "")
    return res.status, (json.loads(data) if ctype.startswith("application/json") else data.decode("utf-8", "replace")), dict(res.getheaders())


def cli_json(args, argv):
    out = subprocess.run([args.gpu_stack] + argv + ["--json", "--image", args.image], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def alive(port):
    status, body, _ = request(port, "GET", "/api/health")
    return status == 200 and body.get("ok") is True


def refused(port, what, status_range, method, path, body=None, headers=None, raw=None, message=None):
    status, answer, _ = request(port, method, path, body, headers, raw)
    ok = status in status_range and isinstance(answer, dict) and len(answer.get("error", "")) > 3 and len(answer.get("hint", "")) > 3
    if ok and message:
        ok = message in answer["error"]
    check(ok, f"{what}: expected {status_range} with an error and a hint, got {status} {str(answer)[:300]}")
    check(alive(port), f"the server stopped answering after: {what}")
    return answer


def close(proc, sig):
    proc.send_signal(sig)
    try:
        rc = proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = None
    return rc, proc.stderr.read()


def case_api(args):
    base = tempfile.mkdtemp(prefix="gs-serve-api-")
    site = os.path.join(base, "site")
    os.makedirs(os.path.join(site, "js"))
    with open(os.path.join(site, "index.html"), "w") as f:
        f.write("<!doctype html><title>test site</title>")
    with open(os.path.join(site, "js", "a.js"), "w") as f:
        f.write("1;")
    with open(os.path.join(site, ".hidden"), "w") as f:
        f.write("hidden")
    with open(os.path.join(base, "secret.txt"), "w") as f:
        f.write("SECRET-OUTSIDE-THE-SITE")
    os.symlink(os.path.join(base, "secret.txt"), os.path.join(site, "leak.txt"))
    os.symlink(base, os.path.join(site, "up"))
    proc, port = start(args, ["--site", site, "--max-jobs", "1", "--max-body", "4096"])
    try:
        # The page and the API.
        status, page, hdrs = request(port, "GET", "/")
        check(status == 200 and "test site" in page, f"GET / -> {status}")
        check(hdrs.get("Content-Type", "").startswith("text/html"), "index.html is text/html")
        status, js, hdrs = request(port, "GET", "/js/a.js")
        check(status == 200 and js == "1;" and hdrs.get("Content-Type", "").startswith("text/javascript"), "GET /js/a.js")
        status, health, _ = request(port, "GET", "/api/health")
        check(status == 200 and set(health["endpoints"]) == {"resolve", "sweep", "uncertainty", "sensitivity", "plan", "validate", "simulate",
                                                              "simulation_timeline"},
              "health lists the eight endpoints")

        # resolve: the same number as the CLI, with and without an assignment (relative 1e-12).
        for assigns in ([], ["econ.gpu.capex=30 kUSD"]):
            status, answer, _ = request(port, "POST", "/api/resolve", {"target": "econ.cost.per_token", "preset": "default", "assign": assigns})
            argv = ["resolve", "econ.cost.per_token", "--preset", "default"] + sum((["--assign", a] for a in assigns), [])
            cli = cli_json(args, argv)
            check(status == 200 and abs(answer["value"] / cli["value"] - 1) < 1e-12,
                  f"resolve {assigns}: server {answer.get('value')} vs CLI {cli['value']}")
            check(len(answer.get("steps", [])) == len(cli["steps"]), "resolve returns the CLI's trace steps")
            print(f"resolve econ.cost.per_token {assigns}: server {answer['value']!r}, CLI {cli['value']!r}")
        status, answer, _ = request(port, "POST", "/api/resolve", {"target": "econ.cost.per_token", "preset": "default", "interval": True})
        cli = cli_json(args, ["resolve", "econ.cost.per_token", "--preset", "default"])
        check(status == 200 and abs(answer["interval"]["p95"] / cli["interval"]["p95"] - 1) < 1e-12, "resolve's interval matches the CLI's")

        # The other endpoints answer with the CLI's JSON.
        status, sweep, _ = request(port, "POST", "/api/sweep", {"targets": ["econ.cost.per_token"], "preset": "default", "vary": ["econ.gpu.capex=25..40:4 kUSD"]})
        cli = cli_json(args, ["sweep", "econ.cost.per_token", "--preset", "default", "--vary", "econ.gpu.capex=25..40:4 kUSD"])
        check(status == 200 and sweep["points"] == 4 and abs(sweep["targets"][0]["max"] / cli["targets"][0]["max"] - 1) < 1e-12, "sweep matches the CLI")
        status, unc, _ = request(port, "POST", "/api/uncertainty", {"target": "econ.cost.per_token", "preset": "default", "samples": 4000, "seed": 5})
        cli = cli_json(args, ["uncertainty", "econ.cost.per_token", "--preset", "default", "--samples", "4000", "--seed", "5", "--threads", "1"])
        check(status == 200 and abs(unc["p95"] / cli["p95"] - 1) < 1e-12, f"uncertainty matches the CLI: {unc.get('p95')} vs {cli['p95']}")
        status, sens, _ = request(port, "POST", "/api/sensitivity", {"target": "econ.cost.per_token", "preset": "default", "samples": 300})
        check(status == 200 and len(sens["inputs"]) >= 1, "sensitivity answers")
        status, plan, _ = request(port, "POST", "/api/plan", {"preset": "default", "top": 3})
        check(status in (200,) and isinstance(plan, dict), f"plan answers: {status} {str(plan)[:200]}")
        status, val, _ = request(port, "POST", "/api/validate", {"no_search": True})
        cli = cli_json(args, ["validate", "--no-search"])
        check(status == 200 and val.get("summary") == cli["summary"] and len(val["rows"]) == len(cli["rows"]), f"validate matches the CLI: {status}")
        status, sim, _ = request(port, "POST", "/api/simulate", {"scenario": "llama3-405b-16k", "seed": 1})
        cli = cli_json(args, ["simulate", os.path.join("presets", "sim", "llama3-405b-16k.toml"), "--seed", "1"])
        check(status == 200 and sim == cli, f"simulate matches the CLI: {status} {str(sim)[:200]}")
        # The Simulation view's timeline: a day of the restart run in 24 buckets; every second of each bucket in
        # some phase, and the interruptions it counts are the ones it lists.
        status, tl, _ = request(port, "POST", "/api/simulation_timeline", {"scenario": "llama3-405b-16k", "policy": "restart", "to_s": 86400, "buckets": 24})
        check(status == 200 and len(tl.get("rows", [])) == 24 and tl["bucket_s"] == 3600, f"simulation_timeline answers a day in 24 buckets: {status} {str(tl)[:200]}")
        if status == 200:
            check(all(abs(sum(r[1:10]) - 3600) < 1e-6 for r in tl["rows"]), "each bucket accounts for its hour")
            starts = [e[0] for e in tl["episodes"]["rows"] if e[0] >= 0]
            check(sum(r[11] for r in tl["rows"]) == len(starts), "the buckets count the interruptions the answer lists")

        # Bad requests: 4xx with a message and a hint, and the server stays up.
        r = "/api/resolve"
        refused(port, "malformed JSON", {400}, "POST", r, "{\"target\": ", message="not JSON")
        refused(port, "a JSON array", {400}, "POST", r, [1, 2])
        refused(port, "no target", {400}, "POST", r, {"preset": "default"}, message="'target' is required")
        a = refused(port, "unknown target", {400}, "POST", r, {"target": "econ.cost.per_tokn"}, message="unknown target variable")
        check("econ.cost.per_token" in a.get("hint", ""), "the hint says what was meant")
        refused(port, "unknown field", {400}, "POST", r, {"target": "econ.cost.per_token", "presets": ["default"]}, message="unknown field")
        refused(port, "bad assignment", {400}, "POST", r, {"target": "econ.cost.per_token", "assign": ["econ.gpu.capex=lots"]})
        refused(port, "unknown preset", {400}, "POST", r, {"target": "econ.cost.per_token", "preset": "defualt"}, message="unknown preset")
        for name in ["../presets/default", "/etc/passwd", "default.toml", "hardware/../../etc/passwd"]:
            refused(port, f"preset path {name}", {400}, "POST", r, {"target": "econ.cost.per_token", "preset": name})
        refused(port, "simulation scenario path", {400}, "POST", "/api/simulate", {"scenario": "/etc/passwd"})
        refused(port, "too many samples", {400}, "POST", "/api/uncertainty", {"target": "econ.cost.per_token", "preset": "default", "samples": 10**9})
        refused(port, "too many sweep points", {400}, "POST", "/api/sweep",
                {"targets": "econ.cost.per_token", "preset": "default", "vary": ["econ.gpu.capex=1..2:1000", "par.dp=1..64:64"]})
        refused(port, "too many GPU-days", {400}, "POST", "/api/simulate", {"scenario": "llama3-405b-16k", "max_gpu_days": 1e12})
        t = "/api/simulation_timeline"
        refused(port, "timeline without a policy", {400}, "POST", t, {"scenario": "llama3-405b-16k"}, message="'policy' is required")
        refused(port, "timeline with an unknown policy", {400}, "POST", t, {"scenario": "llama3-405b-16k", "policy": "reboot"})
        refused(port, "too many timeline buckets", {400}, "POST", t, {"scenario": "llama3-405b-16k", "policy": "restart", "buckets": 10**6})
        refused(port, "an empty timeline window", {400}, "POST", t, {"scenario": "llama3-405b-16k", "policy": "restart", "from_s": 5, "to_s": 5},
                message="'to_s' must be after 'from_s'")
        refused(port, "timeline scenario path", {400}, "POST", t, {"scenario": "../default", "policy": "restart"})
        refused(port, "oversized body", {413}, "POST", r, json.dumps({"target": "econ.cost.per_token", "assign": ["x" * 8000]}))
        refused(port, "not JSON content", {415}, "POST", r, "target=x", headers={"Content-Type": "text/plain"})
        refused(port, "GET on a POST endpoint", {405}, "GET", r)
        refused(port, "unknown endpoint", {404}, "POST", "/api/resolv", {}, message="unknown endpoint")
        refused(port, "another host name (DNS rebinding)", {403}, "GET", "/api/health", headers={"Host": "evil.example:%d" % port})

        # Files: only inside the site folder.
        leaks = []
        for path in ["/../secret.txt", "/%2e%2e/secret.txt", "/js/..%2f..%2fsecret.txt", "/%2e%2e%2fsecret.txt", "/leak.txt", "/up/secret.txt",
                     "/.hidden", "/js/%2e%2e/%2e%2e/secret.txt", "/index.html%00.js", "/..%5csecret.txt", "/missing.html"]:
            raw = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
            status, answer, _ = request(port, "GET", path, raw=raw)
            if "SECRET" in str(answer) or "hidden" == answer:
                leaks.append(path)
            check(400 <= status < 500 and isinstance(answer, dict) and answer.get("error"), f"GET {path}: {status} {str(answer)[:200]}")
            check(alive(port), f"the server stopped answering after GET {path}")
        check(not leaks, f"files outside the site were served: {leaks}")

        # --max-jobs 1: of concurrent sampling requests, the ones that find the server busy get 503.
        results = []
        def heavy():
            s, ans, _ = request(port, "POST", "/api/uncertainty", {"target": "econ.cost.per_token", "preset": "default", "samples": 200000})
            results.append((s, ans.get("error", "") if isinstance(ans, dict) else ""))
        threads = [threading.Thread(target=heavy) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses = sorted(s for s, _ in results)
        check(200 in statuses and 503 in statuses and set(statuses) <= {200, 503}, f"--max-jobs 1 under 4 concurrent requests: {statuses}")
        check(all("busy" in e for s, e in results if s == 503), "a 503 says the server is busy")
        check(alive(port), "the server answers after the busy period")
        # cpp-httplib is a module opened when a server starts: gpu-stack does not link it, and a missing
        # module is a clear error (exit 2) before anything listens.
        needed = subprocess.run(["readelf", "-d", args.gpu_stack], capture_output=True, text=True).stdout
        check("httplib" not in needed, "gpu-stack does not link cpp-httplib (readelf -d)")
        missing = os.path.join(base, "no-such-module.so")
        p = subprocess.run([args.gpu_stack, "serve", "--port", "0", "--image", args.image, "--site", site],
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, GSTACK_SERVE_HTTP_MODULE=missing))
        check(p.returncode == 2 and f"cannot load the HTTP module '{missing}'" in p.stderr and p.stdout == "",
              f"a missing HTTP module: exit {p.returncode}: {p.stderr[-300:]}")
    finally:
        rc, err = close(proc, signal.SIGTERM)
        shutil.rmtree(base, ignore_errors=True)
    check(rc == 0, f"SIGTERM: exit {rc}: {err[-500:]}")


def case_default_site(args):
    proc, port = start(args, [], timeout=240)
    try:
        status, page, _ = request(port, "GET", "/")
        check(status == 200 and "gpu_stack observatory" in page and "js/live.js" in page, f"GET / serves the observatory: {status}")
        status, live, _ = request(port, "GET", "/js/live.js")
        check(status == 200 and "/api/resolve" in live, "GET /js/live.js")
        status, scen, _ = request(port, "GET", "/data/scenarios.json")
        check(status == 200 and scen["scenarios"][0]["name"] == "default", "the exported scenario is the default preset")
    finally:
        rc, err = close(proc, signal.SIGINT)
    check(rc == 0, f"SIGINT: exit {rc}: {err[-500:]}")
    m = re.search(r"into (\S+)", err)
    check(m is not None, f"the server says where it exported the site: {err[:300]}")
    if m:
        check(not os.path.exists(os.path.dirname(m.group(1))), f"the temporary folder is removed: {m.group(1)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True, choices=["api", "default_site"])
    ap.add_argument("--gpu-stack", required=True)
    ap.add_argument("--image", required=True)
    args = ap.parse_args()
    os.environ["GSTACK_PRESETS"] = os.path.join(os.getcwd(), "presets")
    {"api": case_api, "default_site": case_default_site}[args.case](args)
    if failures:
        print(f"{len(failures)} failures", file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
