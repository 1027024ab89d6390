// libFuzzer target for the published-runs CSV reader (runtime/validate/csv.cpp, runs.cpp): the RFC 4180
// parser, the row builder and the free-text cell parsers every row goes through. Bad input must end in a
// CsvError; any other exception, crash or hang is a defect.
#include <cstdint>
#include <string>

#include "runtime/validate/runs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gs::validate;
  try {
    const CsvTable table = parse_csv(std::string_view(reinterpret_cast<const char*>(data), size));
    for (const RunRow& row : runs_from_table(table)) {
      for (const auto& [column, text] : row.cells) {
        (void)parse_plain_number(text);
        (void)parse_scaled_count(text);
        (void)parse_binary_count(text);
        (void)parse_duration(text);
        (void)parse_year(text);
      }
    }
  } catch (const CsvError&) {
  }
  return 0;
}
