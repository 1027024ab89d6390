#!/usr/bin/env bash
# gstackc's command-line contract: exit statuses, the --json shape, and byte-identical images.
#   cli_check.sh GSTACKC CHECK WORKDIR
# CHECK is one of: json, json-clean, unreadable, empty-dir, usage, clean, no-image-on-error,
# deterministic, coverage. Runs from this directory so paths in messages are relative and stable.
set -uo pipefail
gstackc=$1
check=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 2
mkdir -p "$work"
prelude=(../../model/00_units.gstack ../../model/01_physics.gstack)
fail() { echo "FAIL $check: $*"; exit 1; }

# expect STATUS CMD...: runs CMD, keeps stdout/stderr in $out/$err, checks the exit status.
expect() {
  local want=$1
  shift
  out=$("$@" 2>"$work/stderr")
  local got=$?
  err=$(cat "$work/stderr")
  [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want; stderr: $err"
}

case "$check" in
  json)
    # --json puts the diagnostics on stdout as an array and nothing on stderr.
    expect 1 "$gstackc" check --json "${prelude[@]}" 02_unknown_name.gstack
    [ -z "$err" ] || fail "stderr not empty: $err"
    diff -u json/02_unknown_name.json <(printf '%s\n' "$out") || fail "JSON differs from json/02_unknown_name.json"
    ;;
  json-clean)
    expect 0 "$gstackc" check --json ../../model
    [ "$out" = "[]" ] || fail "expected [], got: $out"
    ;;
  unreadable)
    expect 2 "$gstackc" check "${prelude[@]}" no_such_file.gstack
    [ "$err" = "no_such_file.gstack: error[E-READ]: cannot read file" ] || fail "stderr: $err"
    expect 2 "$gstackc" compile no_such_file.gstack -o "$work/x.gsimg"
    [ ! -e "$work/x.gsimg" ] || fail "an image was written"
    ;;
  empty-dir)
    mkdir -p "$work/empty"
    expect 2 "$gstackc" check "$work/empty"
    [[ "$err" == *"error[E-READ]: directory has no .gstack files" ]] || fail "stderr: $err"
    ;;
  usage)
    expect 2 "$gstackc"
    expect 2 "$gstackc" frobnicate ../../model
    expect 2 "$gstackc" check
    expect 2 "$gstackc" compile ../../model
    expect 2 "$gstackc" check --no-such-flag ../../model
    expect 0 "$gstackc" --help
    ;;
  clean)
    expect 0 "$gstackc" check ../../model
    [[ "$err" == "gstackc: "*" variables, "*" relations: ok" ]] || fail "stderr: $err"
    ;;
  no-image-on-error)
    rm -f "$work/bad.gsimg"
    expect 1 "$gstackc" compile "${prelude[@]}" 19_flops_vs_tokens.gstack -o "$work/bad.gsimg"
    [ ! -e "$work/bad.gsimg" ] || fail "an image was written despite errors"
    ;;
  deterministic)
    rm -f "$work/a.gsimg" "$work/b.gsimg"
    expect 0 "$gstackc" compile ../../model -o "$work/a.gsimg"
    expect 0 "$gstackc" compile ../../model -o "$work/b.gsimg"
    cmp "$work/a.gsimg" "$work/b.gsimg" || fail "two compiles of model/ differ"
    ;;
  coverage)
    # Every diagnostic code the compiler can emit has a case here (E-READ is checked above, by
    # `unreadable`), so a new code cannot land without its pinned message.
    missing=()
    for code in $(grep -ohE '"E-[A-Z0-9-]+"' ../../compiler/*.cpp | tr -d '"' | sort -u); do
      grep -qF "error[$code]" ./*.expected || grep -qF "error[$code]" "$0" || missing+=("$code")
    done
    [ ${#missing[@]} -eq 0 ] || fail "no case in tests/diagnostics produces: ${missing[*]}"
    ;;
  *)
    echo "unknown check '$check'" >&2
    exit 2
    ;;
esac
exit 0
