// A declared parameter's value as text a scenario reads back: exact (what a calibrated profile
// writes: whole nanoseconds and bytes) or readable (what the generated docs show: the largest
// unit that keeps the number whole).
#pragma once

#include <string>
#include <string_view>

#include "models/params/parameter.hpp"

namespace fathom::params {

std::string exact_text(Quantity quantity, double value, std::string_view choices = {});
// A plain number as YAML reads it back: 6 significant digits, .nan and .inf for the IEEE values.
std::string number_text(double value);
std::string readable_text(Quantity quantity, double value, std::string_view choices = {});

// The quantity as the docs name it: "duration", "bytes", "fraction", ...
std::string_view quantity_name(Quantity quantity);

}  // namespace fathom::params
