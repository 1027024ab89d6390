#!/bin/sh
# gstackc fmt exit codes and in-place rewrite. Usage: fmt_exit_codes.sh GSTACKC FIXTURE_DIR
set -u
gstackc=$1 dir=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$("$gstackc" fmt --check "$dir/messy.gstack" 2>/dev/null); rc=$?
[ $rc -eq 1 ] || fail "--check on a messy file: exit $rc, expected 1"
[ "$out" = "$dir/messy.gstack" ] || fail "--check should list the file, printed '$out'"

"$gstackc" fmt --check "$dir/messy.expected" || fail "--check on the golden file should exit 0"

cp "$dir/messy.gstack" "$tmp/m.gstack"
"$gstackc" fmt "$tmp/m.gstack" 2>/dev/null || fail "fmt exit $?"
cmp -s "$tmp/m.gstack" "$dir/messy.expected" || fail "fmt did not give the golden layout"

printf 'system s\nvar x : m "unterminated\n' > "$tmp/bad.gstack"
"$gstackc" fmt --check "$tmp/bad.gstack" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "a file that does not parse: exit $rc, expected 2"
grep -q "bad.gstack:2:" "$tmp/err" || fail "the syntax error should name file:line: $(cat "$tmp/err")"

ln -s "$tmp/m.gstack" "$tmp/link.gstack"
cp "$dir/messy.gstack" "$tmp/m.gstack"
"$gstackc" fmt "$tmp/link.gstack" 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "a symbolic link must not be followed: exit $rc"
cmp -s "$tmp/m.gstack" "$dir/messy.gstack" || fail "the link's target was changed"
echo ok
