#!/usr/bin/env bash
# gstackc's command-line contract: exit statuses, the --json shape, and byte-identical images.
#   cli_check.sh GSTACKC CHECK WORKDIR
# CHECK is one of: json, json-clean, unreadable, empty-dir, usage, clean, no-image-on-error,
# deterministic, coverage, output-is-input, special-files, limits, dump-after. Runs from this directory so paths in messages are relative and stable.
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
    [ "$err" = "no_such_file.gstack: error[E-READ]: cannot read file: no such file
  hint: check the path" ] || fail "stderr: $err"
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
    # Every diagnostic code the compiler or one of its passes can emit is expected by a case here (E-READ
    # and E-TOO-LARGE are checked in this script), so a new code cannot land without its pinned message.
    missing=()
    for code in $(grep -ohE '"E-[A-Z0-9-]+"' ../../compiler/*.cpp ../../compiler/passes/*.cpp | tr -d '"' | sort -u); do
      grep -qE "^# expect-error@[^ ]+ $code( |:|$)" ./[0-9]*.gstack || grep -qF "error[$code]" "$0" || missing+=("$code")
    done
    [ ${#missing[@]} -eq 0 ] || fail "no case in tests/diagnostics produces: ${missing[*]}"
    ;;
  output-is-input)
    # An image never replaces a model file: not an input of the compile, not any existing non-image file.
    cp 02_unknown_name.gstack "$work/a.gstack"
    printf 'system diag\n' > "$work/ok.gstack"
    before=$(sha256sum "$work/ok.gstack")
    expect 2 "$gstackc" compile "$work/ok.gstack" -o "$work/ok.gstack"
    [[ "$err" == *"refusing to write the image to '$work/ok.gstack': it is an input of this compile"* ]] || fail "stderr: $err"
    [ "$(sha256sum "$work/ok.gstack")" = "$before" ] || fail "the source was replaced"
    expect 2 "$gstackc" compile "$work" -o "$work/ok.gstack"
    expect 2 "$gstackc" compile "$work/ok.gstack" -o "$work/a.gstack"
    [[ "$err" == *"it exists and is not a registry image"* ]] || fail "stderr: $err"
    cmp -s 02_unknown_name.gstack "$work/a.gstack" || fail "a non-image file was replaced"
    rm -f "$work/ok.gsimg"
    expect 0 "$gstackc" compile "$work/ok.gstack" -o "$work/ok.gsimg"
    expect 0 "$gstackc" compile "$work/ok.gstack" -o "$work/ok.gsimg"  # an image may be replaced
    ;;
  special-files)
    # Devices, FIFOs, binary and oversized files end in a clear E-READ and exit 2, never a hang or abort.
    expect 2 timeout 20 "$gstackc" check /dev/zero
    [ "$err" = "/dev/zero: error[E-READ]: is not a regular file (a device, FIFO or socket)
  hint: give the path of a .gstack file" ] || fail "stderr: $err"
    rm -f "$work/fifo.gstack" && mkfifo "$work/fifo.gstack"
    expect 2 timeout 20 "$gstackc" check "$work/fifo.gstack"
    [[ "$err" == *"error[E-READ]: is not a regular file"* ]] || fail "stderr: $err"
    expect 2 timeout 20 "$gstackc" check "$work"
    [[ "$err" == *"fifo.gstack: error[E-READ]: is not a regular file"* ]] || fail "a FIFO inside a directory: $err"
    rm -f "$work/fifo.gstack"
    head -c 4096 /bin/sh > "$work/binary.gstack"
    expect 2 "$gstackc" check "$work/binary.gstack"
    [[ "$err" == *"error[E-READ]: this is a binary file (it contains NUL bytes)"* ]] || fail "stderr: $err"
    truncate -s 9M "$work/huge.gstack"
    expect 2 "$gstackc" check "$work/huge.gstack"
    [[ "$err" == *"error[E-READ]: file is too large (9437184 bytes; the limit is 8 MiB)"* ]] || fail "stderr: $err"
    rm -f "$work/binary.gstack" "$work/huge.gstack"
    ;;
  limits)
    # Token and declaration limits: error[E-TOO-LARGE] with the limit in the message, quickly.
    python3 -c 'import sys; sys.stdout.write("system diag\n" + "x " * 1000001)' > "$work/tokens.gstack"
    expect 1 timeout 60 "$gstackc" check "$work/tokens.gstack"
    [[ "$err" == *"error[E-TOO-LARGE]: this file has more than 1000000 tokens"* ]] || fail "stderr: $err"
    python3 -c 'import sys; sys.stdout.write("system diag\n" + "".join("dimension d%d\n" % i for i in range(200001)))' > "$work/decls.gstack"
    expect 1 timeout 120 "$gstackc" check "$work/decls.gstack"
    [[ "$err" == *"error[E-TOO-LARGE]: the model has 200001 declarations; the limit is 200000"* ]] || fail "stderr: $err"
    rm -f "$work/tokens.gstack" "$work/decls.gstack"
    ;;
  dump-after)
    # --dump-after=expand_templates prints every instance as the plain declarations it became, and the
    # printed model compiles to the same relations (it is .gstack text again).
    cat > "$work/t.gstack" <<'GSTACK'
system diag
var diag.m : 1 "rows"
var diag.n : 1 "cols"
template gemm(g, M, N, what) {
    var g.flops : FLOP "FLOPs of {what}"
    eq flops: g.flops = 2 [FLOP] * M * (N + 1)
}
instance a = gemm(g: diag.a, M: diag.m, N: diag.n, what: "A")
GSTACK
    expect 0 "$gstackc" check --dump-after=expand_templates "${prelude[@]}" "$work/t.gstack"
    [[ "$out" == *'var diag.a.flops : FLOP "FLOPs of A"'* ]] || fail "no expanded variable in: $out"
    [[ "$out" == *'eq a_flops: diag.a.flops = 2 [FLOP] * diag.m * (diag.n + 1)'* ]] || fail "no expanded relation in: $out"
    [[ "$out" != *template* ]] || fail "the template is still there: $out"
    expect 0 "$gstackc" check --dump-after=parse "${prelude[@]}" "$work/t.gstack"
    [[ "$out" == *'template gemm(g, M, N, what) { ... }'* ]] || fail "parse dump lacks the template: $out"
    # Every pass prints (tests/cli/cases/gstackc_dump_after_each_pass.test checks what); an unknown one is
    # a usage error that lists them.
    expect 0 "$gstackc" check --dump-after=lower "${prelude[@]}" "$work/t.gstack"
    [[ "$out" == *'rhs: 2 #'* ]] || fail "lower dump lacks the postfix relation: $out"
    expect 2 "$gstackc" check --dump-after=no_such_pass "${prelude[@]}" "$work/t.gstack"
    [[ "$err" == *'parse,expand_templates,declare,check_forms,resolve_names,check_units,lower,check_definitions,check_cycles'* ]] || fail "stderr: $err"
    expect 2 "$gstackc" check --json --dump-after=parse "${prelude[@]}" "$work/t.gstack"
    ;;
  *)
    echo "unknown check '$check'" >&2
    exit 2
    ;;
esac
exit 0
