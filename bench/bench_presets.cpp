// Preset loading as `validate` does it, timed in one process (driven by bench/preset_cache.sh):
// for every published run row, the row's scenario (map_row) and its layered presets (resolve_scenario),
//   fresh   with a new PresetLibrary per row, so every file the row needs is parsed again for each row:
//           the baseline of this run (before libraries cached, every load parsed, so the former cost
//           was at least this);
//   shared  with one library for all rows, as `validate` runs: each file parsed once per process.
// Checks that both give the same assignments, then prints one line per method: rows, files parsed,
// seconds per pass (best of ROUNDS), and the shared/fresh time ratio.
//   bench_presets IMAGE PRESETS_DIR DATA_DIR [ROUNDS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/presets.h"
#include "runtime/validate/mapping.h"
#include "runtime/validate/mapping_table.h"
#include "runtime/validate/runs.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Pass {
  double seconds = 0;
  size_t parsed = 0;
  std::vector<gs::validate::ResolvedScenario> scenarios;
};

// One pass over the rows; `fresh` builds a new library for each row.
Pass run(const gs::Registry& reg, const std::string& dir, const std::vector<gs::validate::RunRow>& rows, bool fresh) {
  Pass p;
  const auto t0 = Clock::now();
  gs::PresetLibrary shared(reg, dir);
  for (const auto& row : rows) {
    gs::PresetLibrary lib = fresh ? gs::PresetLibrary(reg, dir) : shared;
    try {
      const auto s = gs::validate::map_row(reg, lib, row);
      if (s.unbuildable.empty()) p.scenarios.push_back(gs::validate::resolve_scenario(reg, lib, s));
    } catch (const std::exception&) {
      p.scenarios.emplace_back();  // a row validate reports as unbuildable: the same in both methods
    }
    if (fresh) p.parsed += lib.files_parsed();
  }
  if (!fresh) p.parsed = shared.files_parsed();
  p.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bench_presets IMAGE PRESETS_DIR DATA_DIR [ROUNDS]\n");
    return 2;
  }
  const gs::Registry reg = gs::Registry::load(argv[1]);
  const std::string dir = argv[2];
  const int rounds = argc > 4 ? std::max(1, std::atoi(argv[4])) : 5;
  const auto rows = gs::validate::read_runs(gs::validate::default_runs_paths(dir, argv[3]));
  Pass best[2];
  for (int r = 0; r < rounds; ++r)
    for (int fresh = 0; fresh < 2; ++fresh) {
      Pass p = run(reg, dir, rows, fresh == 1);
      if (r == 0 || p.seconds < best[fresh].seconds) best[fresh] = std::move(p);
    }
  for (size_t i = 0; i < best[0].scenarios.size(); ++i)
    if (best[0].scenarios[i].assignments != best[1].scenarios[i].assignments || best[0].scenarios[i].variants != best[1].scenarios[i].variants) {
      std::fprintf(stderr, "bench_presets: row %zu differs between a shared and a fresh library\n", i);
      return 1;
    }
  std::printf("fresh %zu %zu %.6f\n", rows.size(), best[1].parsed, best[1].seconds);
  std::printf("shared %zu %zu %.6f\n", rows.size(), best[0].parsed, best[0].seconds);
  return 0;
}
