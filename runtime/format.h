// Numbers with units for people. Values live in base units; they are shown in the variable's display
// unit, with an SI prefix picked for readability when that unit conventionally takes one ("5.2 kW",
// "150 ms", "1.08 EFLOP/s"), and otherwise as plain or scientific numbers ("3.000078e-06 USD/token").
#pragma once

#include <string>

#include "image/image.h"

namespace gs {

// Up to seven significant digits, without trailing zeros: 5.2, 6666667, 3.000078e-06.
std::string format_number(double x);

struct Displayed {
  double value = 0;  // in `unit`
  std::string unit;  // empty for dimensionless quantities
};
Displayed display(const UnitTable& units, const Variable& var, double base_value);

// "5.2 kW"; just the number for dimensionless variables.
std::string format_quantity(const UnitTable& units, const Variable& var, double base_value);

}  // namespace gs
