#include "sim/stats/time_weighted.hpp"

#include <stdexcept>
#include <string>

namespace fathom::sim {

// Out of line: the message is built only on the error path, so set() stays small enough to inline.
void TimeWeightedValue::throw_backwards(const char* operation, SimTime t) const {
  throw std::invalid_argument(std::string("TimeWeightedValue::") + operation + ": time " + format_time(t) +
                              " is before the last update at " + format_time(last_) + "; times must not decrease");
}

}  // namespace fathom::sim
