#!/usr/bin/env bash
# Fuzzes the .gstack front end for SECONDS (default 60) under ASan and UBSan.
#   tests/fuzz/run-fuzz.sh [SECONDS]
# Builds build-fuzz/ with clang (installing clang and its sanitizer runtimes if missing), seeds the corpus
# from model/*.gstack and tests/diagnostics/*.gstack, and exits non-zero if the fuzzer finds a crash,
# hang, leak or undefined behaviour; the reproducer is left in build-fuzz/fuzz-artifacts/.
# Environment: GSTACK_FUZZ_BUILD (build dir), JOBS (build parallelism, default 2).
set -euo pipefail
seconds=${1:-60}
case "$seconds" in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${GSTACK_FUZZ_BUILD:-$root/build-fuzz}

missing=()
command -v clang++ >/dev/null 2>&1 || missing+=(clang)
dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q 'install ok installed' || missing+=(libclang-rt-14-dev)
if [ ${#missing[@]} -gt 0 ]; then
  echo "run-fuzz: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGSTACK_FUZZ=ON >/dev/null
fi
cmake --build "$build" --target fuzz_frontend -j "${JOBS:-2}"

# libFuzzer writes new inputs into the first directory and only reads the others.
corpus=$build/fuzz-corpus
seeds=$build/fuzz-seeds
artifacts=$build/fuzz-artifacts
mkdir -p "$corpus" "$seeds" "$artifacts"
cp "$root"/model/*.gstack "$seeds"/
cp "$root"/tests/diagnostics/*.gstack "$seeds"/ 2>/dev/null || true

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export GSTACK_FUZZ_PRELUDE=$root/model/00_units.gstack
exec "$build/bin/fuzz_frontend" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -dict="$root/tests/fuzz/gstack.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 "$corpus" "$seeds"
