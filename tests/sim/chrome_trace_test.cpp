// ChromeTrace: the file parses as strict JSON, carries the trace-event fields Perfetto
// reads, prints time exactly, and is byte-identical when the same trace is built twice.
#include "sim/trace/chrome_trace.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tests/support/json_parser.hpp"

using fathom::sim::ChromeTrace;
using fathom::sim::format_trace_us;
using fathom::sim::SimTime;
using fathom::test::JsonValue;
using fathom::test::parse_json;
using namespace fathom::sim::literals;

namespace {

// Two nodes (processes), three tracks (threads), every kind of event. Thread ids are
// unique across the trace, as docs/trace.md asks.
ChromeTrace build_sample() {
  ChromeTrace t;
  t.complete(1, 1, "forward", SimTime::from_ns(1'234'567), SimTime::from_ns(10'000), "compute",
             {{"flops", 1.5e12}, {"bytes", 4096}});
  t.process_name(1, "node 0");  // metadata recorded after an event still comes first
  t.thread_name(1, 1, "gpu 0");
  t.thread_name(1, 2, "gpu 1");
  t.process_name(2, "node 1");
  t.thread_name(2, 3, "nic 0");
  t.complete(1, 2, "backward", 2_us, 20_us);
  t.complete(2, 3, "all-reduce \"dp\"", SimTime::from_ns(5), SimTime::from_ns(999), "network");
  t.counter(1, "queue depth", 3_us, {{"requests", 7}, {"bytes", 1e6}});
  t.instant(2, 3, "link down", SimTime::from_ns(1'000'001), "failure", {{"link_id", 3}});
  t.instant(1, 1, "checkpoint", 4_ms);
  return t;
}

std::string to_string(const ChromeTrace& t) {
  std::ostringstream out;
  t.write(out);
  return out.str();
}

}  // namespace

TEST_CASE("chrome trace: timestamps are exact microsecond decimals") {
  CHECK(format_trace_us(SimTime::from_ns(1'234'567)) == "1234.567");
  CHECK(format_trace_us(SimTime::zero()) == "0.000");
  CHECK(format_trace_us(SimTime::from_ns(1)) == "0.001");
  CHECK(format_trace_us(SimTime::from_ns(999)) == "0.999");
  CHECK(format_trace_us(SimTime::from_ns(1000)) == "1.000");
  CHECK(format_trace_us(SimTime::from_ns(-1)) == "-0.001");
  CHECK(format_trace_us(SimTime::from_ns(-1'234'567)) == "-1234.567");
  // Beyond 2^53 ns a double would round; the text must not.
  CHECK(format_trace_us(SimTime::max()) == "9223372036854775.807");
  CHECK(format_trace_us(SimTime::from_ns(std::numeric_limits<std::int64_t>::min())) == "-9223372036854775.808");
}

TEST_CASE("chrome trace: events parse back with the trace-event fields") {
  const ChromeTrace trace = build_sample();
  CHECK(trace.event_count() == 6);
  const std::string text = to_string(trace);
  const JsonValue doc = parse_json(text);

  CHECK(doc.size() == 2);
  CHECK(doc.as_object()[0].first == "displayTimeUnit");
  CHECK(doc["displayTimeUnit"].as_string() == "ns");
  const JsonValue& events = doc["traceEvents"];
  REQUIRE(events.size() == 5 + 6);

  SUBCASE("metadata first, in insertion order") {
    const char* names[] = {"node 0", "gpu 0", "gpu 1", "node 1", "nic 0"};
    const char* kinds[] = {"process_name", "thread_name", "thread_name", "process_name", "thread_name"};
    const int pids[] = {1, 1, 1, 2, 2};
    for (std::size_t i = 0; i < 5; ++i) {
      CAPTURE(i);
      CHECK(events[i]["ph"].as_string() == "M");
      CHECK(events[i]["name"].as_string() == kinds[i]);
      CHECK(events[i]["pid"].as_int64() == pids[i]);
      CHECK(events[i]["args"]["name"].as_string() == names[i]);
    }
    CHECK_FALSE(events[0].contains("tid"));
    CHECK(events[2]["tid"].as_int64() == 2);
    CHECK(events[4]["tid"].as_int64() == 3);
  }

  SUBCASE("complete events") {
    const JsonValue& fwd = events[5];
    CHECK(fwd["ph"].as_string() == "X");
    CHECK(fwd["pid"].as_int64() == 1);
    CHECK(fwd["tid"].as_int64() == 1);
    CHECK(fwd["name"].as_string() == "forward");
    CHECK(fwd["cat"].as_string() == "compute");
    CHECK(fwd["ts"].number_text() == "1234.567");
    CHECK(fwd["dur"].number_text() == "10.000");
    CHECK(fwd["args"]["flops"].as_double() == 1.5e12);
    CHECK(fwd["args"]["bytes"].as_double() == 4096);

    const JsonValue& bwd = events[6];
    CHECK(bwd["ts"].number_text() == "2.000");
    CHECK(bwd["dur"].number_text() == "20.000");
    CHECK_FALSE(bwd.contains("cat"));   // empty category is left out
    CHECK_FALSE(bwd.contains("args"));  // so are empty args

    const JsonValue& ar = events[7];
    CHECK(ar["name"].as_string() == "all-reduce \"dp\"");
    CHECK(ar["ts"].number_text() == "0.005");
    CHECK(ar["dur"].number_text() == "0.999");
    CHECK(ar["pid"].as_int64() == 2);
    CHECK(ar["tid"].as_int64() == 3);
  }

  SUBCASE("counters") {
    const JsonValue& c = events[8];
    CHECK(c["ph"].as_string() == "C");
    CHECK(c["pid"].as_int64() == 1);
    CHECK(c["name"].as_string() == "queue depth");
    CHECK(c["ts"].number_text() == "3.000");
    CHECK(c["args"].size() == 2);
    CHECK(c["args"].as_object()[0].first == "requests");
    CHECK(c["args"]["requests"].as_double() == 7);
    CHECK(c["args"]["bytes"].as_double() == 1e6);
  }

  SUBCASE("instants") {
    const JsonValue& down = events[9];
    CHECK(down["ph"].as_string() == "i");
    CHECK(down["s"].as_string() == "t");
    CHECK(down["pid"].as_int64() == 2);
    CHECK(down["tid"].as_int64() == 3);
    CHECK(down["ts"].number_text() == "1000.001");
    CHECK(down["cat"].as_string() == "failure");
    CHECK(down["args"]["link_id"].as_double() == 3);
    CHECK(events[10]["name"].as_string() == "checkpoint");
    CHECK(events[10]["ts"].number_text() == "4000.000");
    CHECK_FALSE(events[10].contains("dur"));
  }

  SUBCASE("the text itself, one event per line") {
    CHECK(text.find(R"("ts":1234.567,"dur":10.000)") != std::string::npos);
    CHECK(text.rfind("{\n  \"displayTimeUnit\": \"ns\",\n  \"traceEvents\": [\n    {", 0) == 0);
    CHECK(text.back() == '\n');
    std::size_t lines = 0;
    for (char c : text) lines += c == '\n' ? 1 : 0;
    CHECK(lines == 3 + 11 + 2);
  }
}

TEST_CASE("chrome trace: output is byte-identical when built twice") {
  CHECK(to_string(build_sample()) == to_string(build_sample()));
  ChromeTrace copy = build_sample();
  const ChromeTrace moved = std::move(copy);
  CHECK(to_string(moved) == to_string(build_sample()));
}

TEST_CASE("chrome trace: renaming a track replaces its name in place") {
  ChromeTrace t;
  t.process_name(1, "a");
  t.thread_name(1, 1, "t");
  t.process_name(1, "b");
  const JsonValue events = parse_json(to_string(t))["traceEvents"];
  REQUIRE(events.size() == 2);
  CHECK(events[0]["args"]["name"].as_string() == "b");
  CHECK(events[1]["args"]["name"].as_string() == "t");
}

TEST_CASE("chrome trace: an empty trace is a valid file") {
  const JsonValue doc = parse_json(to_string(ChromeTrace{}));
  CHECK(doc["traceEvents"].size() == 0);
}

TEST_CASE("chrome trace: bad events are rejected when recorded") {
  ChromeTrace t;
  CHECK_THROWS_AS(t.complete(1, 1, "x", 1_us, SimTime::from_ns(-1)), std::invalid_argument);
  try {
    t.complete(1, 1, "x", 1_us, 1_us, "", {{"util_fraction", std::numeric_limits<double>::quiet_NaN()}});
    FAIL("NaN accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("util_fraction") != std::string::npos);
  }
  CHECK_THROWS_AS(t.counter(1, "c", 1_us, {{"v", std::numeric_limits<double>::infinity()}}), std::invalid_argument);
  CHECK(t.event_count() == 0);
}

TEST_CASE("chrome trace: write_file writes the same bytes as write") {
  const auto dir = std::filesystem::temp_directory_path() / ("fathom-trace-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "trace.json";
  const ChromeTrace trace = build_sample();
  trace.write_file(path);
  std::ifstream in(path, std::ios::binary);
  const std::string written{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  CHECK(written == to_string(trace));
  std::filesystem::remove_all(dir);
}
