#!/usr/bin/env bash
# A user's clone has no ../shared: nothing tracked may read it. Citations of where a number was first
# read (a `source = "..."` string in a preset) are allowed; paths the build, tests or docs would open are not.
set -euo pipefail
cd "$(dirname "$0")/../.."
hits=$(git ls-files -z | xargs -0 grep -nE '\.\./shared|GSTACK_SHARED_DIR|"shared", *"data"' -- 2>/dev/null \
       | grep -vE '^presets/.*: *source = ' | grep -vE '^(tests/repo/|\.ci/run:|CHANGELOG.md:)' || true)
if [ -n "$hits" ]; then echo "reads of ../shared in tracked files:"; echo "$hits"; exit 1; fi
echo "no tracked file reads ../shared"
