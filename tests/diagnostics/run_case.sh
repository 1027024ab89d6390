#!/usr/bin/env bash
# Checks one bad model file against the diagnostics it must produce.
#   run_case.sh GSTACKC CASE.gstack [--update]
# The case is compiled after the units and physics systems (as `gstackc check` would load them), from
# this directory and with relative paths, so the expected text holds no machine-specific path. The
# expected text is CASE.expected: everything gstackc writes to stderr, compared exactly, and the exit
# status must be 1 (model errors).
# Directives in the case file's comments:
#   # prelude: units              load only model/00_units.gstack before the case
#   # load-after: support/X.gstack  load X after the case
# --update rewrites CASE.expected from the current output (review the diff before committing it).
set -uo pipefail
gstackc=$1
case_file=$2
update=${3:-}
cd "$(dirname "$case_file")" || exit 2
name=$(basename "$case_file")
expected=${name%.gstack}.expected

args=(../../model/00_units.gstack ../../model/01_physics.gstack)
if grep -q '^# prelude: units$' "$name"; then args=(../../model/00_units.gstack); fi
args+=("$name")
while read -r extra; do args+=("$extra"); done < <(sed -n 's/^# load-after: //p' "$name")

actual=$("$gstackc" check "${args[@]}" 2>&1 >/dev/null)
status=$?

if [ "$update" = "--update" ]; then
  printf '%s\n' "$actual" > "$expected"
  echo "updated $expected"
  exit 0
fi
if [ $status -ne 1 ]; then
  echo "FAIL $name: gstackc exited $status, expected 1 (model errors)"
  printf '%s\n' "$actual"
  exit 1
fi
if [ ! -f "$expected" ]; then
  echo "FAIL $name: no $expected; actual output:"
  printf '%s\n' "$actual"
  exit 1
fi
if ! diff -u "$expected" <(printf '%s\n' "$actual"); then
  echo "FAIL $name: diagnostics differ from $expected (- expected, + actual)"
  exit 1
fi
exit 0
