// Quantities with units: every accepted form gives its exact SI value, and every rejected
// form says what was expected, what was found and, where it can tell, what was meant.
#include "scenarios/units.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using fathom::scenario::format_bytes;
using fathom::scenario::format_bytes_per_s;
using fathom::scenario::format_duration;
using fathom::scenario::parse_bytes;
using fathom::scenario::parse_bytes_per_s;
using fathom::scenario::parse_count;
using fathom::scenario::parse_duration;
using fathom::scenario::parse_flops;
using fathom::scenario::parse_number;
using fathom::scenario::parse_usd;
using fathom::scenario::parse_usd_per_hour;
using fathom::scenario::parse_watts;
using fathom::scenario::Sign;
using fathom::scenario::UnitError;
using fathom::sim::SimTime;

namespace {

// The UnitError that `parse` throws on `text`, checked to name the text it rejected.
template <class Parse>
UnitError rejection(Parse parse, const std::string& text) {
  try {
    parse(text);
  } catch (const UnitError& e) {
    CHECK(e.found() == text);
    CHECK(std::string(e.what()).find("found \"" + text + "\"") != std::string::npos);
    return e;
  }
  FAIL("accepted \"" << text << "\"");
  return UnitError("", "");
}

const auto bandwidth = [](const std::string& t) { return parse_bytes_per_s(t); };
const auto bytes = [](const std::string& t) { return parse_bytes(t); };
const auto duration = [](const std::string& t) { return parse_duration(t); };

}  // namespace

TEST_CASE("bandwidth in bits per second is divided by eight, exactly") {
  CHECK(parse_bytes_per_s("400Gbps") == 50e9);
  CHECK(parse_bytes_per_s("400 Gbps") == 50e9);
  CHECK(parse_bytes_per_s("400Gb/s") == 50e9);
  CHECK(parse_bytes_per_s("400Gbit/s") == 50e9);
  CHECK(parse_bytes_per_s("8bps") == 1.0);
  CHECK(parse_bytes_per_s("1bps") == 0.125);
  CHECK(parse_bytes_per_s("1Kbps") == 125.0);
  CHECK(parse_bytes_per_s("1kbps") == 125.0);
  CHECK(parse_bytes_per_s("100Mbps") == 12.5e6);
  CHECK(parse_bytes_per_s("200Gbps") == 25e9);
  CHECK(parse_bytes_per_s("1.6Tbps") == 200e9);
  CHECK(parse_bytes_per_s("3.2Tb/s") == 400e9);
  CHECK(parse_bytes_per_s("1Pbps") == 125e12);
}

TEST_CASE("bandwidth in bytes per second: decimal prefixes step by 10^3, binary ones by 2^10") {
  CHECK(parse_bytes_per_s("50GB/s") == 50e9);
  CHECK(parse_bytes_per_s("3.35TB/s") == 3.35e12);
  CHECK(parse_bytes_per_s("900 GB/s") == 900e9);
  CHECK(parse_bytes_per_s("1B/s") == 1.0);
  CHECK(parse_bytes_per_s("1KB/s") == 1e3);
  CHECK(parse_bytes_per_s("1kB/s") == 1e3);
  CHECK(parse_bytes_per_s("1MB/s") == 1e6);
  CHECK(parse_bytes_per_s("2.5e-3GB/s") == 2.5e6);
  CHECK(parse_bytes_per_s("1e8B/s") == 1e8);
  CHECK(parse_bytes_per_s("1KiB/s") == 1024.0);
  CHECK(parse_bytes_per_s("1MiB/s") == 1048576.0);
  CHECK(parse_bytes_per_s("1GiB/s") == 1073741824.0);
  CHECK(parse_bytes_per_s("1TiB/s") == 1099511627776.0);
  CHECK(parse_bytes_per_s("1.5GiB/s") == 1610612736.0);
  CHECK(parse_bytes_per_s("0B/s") == 0.0);
  CHECK(parse_bytes_per_s("+1GB/s") == 1e9);
  CHECK(parse_bytes_per_s(".5GB/s") == 0.5e9);
  CHECK(parse_bytes_per_s("5.GB/s") == 5e9);
}

