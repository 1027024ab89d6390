#!/usr/bin/env bash
# Loopback load test of `gpu-stack serve`: starts the server on a free port with a one-page site (the
# API is what is measured), runs bench_serve (a fixed count of requests: GET /api/health as the baseline,
# then POST /api/resolve of econ.cost.per_token under the default preset, each with a different GPU
# price), then the page's live re-resolve (the model's `export question` targets at once, as js/live.js sends
# them), and stops the server with SIGTERM. Targets: >= 1000 resolve requests/s with p99 < 50 ms (the
# resolve rate is also reported as a ratio to the baseline's); the re-resolve under 100 ms.
#   bench/serve_load.sh BUILD_DIR [REQUESTS] [CONNECTIONS]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [REQUESTS] [CONNECTIONS]}
requests=${2:-5000}
connections=${3:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
for f in "$build/bin/gpu-stack" "$build/model.gsimg" "$build/bin/bench_serve"; do
  [ -e "$f" ] || { echo "serve_load: $f not built (make bench builds it)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir "$tmp/site" && echo '<!doctype html><title>bench</title>' >"$tmp/site/index.html"
GSTACK_PRESETS=$root/presets "$build/bin/gpu-stack" serve --port 0 --site "$tmp/site" --max-jobs 16 --image "$build/model.gsimg" \
  >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 100); do grep -q 'http://' "$tmp/out" && break; sleep 0.1; done
port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/out")
[ -n "$port" ] || { echo "serve_load: the server did not start:" >&2; cat "$tmp/err" >&2; exit 1; }
echo "load average $(cut -d' ' -f1 /proc/loadavg), $(nproc) cores"
# The site's questions, read from the model's exports (no model name is written here).
mapfile -t questions < <(sed -n 's/^export question [a-z_]* = \([A-Za-z0-9_.]*\) .*/\1/p' "$root"/model/*.gstack)
"$build/bin/bench_serve" "$port" "$requests" "$connections" "$pid" "${questions[@]}"
