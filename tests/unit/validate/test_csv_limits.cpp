#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "runtime/validate/csv.h"

using namespace gs::validate;

TEST_CASE("csv: rows of bare separators are skipped like blank lines and cost nothing") {
  // A spreadsheet's unused rows (",,,,") used to become records of empty fields, each kept as a run row.
  std::string text = "id,a,b,c\nx,1,2,3\n";
  for (int i = 0; i < 10000; ++i) text += ",,,\n";
  text += "\"\",,\"\",\ny,4,5,6\n";
  CsvTable t = parse_csv(text);
  REQUIRE(t.records.size() == 2);
  CHECK(t.records[0].fields == std::vector<std::string>{"x", "1", "2", "3"});
  CHECK(t.records[1].fields[0] == "y");
  CHECK(t.records[1].line == 10004);
  CHECK(t.records[1].fields.capacity() == 4);  // no slack kept per record
}

TEST_CASE("csv: input past the limits is refused with a message, before it can exhaust memory") {
  CsvLimits small;
  small.max_bytes = 64, small.max_records = 3, small.max_fields = 5;
  CHECK_THROWS_WITH_AS(parse_csv(std::string(65, 'x'), small), doctest::Contains("65 bytes, more than the limit of 64"), CsvError);
  CHECK_THROWS_WITH_AS(parse_csv("id\n1\n2\n3\n", small), doctest::Contains("line 4: more than 3 records"), CsvError);
  CHECK_THROWS_WITH_AS(parse_csv("id\n1,2,3,4,5,6\n", small), doctest::Contains("line 2: more than 5 fields"), CsvError);
  CHECK(parse_csv("id\n1\n2\n", small).records.size() == 2);
  // A file is read only up to the limit: a bigger one (or an endless device) is refused.
  const auto path = std::filesystem::path(GSTACK_BINARY_DIR) / "tests" / "csv_limits.csv";
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << "id\n" << std::string(200, '1') << "\n";
  CHECK_THROWS_WITH_AS(read_csv(path.string(), small), doctest::Contains("more than 64 bytes"), CsvError);
  CHECK_THROWS_WITH_AS(read_csv("/dev/zero", small), doctest::Contains("more than 64 bytes"), CsvError);
  CHECK(read_csv(path.string()).records.size() == 1);
}
