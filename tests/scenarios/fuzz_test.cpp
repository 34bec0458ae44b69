// Deterministic fuzzing: mutated scenarios, overrides and unit strings either read or fail
// with the loader's own error type. Never another exception, a crash or a hang; the seeds are
// fixed so that a failure reproduces.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/units.hpp"
#include "scenarios/yaml_reader.hpp"
#include "tests/scenarios/toy_schema.hpp"
#include "tests/scenarios/yaml_mutations.hpp"
#include "tests/support/fuzz_rng.hpp"

using fathom::scenario::Document;
using fathom::scenario::ScenarioError;
using fathom::scenario::Sign;
using fathom::scenario::UnitError;
using fathom::scenario::test::kPilot;
using fathom::scenario::test::read_toy;
using fathom::test::mutate;

namespace {

using Rng = fathom::test::FuzzRng;

std::size_t count_lines(const std::string& s) {
  std::size_t n = 1;
  for (const char c : s) n += c == '\n' || c == '\r';
  return n;
}

}  // namespace

TEST_CASE("fuzz: mutated scenarios and overrides read or fail with ScenarioError only") {
  constexpr int kIterations = 20'000;
  const std::vector<std::string> overrides = {"cluster.nodes=16", "cluster.fabric.tiers[1].bandwidth=800Gbps",
                                              "cluster.node={gpus: 4}", "expect.mfu=45%",
                                              "cluster.fabric.tiers=[{bandwidth: 1Tbps, latency: 1us}]"};
  Rng rng(20240601);
  int accepted = 0;
  int rejected = 0;
  int bad_location = 0;
  std::string first_bad;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kIterations; ++i) {
    const std::string text = mutate(kPilot, rng);
    const bool with_override = rng.below(4) == 0;
    const std::string override_text = with_override
                                          ? (rng.below(2) == 0 ? overrides[rng.below(overrides.size())]
                                                               : mutate(overrides[rng.below(overrides.size())], rng))
                                          : std::string();
    try {
      Document doc = Document::parse(text, "fuzz.yaml");
      if (with_override) doc.apply_override(override_text);
      read_toy(doc);
      ++accepted;
    } catch (const ScenarioError& e) {
      ++rejected;
      // The location is the file (a line within it, or none) or the override.
      const bool in_file = e.file() == "fuzz.yaml" && e.line() >= 0 &&
                           static_cast<std::size_t>(e.line()) <= count_lines(text) + 1 && e.column() >= 0;
      const bool at_override = with_override && e.file() == "--set " + override_text && e.line() == 0;
      if (!(in_file || at_override) || std::string(e.what()).find("expected ") == std::string::npos) {
        if (bad_location++ == 0) {
          first_bad = "iteration " + std::to_string(i) + ": " + fathom::scenario::quote_found(e.what()) + " file " +
                      fathom::scenario::quote_found(e.file()) + " line " + std::to_string(e.line()) + " override " +
                      fathom::scenario::quote_found(override_text);
        }
      }
    } catch (const std::exception& e) {
      FAIL("iteration " << i << ": " << typeid(e).name() << ": " << e.what() << "\ninput:\n" << text);
    } catch (...) {
      FAIL("iteration " << i << ": an exception of unknown type\ninput:\n" << text);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE(kIterations << " mutated scenarios: " << accepted << " read, " << rejected << " rejected, in " << seconds
                      << " s");
  CHECK_MESSAGE(bad_location == 0, first_bad);
  CHECK(accepted + rejected == kIterations);
  // Both outcomes occur, so the mutations neither always break nor never touch the document.
  CHECK(accepted > kIterations / 100);
  CHECK(rejected > kIterations / 2);
}

TEST_CASE("inputs known to hang or exhaust yaml-cpp fail with ScenarioError") {
  const std::vector<std::string> inputs = {
      ",",                       // yaml-cpp issue #1040: LoadAll loops forever, allocating
      ", pilot\ncluster: {}\n",  // the same, found by the fuzz test above
      "...\n,",                  // the same, after an empty document
      "[:",                      // yaml-cpp issues #499 and #793
      "{:",
      "[[:",
      "{!\xdb:",
      "{# ke\ny{:",               // yaml-cpp issue #938
      std::string(100'000, '['),  // deep nesting: a stack overflow without yaml-cpp's depth guard
      std::string(100'000, '{'),
      "cluster: &c {nodes: 4, fabric: *c}\n",  // a mapping that contains itself
      "a: &a [*a]\n",
  };
  for (const std::string& text : inputs) {
    CAPTURE(text.substr(0, 20));
    try {
      read_toy(Document::parse(text, "bad.yaml"));
      FAIL("accepted");
    } catch (const ScenarioError& e) {
      CHECK(e.file() == "bad.yaml");
    }
  }
  CHECK_THROWS_WITH_AS(Document::parse(std::string(100'000, '['), "deep.yaml"),
                       doctest::Contains("levels deep, more than the parser allows"), ScenarioError);
}

TEST_CASE("fuzz: random unit strings parse or fail with UnitError only") {
  const std::string alphabet = "0123456789.eE+- $%/bBKkMGTPiWsunmhdFLOPS\xc2\xb5\t";
  constexpr int kStrings = 30'000;
  Rng rng(7);
  int accepted = 0;
  for (int i = 0; i < kStrings; ++i) {
    std::string s;
    for (std::size_t n = rng.below(16); s.size() < n;) {
      s += rng.below(16) == 0 ? static_cast<char>(rng.below(256)) : alphabet[rng.below(alphabet.size())];
    }
    const Sign sign = static_cast<Sign>(rng.below(3));
    int parsed = 0;
    const auto attempt = [&](auto parse) {
      try {
        parse();
        ++parsed;
      } catch (const UnitError& e) {
        if (e.found() != s) FAIL("found \"" << e.found() << "\" for \"" << s << "\"");
      } catch (const std::exception& e) {
        FAIL("\"" << s << "\": " << typeid(e).name() << ": " << e.what());
      }
    };
    attempt([&] { return fathom::scenario::parse_bytes_per_s(s, sign); });
    attempt([&] { return fathom::scenario::parse_bytes(s, sign); });
    attempt([&] { return fathom::scenario::parse_count(s, sign); });
    attempt([&] { return fathom::scenario::parse_number(s, sign); });
    attempt([&] { return fathom::scenario::parse_duration(s, sign); });
    attempt([&] { return fathom::scenario::parse_flops(s, sign); });
    attempt([&] { return fathom::scenario::parse_watts(s, sign); });
    attempt([&] { return fathom::scenario::parse_usd(s, sign); });
    attempt([&] { return fathom::scenario::parse_usd_per_hour(s, sign); });
    accepted += parsed;
  }
  MESSAGE(accepted << " of " << 9 * kStrings << " parses of random unit strings succeeded");
  CHECK(accepted > 0);
}

TEST_CASE("fuzz: well-formed quantities agree with exact arithmetic") {
  Rng rng(99);
  const char* binary[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  const char* decimal[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  const std::int64_t ns_per[] = {1, 1'000, 1'000'000, 1'000'000'000, 60'000'000'000};
  const char* time_units[] = {"ns", "us", "ms", "s", "min"};
  for (int i = 0; i < 20'000; ++i) {
    const std::int64_t n = static_cast<std::int64_t>(rng.below(1 << 20));
    const std::size_t k = rng.below(5);
    REQUIRE(fathom::scenario::parse_bytes(std::to_string(n) + binary[k]) == n << (10 * k));
    const std::size_t t = rng.below(5);
    REQUIRE(fathom::scenario::parse_duration(std::to_string(n) + (rng.below(2) ? " " : "") + time_units[t]).ns() ==
            n * ns_per[t]);
    // A decimal mantissa and exponent read exactly as the C library reads the same number.
    const std::string mantissa = std::to_string(rng.below(100'000)) + "." + std::to_string(rng.below(1000));
    const int exponent = static_cast<int>(rng.below(21)) - 10;
    const std::string number = mantissa + "e" + std::to_string(exponent);
    const std::size_t d = rng.below(5);
    REQUIRE(fathom::scenario::parse_bytes_per_s(number + decimal[d]) ==
            std::stod(mantissa + "e" + std::to_string(exponent + 3 * static_cast<int>(d))));
  }
}
