#!/usr/bin/env bash
# Installs what the observatory's browser tests need into a build-local folder: playwright-core (pinned;
# it drives the Debian chromium through executablePath, so no browser is downloaded). Idempotent and
# quiet when the pinned version is already there.
set -euo pipefail
dir="${1:?usage: setup-node-deps.sh DIR}"
version="1.65.1"
have="$dir/node_modules/playwright-core/package.json"
if [ -f "$have" ] && grep -q "\"version\": \"$version\"" "$have"; then exit 0; fi
command -v npm >/dev/null || { echo "setup-node-deps: npm is missing (tools/setup-deps installs nodejs and npm)" >&2; exit 1; }
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"private": true, "name": "gstack-site-test"}' > "$dir/package.json"
echo "setup-node-deps: installing playwright-core@$version into $dir" >&2
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$dir" --no-audit --no-fund --silent --save-exact "playwright-core@$version" >&2
