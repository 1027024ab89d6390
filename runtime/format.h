// Numbers with units for people. Values live in base units. Text output shows them as the field quotes
// them: the display-units table (presets/display_units.toml, built into the runtime) picks a unit per
// dimension by magnitude ("0.65 USD/Mtoken", "100.7 day", "2.35 MW", "80 GB", "989 TFLOP/s"). Dimensions
// without a row, and every quantity under DisplayStyle::Declared (the CLI's --si), are shown in the
// variable's declared unit, with an SI prefix where that unit conventionally takes one ("5.2 kW",
// "150 ms") and otherwise as plain or scientific numbers ("3.000078e-06 USD/token").
#pragma once

#include <string>
#include <vector>

#include "image/image.h"

namespace gs {

// Up to seven significant digits, without trailing zeros: 5.2, 6666667, 3.000078e-06.
std::string format_number(double x);

enum class DisplayStyle {
  Quoted,    // the display-units table (default)
  Declared,  // the variable's declared unit, as before the table existed (--si)
};
// Chosen once by a command line before it prints; process-wide because every text report formats through
// display() and threading a flag through each of them would change every report's signature.
void set_display_style(DisplayStyle style);
DisplayStyle display_style();

struct Displayed {
  double value = 0;  // in `unit`
  std::string unit;  // empty for dimensionless quantities
};
Displayed display(const UnitTable& units, const Variable& var, double base_value);
Displayed display(const UnitTable& units, const Variable& var, double base_value, DisplayStyle style);

// The display-units table's rungs for `var`'s dimension, smallest first (one rung in base units each);
// empty when no row covers the dimension or the variable keeps its declared unit. Text output shows a value
// in the largest rung it reaches; the observatory's pages apply the same rule to these rungs.
struct Rung {
  std::string unit;
  double scale = 1;
};
std::vector<Rung> quoted_ladder(const UnitTable& units, const Variable& var);

// "5.2 kW"; just the number for dimensionless variables.
std::string format_quantity(const UnitTable& units, const Variable& var, double base_value);

// Problems of the built-in display-units table against a model's units: rows or rungs whose unit does not
// parse or is not of the row's dimension. Empty when every row can be used (checked by the tests).
std::vector<std::string> display_table_problems(const UnitTable& units);

}  // namespace gs
