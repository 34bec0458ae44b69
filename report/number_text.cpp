#include "report/number_text.hpp"

#include <cinttypes>
#include <cstdio>

namespace fathom::report {

std::string exact_seconds(sim::SimTime t) {
  std::int64_t ns = t.ns();
  std::string sign;
  if (ns < 0) {
    sign = "-";
    ns = -ns;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%" PRId64 ".%09" PRId64, ns / 1'000'000'000, ns % 1'000'000'000);
  std::string text = buf;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return sign + text;
}

std::string ten_digits(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

std::string ms_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g ms", seconds * 1e3);
  return buf;
}

}  // namespace fathom::report
