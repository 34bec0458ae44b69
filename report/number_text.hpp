// Numbers as the CSV and JSON writers print them, shared so that every table writes a time or a
// figure the same way.
#pragma once

#include <string>

#include "sim/time.hpp"

namespace fathom::report {

// A time in seconds, exact: the nanoseconds as a decimal, trailing zeros dropped ("1.5", "86400",
// "-0.000001").
std::string exact_seconds(sim::SimTime t);

// Milliseconds to four significant digits ("46.16 ms", "1915 ms"): a latency at a glance.
std::string ms_text(double seconds);

// Ten significant digits ("%.10g"): a double in a CSV cell.
std::string ten_digits(double x);

}  // namespace fathom::report
