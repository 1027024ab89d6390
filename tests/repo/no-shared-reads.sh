#!/usr/bin/env bash
# A user's clone has only the repository: no tracked file may read the sibling data folder the project's
# data was first copied from (data/ holds what the product uses). Citations of where a number was first
# read (a `source = "..."` string in a preset) are allowed; paths the build, tests or docs would open are not.
set -euo pipefail
cd "$(dirname "$0")/../.."
sibling=shared   # the folder's name, kept in a variable so this script does not match itself
pattern="\\.\\./${sibling}(/|\\b)"
hits=$(git ls-files -z | xargs -0 grep -nE "$pattern" -- 2>/dev/null | grep -vE '^presets/.*: *source = ' || true)
if [ -n "$hits" ]; then echo "tracked files that read the sibling data folder:"; echo "$hits"; exit 1; fi
echo "no tracked file reads the sibling data folder"