TEST_CASE("bandwidth rejections say what was expected and what was meant") {
  const UnitError lower = rejection(bandwidth, "400gbps");
  CHECK(lower.expected() == "a bandwidth such as 400Gbps, 50GB/s or 3.35TB/s");
  // Lower case "gbps" could be bits or bytes: both are offered, neither is guessed.
  CHECK(lower.hint() == "units are case-sensitive (b = bits, B = bytes): did you mean \"Gbps\" or \"GB/s\"?");
  CHECK(rejection(bandwidth, "50gb/s").hint() ==
        "units are case-sensitive (b = bits, B = bytes): did you mean \"Gbps\" or \"GB/s\"?");
  CHECK(rejection(bandwidth, "50GBps").hint().find("\"GB/s\"") != std::string::npos);
  CHECK(rejection(bandwidth, "400").hint().find("a unit is required") != std::string::npos);
  CHECK(rejection(bandwidth, "").expected() == "a bandwidth such as 400Gbps, 50GB/s or 3.35TB/s");
  rejection(bandwidth, "Gbps");
  rejection(bandwidth, "nan");
  rejection(bandwidth, "NaNGbps");
  rejection(bandwidth, "inf");
  rejection(bandwidth, "infGbps");
  rejection(bandwidth, ".infGB/s");
  rejection(bandwidth, "fast");
  rejection(bandwidth, "1.2.3GB/s");
  rejection(bandwidth, "400 Gbps extra");
  rejection(bandwidth, "400GiBps");
  CHECK(rejection(bandwidth, "1e999GB/s").hint() == "the number is out of range");
  CHECK(rejection(bandwidth, "-1GB/s").expected() == "a non-negative bandwidth such as 400Gbps, 50GB/s or 3.35TB/s");
  CHECK_THROWS_WITH_AS(parse_bytes_per_s("0GB/s", Sign::kPositive),
                       "expected a positive bandwidth such as 400Gbps, 50GB/s or 3.35TB/s, found \"0GB/s\"", UnitError);
  CHECK(parse_bytes_per_s("-1GB/s", Sign::kAny) == -1e9);
}

