#include "sim/time.hpp"

#include <cstdio>

namespace fathom::sim {

std::string format_time(SimTime t) {
  const std::int64_t ns = t.ns();
  // Work on the magnitude as unsigned so that INT64_MIN does not overflow.
  const std::uint64_t mag = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%llu.%09llu s", ns < 0 ? "-" : "",
                static_cast<unsigned long long>(mag / 1'000'000'000ULL),
                static_cast<unsigned long long>(mag % 1'000'000'000ULL));
  return buf;
}

}  // namespace fathom::sim
