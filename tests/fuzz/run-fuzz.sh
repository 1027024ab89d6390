#!/usr/bin/env bash
# Builds the libFuzzer targets under ASan and UBSan (clang, build-fuzz/) and runs them.
#   tests/fuzz/run-fuzz.sh [--if-available] [--build-only | --no-build] [TARGET|all] [SECONDS]
# TARGET is one of: frontend preset image runs_csv scenario (default all); SECONDS per target (default 60).
# Each target starts from a seed corpus taken from the repository (model files, diagnostics cases,
# presets, the published-runs CSVs, a compiled image's payload) and exits non-zero on a crash, hang,
# leak or undefined behaviour; the reproducer is left in build-fuzz/fuzz-artifacts/<target>/.
#   --if-available  exit 77 (ctest: skipped) when clang's libFuzzer runtime is missing, instead of
#                   installing clang and libclang-rt-14-dev with apt-get
#   --build-only    build, run nothing;  --no-build  run what is built (77 when nothing is)
# Environment: GSTACK_FUZZ_BUILD (build dir), JOBS (build parallelism, default 2).
set -euo pipefail
if_available=0 build=1 run=1
while [ $# -gt 0 ]; do
  case "$1" in
    --if-available) if_available=1 ;;
    --build-only) run=0 ;;
    --no-build) build=0 ;;
    *) break ;;
  esac
  shift
done
all_targets=(frontend preset image runs_csv scenario)
target=${1:-all}
seconds=${2:-60}
case "$seconds" in '' | *[!0-9]*) echo "usage: $0 [--if-available] [--build-only|--no-build] [TARGET|all] [SECONDS]" >&2; exit 2 ;; esac
if [ "$target" = all ]; then targets=("${all_targets[@]}")
elif [[ " ${all_targets[*]} " == *" $target "* ]]; then targets=("$target")
else echo "run-fuzz: unknown target '$target' (one of: all ${all_targets[*]})" >&2; exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
bdir=${GSTACK_FUZZ_BUILD:-$root/build-fuzz}

fuzzer_works() {
  local tmp
  tmp=$(mktemp -d)
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$tmp/t.cpp"
  clang++ -fsanitize=fuzzer,address,undefined "$tmp/t.cpp" -o "$tmp/t" >/dev/null 2>&1
  local ok=$?
  rm -rf "$tmp"
  return $ok
}

if ! command -v clang++ >/dev/null 2>&1 || ! fuzzer_works; then
  if [ $if_available -eq 1 ]; then
    echo "SKIP: clang++ -fsanitize=fuzzer does not work here (install clang and libclang-rt-14-dev); fuzz tests skipped"
    exit 77
  fi
  echo "run-fuzz: installing clang libclang-rt-14-dev"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi

if [ $build -eq 1 ]; then
  if [ ! -f "$bdir/build.ninja" ]; then
    CC=clang CXX=clang++ cmake -S "$root" -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGSTACK_FUZZ=ON >/dev/null
  fi
  cmake --build "$bdir" --target $(printf 'fuzz_%s ' "${targets[@]}") gstackc -j "${JOBS:-2}"
fi
[ $run -eq 1 ] || exit 0

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export GSTACK_FUZZ_ROOT=$root

# seeds TARGET DIR: fills DIR with the repository's examples of what TARGET reads.
seeds() {
  case "$1" in
    frontend) cp "$root"/model/*.gstack "$root"/tests/diagnostics/*.gstack "$2"/ ;;
    preset) find "$root/presets" -name '*.toml' ! -path '*/sim/*' -exec cp --backup=numbered {} "$2"/ \; ;;
    scenario) cp "$root"/presets/sim/*.toml "$2"/ ;;
    runs_csv) cp "$root"/data/runs/*.csv "$2"/ ;;
    image)
      # The payload of a small image (units and physics), without its 52-byte header: the target seals it.
      "$bdir/bin/gstackc" compile "$root/model/00_units.gstack" "$root/model/01_physics.gstack" -o "$2/units.gsimg" >/dev/null 2>&1
      tail -c +53 "$2/units.gsimg" > "$2/units.payload" && rm -f "$2/units.gsimg" ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  exe=$bdir/bin/fuzz_$t
  if [ ! -x "$exe" ]; then
    echo "run-fuzz: $exe is not built"
    [ $if_available -eq 1 ] && exit 77
    exit 2
  fi
  corpus=$bdir/fuzz-corpus/$t seed_dir=$bdir/fuzz-seeds/$t artifacts=$bdir/fuzz-artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  rm -rf "$seed_dir" && mkdir -p "$seed_dir"
  seeds "$t" "$seed_dir"
  # Inputs that once failed stay in the corpus, so a regression is found at once.
  [ -d "$root/tests/fuzz/regressions/$t" ] && cp "$root/tests/fuzz/regressions/$t"/* "$seed_dir"/
  dict=()
  [ "$t" = frontend ] && dict=(-dict="$root/tests/fuzz/gstack.dict")
  echo "run-fuzz: $t for ${seconds}s"
  # libFuzzer writes new inputs into the first directory and only reads the others.
  if ! "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 "${dict[@]}" \
      -artifact_prefix="$artifacts/" -print_final_stats=1 "$corpus" "$seed_dir" 2>"$bdir/fuzz-$t.log"; then
    echo "run-fuzz: $t FAILED; see $bdir/fuzz-$t.log and $artifacts/"
    tail -40 "$bdir/fuzz-$t.log"
    status=1
  else
    grep -E '^stat::number_of_executed_units|^Done ' "$bdir/fuzz-$t.log" || true
  fi
done
exit $status