TEST_CASE("sizes are whole numbers of bytes, computed exactly") {
  CHECK(parse_bytes("80GiB") == 85899345920);
  CHECK(parse_bytes("80 GiB") == 85899345920);
  CHECK(parse_bytes("141GB") == 141'000'000'000);
  CHECK(parse_bytes("1B") == 1);
  CHECK(parse_bytes("1KB") == 1000);
  CHECK(parse_bytes("1kB") == 1000);
  CHECK(parse_bytes("512MB") == 512'000'000);
  CHECK(parse_bytes("1TB") == 1'000'000'000'000);
  CHECK(parse_bytes("2PB") == 2'000'000'000'000'000);
  CHECK(parse_bytes("4KiB") == 4096);
  CHECK(parse_bytes("1.5KiB") == 1536);
  CHECK(parse_bytes("1MiB") == 1048576);
  CHECK(parse_bytes("1TiB") == 1099511627776);
  CHECK(parse_bytes("1PiB") == 1125899906842624);
  CHECK(parse_bytes("1e8B") == 100'000'000);
  CHECK(parse_bytes("3.35e9B") == 3'350'000'000);
  CHECK(parse_bytes("0.000001MB") == 1);
  CHECK(parse_bytes("0B") == 0);
}

TEST_CASE("size rejections") {
  // A plain number is not a size: "1e8" might mean bytes, bits or parameters.
  CHECK(rejection(bytes, "1e8").hint().find("a unit is required") != std::string::npos);
  CHECK(rejection(bytes, "1e8").expected() == "a size such as 80GiB, 512MB or 4KiB");
  CHECK(rejection(bytes, "0.1KiB").hint() == "a size is a whole number of bytes");
  CHECK(rejection(bytes, "0.5B").hint() == "a size is a whole number of bytes");
  CHECK(rejection(bytes, "80gb").hint() == "units are case-sensitive (b = bits, B = bytes): did you mean \"GB\"?");
  CHECK(rejection(bytes, "80Gb").hint() == "units are case-sensitive (b = bits, B = bytes): did you mean \"GB\"?");
  CHECK(rejection(bytes, "80gib").hint() == "units are case-sensitive (b = bits, B = bytes): did you mean \"GiB\"?");
  CHECK(rejection(bytes, "16EB").hint() == "");
  CHECK(rejection(bytes, "9PiB0").hint() == "");
  CHECK(rejection(bytes, "10000PiB").hint() == "the number is out of range");
  CHECK(rejection(bytes, "-1GB").expected() == "a non-negative size such as 80GiB, 512MB or 4KiB");
  rejection(bytes, "12345678901234567890123B");  // more digits than an exact computation holds
  rejection(bytes, "1e100000000000000000000GB");
  rejection(bytes, "nanGB");
  rejection(bytes, "GB");
  rejection(bytes, "50GB/s");
  CHECK(parse_bytes("-1GB", Sign::kAny) == -1'000'000'000);
  CHECK(rejection(bytes, "1e-100000000000GB").hint() == "a size is a whole number of bytes");
}

TEST_CASE("counts are plain whole numbers, scientific form allowed") {
  CHECK(parse_count("4096") == 4096);
  CHECK(parse_count("1e8") == 100'000'000);
  CHECK(parse_count("2.5e3") == 2500);
  CHECK(parse_count("9223372036854775807") == INT64_MAX);
  CHECK_THROWS_AS(parse_count("9223372036854775808"), UnitError);
  CHECK_THROWS_WITH_AS(parse_count("1.5"),
                       "expected a whole number such as 4096 or 1e8, found \"1.5\" (a count is a whole number)",
                       UnitError);
  CHECK_THROWS_WITH_AS(parse_count("10GB"),
                       "expected a whole number such as 4096 or 1e8, found \"10GB\" (a count has no unit)", UnitError);
  CHECK_THROWS_AS(parse_count("-1"), UnitError);
  CHECK(parse_count("-1", Sign::kAny) == -1);
}

TEST_CASE("plain numbers") {
  CHECK(parse_number("0.5") == 0.5);
  CHECK(parse_number("2.5e-3") == 2.5e-3);
  CHECK(parse_number("-4") == -4.0);
  CHECK_THROWS_AS(parse_number("nan"), UnitError);
  CHECK_THROWS_AS(parse_number(".inf"), UnitError);
  CHECK_THROWS_AS(parse_number("1e400"), UnitError);
  CHECK_THROWS_AS(parse_number("4 W"), UnitError);
  CHECK_THROWS_AS(parse_number("-4", Sign::kNonNegative), UnitError);
}

TEST_CASE("durations are rounded exactly to the nearest nanosecond") {
  CHECK(parse_duration("2us") == SimTime::from_ns(2000));
  CHECK(parse_duration("2 us") == SimTime::from_ns(2000));
  CHECK(parse_duration("2\u00b5s") == SimTime::from_ns(2000));  // micro sign
  CHECK(parse_duration("2\u03bcs") == SimTime::from_ns(2000));  // Greek mu
  CHECK(parse_duration("100ns") == SimTime::from_ns(100));
  CHECK(parse_duration("1.5ms") == SimTime::from_ns(1'500'000));
  CHECK(parse_duration("30s") == SimTime::from_ns(30'000'000'000));
  CHECK(parse_duration("2.5e-3s") == SimTime::from_ns(2'500'000));
  CHECK(parse_duration("2min") == SimTime::from_ns(120'000'000'000));
  CHECK(parse_duration("1.5h") == SimTime::from_ns(5'400'000'000'000));
  CHECK(parse_duration("1d") == SimTime::from_ns(86'400'000'000'000));
  CHECK(parse_duration("0.1s") == SimTime::from_ns(100'000'000));
  CHECK(parse_duration("1.0000000004s") == SimTime::from_ns(1'000'000'000));
  CHECK(parse_duration("1.0000000006s") == SimTime::from_ns(1'000'000'001));
  // Ties go to even, as SimTime::from_seconds does.
  CHECK(parse_duration("0.5ns") == SimTime::from_ns(0));
  CHECK(parse_duration("1.5ns") == SimTime::from_ns(2));
  CHECK(parse_duration("2.5ns") == SimTime::from_ns(2));
  CHECK(parse_duration("1e-30s") == SimTime::from_ns(0));
  CHECK(parse_duration("0s") == SimTime::zero());
  CHECK(parse_duration("100000d") == SimTime::from_ns(8'640'000'000'000'000'000));
}

TEST_CASE("duration rejections") {
  CHECK(rejection(duration, "-2us").expected() == "a non-negative duration such as 2us, 1.5ms or 30s");
  CHECK(parse_duration("-2us", Sign::kAny) == SimTime::from_ns(-2000));
  CHECK_THROWS_WITH_AS(parse_duration("0s", Sign::kPositive),
                       "expected a positive duration such as 2us, 1.5ms or 30s, found \"0s\"", UnitError);
  CHECK(rejection(duration, "2m").hint() == "write min for minutes or ms for milliseconds");
  CHECK(rejection(duration, "2MS").hint() == "units are case-sensitive: did you mean \"ms\"?");
  CHECK(rejection(duration, "2").hint().find("a unit is required") != std::string::npos);
  CHECK(rejection(duration, "1000000d").hint() == "the number is out of range");
  rejection(duration, "2 sec");
  rejection(duration, "2us2");
  rejection(duration, "soon");
  rejection(duration, "nan s");
}

TEST_CASE("FLOP rates, power and money") {
  CHECK(parse_flops("989TFLOPS") == 9.89e14);
  CHECK(parse_flops("989 TFLOPS") == 9.89e14);
  CHECK(parse_flops("1.98PFLOPS") == 1.98e15);
  CHECK(parse_flops("312TFLOP/s") == 3.12e14);
  CHECK(parse_flops("1GFLOPS") == 1e9);
  CHECK(parse_flops("1.2EFLOPS") == 1.2e18);
  CHECK(parse_flops("5FLOPS") == 5.0);
  CHECK(rejection([](const std::string& t) { return parse_flops(t); }, "989tflops").hint() ==
        "units are case-sensitive: did you mean \"TFLOPS\"?");
  CHECK_THROWS_AS(parse_flops("989T"), UnitError);

  CHECK(parse_watts("700W") == 700.0);
  CHECK(parse_watts("10.2kW") == 10200.0);
  CHECK(parse_watts("1.5MW") == 1.5e6);
  CHECK(parse_watts("1GW") == 1e9);
  CHECK(rejection([](const std::string& t) { return parse_watts(t); }, "10KW").hint() ==
        "units are case-sensitive: did you mean \"kW\"?");

  CHECK(parse_usd("$2.50") == 2.5);
  CHECK(parse_usd("$ 2.50") == 2.5);
  CHECK(parse_usd("$1.5e6") == 1.5e6);
  CHECK(parse_usd("$0") == 0.0);
  CHECK(parse_usd_per_hour("$2.50/h") == 2.5);
  CHECK(parse_usd_per_hour("$2.50 /h") == 2.5);
  const auto usd = [](const std::string& t) { return parse_usd(t); };
  const auto per_hour = [](const std::string& t) { return parse_usd_per_hour(t); };
  CHECK(rejection(usd, "2.50").hint() == "write amounts of money with a dollar sign, such as $2.50");
  CHECK(rejection(usd, "$2.50/h").hint() == "this is an amount, not a price per hour: drop the /h");
  CHECK(rejection(per_hour, "$2.50").hint() == "a price per hour ends in /h, such as $2.50/h");
  CHECK(rejection(per_hour, "$2.50").expected() == "a price per hour such as $2.50/h");
  CHECK(rejection(usd, "-$1").expected() == "a non-negative amount in US dollars such as $2.50 or $1.5e6");
  CHECK(parse_usd("-$1", Sign::kAny) == -1.0);
  CHECK(parse_usd("$-1", Sign::kAny) == -1.0);
  rejection(usd, "$");
  rejection(usd, "$nan");
  rejection(usd, "$2.50/month");
  rejection(usd, "--$1");
  rejection(usd, "-$-1");
  rejection(usd, "USD 2");
}

TEST_CASE("human output uses the units the parsers read back") {
  CHECK(format_bytes_per_s(50e9) == "50 GB/s");
  CHECK(format_bytes_per_s(3.35e12) == "3.35 TB/s");
  CHECK(format_bytes_per_s(12.5e6) == "12.5 MB/s");
  CHECK(format_bytes_per_s(0.0) == "0 B/s");
  CHECK(format_bytes(85899345920) == "80 GiB");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(-2048) == "-2 KiB");
  CHECK(format_duration(SimTime::from_ns(2000)) == "2 us");
  CHECK(format_duration(SimTime::from_ns(1'500'000)) == "1.5 ms");
  CHECK(format_duration(SimTime::from_ns(90'000'000'000)) == "1.5 min");
  CHECK(format_duration(SimTime::from_ns(5'400'000'000'000)) == "1.5 h");
  CHECK(format_duration(SimTime::from_ns(172'800'000'000'000)) == "2 d");
  CHECK(format_duration(SimTime::from_ns(-7)) == "-7 ns");
  CHECK(format_duration(SimTime::zero()) == "0 s");
  for (const double v : {1.0, 999.0, 1234.5, 50e9, 3.35e12, 7.77e15, 1e20}) {
    CAPTURE(v);
    CHECK(parse_bytes_per_s(format_bytes_per_s(v)) == doctest::Approx(v).epsilon(1e-3));
  }
  for (const std::int64_t b : {std::int64_t{0}, std::int64_t{1023}, std::int64_t{1} << 40, std::int64_t{3} << 50}) {
    CHECK(parse_bytes(format_bytes(b)) == b);
  }
  CHECK(parse_duration(format_duration(SimTime::from_ns(2000))) == SimTime::from_ns(2000));
}
