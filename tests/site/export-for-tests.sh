#!/usr/bin/env bash
# Exports the observatory site for the browser and unit tests: the default preset when it resolves (else
# a note, and only the dense fixtures), plus the dense fixture, whose numbers can be checked by hand, and
# its uncertain variant, which gives the distribution and Sobol charts something to draw.
set -euo pipefail
gs="${1:?usage: export-for-tests.sh GPU_STACK OUT_DIR [RUNS_CSV]}"
out="${2:?}"
runs="${3:-}"
presets=()
if "$gs" resolve econ.cost.per_token --preset default >/dev/null 2>&1; then
  presets+=(--preset default)
else
  echo "note: preset 'default' does not load or resolve; the site tests use the dense fixture only" >&2
fi
presets+=(--preset dense_training_cost_fixture --preset dense_training_cost_uncertain)
extra=()
[ -n "$runs" ] && [ -r "$runs" ] && extra+=(--runs "$runs")
"$gs" export site --out "$out" "${presets[@]}" "${extra[@]}" --run-experiments
