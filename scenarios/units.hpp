// Quantities with units as scenarios write them ("400Gbps", "80GiB", "2us", "989TFLOPS",
// "$2.50/h"), parsed once into SI numbers, and the reverse for human output.
//
// Every parser takes the text of one YAML scalar and either returns the SI value or throws
// UnitError saying what was expected; the YAML reader adds the file, line and key. Units are
// case-sensitive where case carries meaning: "Gb" is gigabits, "GB" gigabytes, and an
// ambiguous "gb" is rejected with a hint rather than guessed.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/time.hpp"

namespace fathom::scenario {

// Text that is not the quantity asked for. what() is
// "expected <expected>, found "<text>"", followed by " (<hint>)" when there is a hint.
class UnitError : public std::invalid_argument {
 public:
  UnitError(std::string expected, std::string found, std::string hint = {});

  // "a bandwidth such as 400Gbps, 50GB/s or 3.35TB/s": what a correct value looks like.
  const std::string& expected() const { return expected_; }
  // The rejected text, unquoted, as given.
  const std::string& found() const { return found_; }
  // What probably went wrong ("units are case-sensitive: did you mean ..."), or empty.
  const std::string& hint() const { return hint_; }

 private:
  std::string expected_;
  std::string found_;
  std::string hint_;
};

// Which values a caller accepts. Physical quantities default to kNonNegative: a negative
// bandwidth or size is always a typo, and zero often means "absent".
enum class Sign { kNonNegative, kPositive, kAny };

// The kinds of quantity, so that a caller can say what it expected without parsing anything.
enum class Quantity { kBandwidth, kBytes, kCount, kNumber, kDuration, kFlopRate, kPower, kUsd, kUsdPerHour };

// "a positive bandwidth such as 400Gbps, 50GB/s or 3.35TB/s": the `expected` text of the
// UnitError that the parser of `quantity` throws.
std::string expected_quantity(Quantity quantity, Sign sign = Sign::kNonNegative);

// Bits (bps, Kbps, Mbps, Gbps, Tbps, Pbps, also Gb/s and Gbit/s) or bytes (B/s, KB/s, ...,
// PB/s, KiB/s, ..., PiB/s) per second, to bytes per second. Decimal prefixes step by 10^3,
// binary ones by 2^10; "400Gbps" is exactly 50e9.
double parse_bytes_per_s(std::string_view text, Sign sign = Sign::kNonNegative);

// B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB, to a whole number of bytes, computed
// exactly ("80GiB" = 85899345920, "1.5KiB" = 1536; "0.1KiB" is not whole and is rejected).
// A plain number without a unit is rejected: a size needs a unit.
std::int64_t parse_bytes(std::string_view text, Sign sign = Sign::kNonNegative);

// A plain whole number without a unit, in decimal or scientific form ("4096", "1e8"), for
// counts such as tokens or samples.
std::int64_t parse_count(std::string_view text, Sign sign = Sign::kNonNegative);

// A plain finite number without a unit, decimal or scientific ("0.5", "2.5e-3"). NaN,
// infinities and YAML's ".inf" are rejected.
double parse_number(std::string_view text, Sign sign = Sign::kAny);

// ns, us (also µs and μs), ms, s, min, h, d, rounded exactly to the nearest nanosecond
// (ties to even, like SimTime::from_seconds).
sim::SimTime parse_duration(std::string_view text, Sign sign = Sign::kNonNegative);

// FLOPS, KFLOPS, MFLOPS, GFLOPS, TFLOPS, PFLOPS, EFLOPS (also written TFLOP/s), to FLOP/s.
double parse_flops(std::string_view text, Sign sign = Sign::kNonNegative);

// W, kW, MW, GW, to watts.
double parse_watts(std::string_view text, Sign sign = Sign::kNonNegative);

// "$2.50", "$1.2e6": an amount in US dollars.
double parse_usd(std::string_view text, Sign sign = Sign::kNonNegative);

// "$2.50/h": a price per hour in US dollars.
double parse_usd_per_hour(std::string_view text, Sign sign = Sign::kNonNegative);

// Human output with four significant digits, in a form the parsers above read back:
// "50 GB/s" (decimal units), "80 GiB" (binary units), "1.5 ms".
std::string format_bytes_per_s(double bytes_per_s);
std::string format_bytes(std::int64_t bytes);
std::string format_duration(sim::SimTime duration);

}  // namespace fathom::scenario
