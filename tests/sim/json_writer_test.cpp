// JsonWriter: exact layout, round trips through a strict parser, and the misuse it rejects.
#include "sim/output/json_writer.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tests/support/json_parser.hpp"

using fathom::sim::JsonLayout;
using fathom::sim::JsonWriter;
using fathom::test::JsonValue;
using fathom::test::parse_json;

namespace {

// {"v": x} written with the writer, parsed back, and x's member returned.
template <class T>
JsonValue round_trip(const T& x, std::string* text = nullptr) {
  std::ostringstream out;
  JsonWriter w(out);
  w.begin_object();
  w.member("v", x);
  w.end_object();
  CHECK(w.complete());
  if (text != nullptr) *text = out.str();
  return parse_json(out.str())["v"];
}

std::string all_control_characters() {
  std::string s;
  for (int c = 0; c < 0x20; ++c) s += static_cast<char>(c);
  s += '\x7f';
  return s;
}

}  // namespace

TEST_CASE("json writer: compact output is exact") {
  std::ostringstream out;
  JsonWriter w(out);
  w.begin_object();
  w.member("a", 1);
  w.key("b");
  w.begin_array();
  w.value(true);
  w.value(false);
  w.value(nullptr);
  w.value(-7);
  w.value(2.5);
  w.end_array();
  w.key("c");
  w.begin_object();
  w.end_object();
  w.key("d");
  w.begin_array();
  w.end_array();
  w.member("e", "x");
  w.end_object();
  CHECK(w.complete());
  CHECK(out.str() == R"({"a":1,"b":[true,false,null,-7,2.5],"c":{},"d":[],"e":"x"})");
}

TEST_CASE("json writer: pretty output indents by two spaces") {
  std::ostringstream out;
  JsonWriter w(out, JsonLayout::kPretty);
  w.begin_object();
  w.member("a", 1);
  w.key("b");
  w.begin_array();
  w.value(1);
  w.begin_object();
  w.member("c", "d");
  w.end_object();
  w.end_array();
  w.key("e");
  w.begin_object();
  w.end_object();
  w.end_object();
  CHECK(out.str() ==
        "{\n"
        "  \"a\": 1,\n"
        "  \"b\": [\n"
        "    1,\n"
        "    {\n"
        "      \"c\": \"d\"\n"
        "    }\n"
        "  ],\n"
        "  \"e\": {}\n"
        "}");
  CHECK_NOTHROW(parse_json(out.str()));
}

TEST_CASE("json writer: pretty_levels keeps deeper containers on one line") {
  std::ostringstream out;
  JsonWriter w(out, JsonLayout::kPretty, 2);
  w.begin_object();
  w.key("events");
  w.begin_array();
  for (int i = 0; i < 2; ++i) {
    w.begin_object();
    w.member("i", i);
    w.key("args");
    w.begin_object();
    w.member("x", 0.5);
    w.end_object();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  CHECK(out.str() ==
        "{\n"
        "  \"events\": [\n"
        "    {\"i\":0,\"args\":{\"x\":0.5}},\n"
        "    {\"i\":1,\"args\":{\"x\":0.5}}\n"
        "  ]\n"
        "}");
  CHECK(parse_json(out.str())["events"].size() == 2);
}

TEST_CASE("json writer: strings are escaped and read back unchanged") {
  SUBCASE("quotes and backslashes") {
    std::string text;
    const std::string s = R"(say "hi" \ C:\path\ "")";
    CHECK(round_trip(s, &text).as_string() == s);
    CHECK(text == R"({"v":"say \"hi\" \\ C:\\path\\ \"\""})");
  }
  SUBCASE("every control character") {
    std::string text;
    const std::string s = all_control_characters();
    CHECK(round_trip(s, &text).as_string() == s);
    CHECK(text.find("\\u0000") != std::string::npos);
    CHECK(text.find("\\u0001") != std::string::npos);
    CHECK(text.find("\\u001f") != std::string::npos);
    CHECK(text.find("\\u007f") != std::string::npos);
    CHECK(text.find("\\n") != std::string::npos);
    for (char c : text) CHECK((static_cast<unsigned char>(c) >= 0x20 && c != '\x7f'));
  }
  SUBCASE("unicode passes through as UTF-8") {
    std::string text;
    const std::string s = "\xc2\xb5s, \xe6\x9d\xb1\xe4\xba\xac, \xf0\x9f\x98\x80";  // "µs, 東京, 😀"
    CHECK(round_trip(s, &text).as_string() == s);
    CHECK(text == "{\"v\":\"" + s + "\"}");
  }
  SUBCASE("keys are escaped too") {
    std::ostringstream out;
    JsonWriter w(out);
    w.begin_object();
    w.member("a\"b\n", 1);
    w.end_object();
    CHECK(parse_json(out.str()).contains("a\"b\n"));
  }
  SUBCASE("an embedded NUL is kept") {
    const std::string s("a\0b", 3);
    CHECK(round_trip(s).as_string() == s);
  }
  SUBCASE("invalid UTF-8 is rejected before anything is written") {
    std::ostringstream out;
    JsonWriter w(out);
    w.begin_array();
    const auto before = out.str();
    CHECK_THROWS_AS(w.value(std::string_view("\xff")), std::invalid_argument);
    CHECK_THROWS_AS(w.value(std::string_view("\xc0\x80")), std::invalid_argument);      // overlong NUL
    CHECK_THROWS_AS(w.value(std::string_view("\xed\xa0\x80")), std::invalid_argument);  // surrogate
    CHECK_THROWS_AS(w.value(std::string_view("\xe6\x9d")), std::invalid_argument);      // truncated
    CHECK(out.str() == before);
    w.end_array();
    CHECK(out.str() == "[]");

    JsonWriter keys(out);
    keys.begin_object();
    CHECK_THROWS_AS(keys.key(std::string_view("\xf4\x90\x80\x80")), std::invalid_argument);  // above U+10FFFF
    keys.end_object();
  }
}

TEST_CASE("json writer: doubles read back as the same double") {
  const double values[] = {0.1,
                           1e300,
                           -1e-300,
                           1.0 / 3.0,
                           2.0,
                           123456789.125,
                           5e-324,
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::lowest(),
                           std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::epsilon()};
  for (double x : values) {
    CAPTURE(x);
    CHECK(std::bit_cast<std::uint64_t>(round_trip(x).as_double()) == std::bit_cast<std::uint64_t>(x));
  }
  std::string text;
  CHECK(round_trip(0.1, &text).number_text() == "0.1");
  CHECK(round_trip(1e300).number_text() == "1e+300");

  const JsonValue neg_zero = round_trip(-0.0, &text);
  CHECK(text == R"({"v":-0})");
  CHECK(neg_zero.as_double() == 0.0);
  CHECK(std::signbit(neg_zero.as_double()));
}

TEST_CASE("json writer: 64-bit integers are exact") {
  CHECK(round_trip(std::uint64_t{123456789012345678}).as_uint64() == 123456789012345678ULL);
  CHECK(round_trip(std::numeric_limits<std::uint64_t>::max()).as_uint64() == std::numeric_limits<std::uint64_t>::max());
  CHECK(round_trip(std::numeric_limits<std::int64_t>::min()).as_int64() == std::numeric_limits<std::int64_t>::min());
  CHECK(round_trip(std::numeric_limits<std::int64_t>::max()).as_int64() == std::numeric_limits<std::int64_t>::max());
  // Smaller integer types go to the integer overloads, not to double or bool.
  CHECK(round_trip(short{-3}).number_text() == "-3");
  CHECK(round_trip(42U).number_text() == "42");
  CHECK(round_trip(7LL).number_text() == "7");
  CHECK(round_trip(true).as_bool());
  CHECK(round_trip(nullptr).is_null());
}

TEST_CASE("json writer: non-finite numbers throw naming the key") {
  std::ostringstream out;
  JsonWriter w(out);
  w.begin_object();
  w.key("latency_s");
  try {
    w.value(std::numeric_limits<double>::quiet_NaN());
    FAIL("NaN was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("latency_s") != std::string::npos);
    CHECK(std::string(e.what()).find("NaN") != std::string::npos);
  }
  // The failed call wrote nothing and left the key pending, so the document can be finished.
  w.value(1.5);
  w.key("series");
  w.begin_array();
  w.value(1.0);
  try {
    w.value(-std::numeric_limits<double>::infinity());
    FAIL("-infinity was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("series[1]") != std::string::npos);
  }
  w.end_array();
  w.end_object();
  CHECK(out.str() == R"({"latency_s":1.5,"series":[1]})");
}

TEST_CASE("json writer: misuse throws logic_error") {
  std::ostringstream out;
  SUBCASE("value without key in an object") {
    JsonWriter w(out);
    w.begin_object();
    CHECK_THROWS_AS(w.value(1), std::logic_error);
    CHECK_THROWS_AS(w.begin_array(), std::logic_error);
  }
  SUBCASE("key outside an object") {
    JsonWriter w(out);
    CHECK_THROWS_AS(w.key("a"), std::logic_error);
    w.begin_array();
    CHECK_THROWS_AS(w.key("a"), std::logic_error);
  }
  SUBCASE("two keys in a row") {
    JsonWriter w(out);
    w.begin_object();
    w.key("a");
    CHECK_THROWS_AS(w.key("b"), std::logic_error);
  }
  SUBCASE("end of an object with a key pending") {
    JsonWriter w(out);
    w.begin_object();
    w.key("a");
    CHECK_THROWS_AS(w.end_object(), std::logic_error);
  }
  SUBCASE("unbalanced ends") {
    JsonWriter w(out);
    CHECK_THROWS_AS(w.end_object(), std::logic_error);
    CHECK_THROWS_AS(w.end_array(), std::logic_error);
    w.begin_array();
    CHECK_THROWS_AS(w.end_object(), std::logic_error);
    w.end_array();
    CHECK_THROWS_AS(w.end_array(), std::logic_error);
  }
  SUBCASE("a second top-level value") {
    JsonWriter w(out);
    w.value(1);
    CHECK(w.complete());
    CHECK_THROWS_AS(w.value(2), std::logic_error);
    CHECK_THROWS_AS(w.begin_object(), std::logic_error);
  }
  SUBCASE("a null const char*") {
    JsonWriter w(out);
    const char* none = nullptr;
    CHECK_THROWS_AS(w.value(none), std::invalid_argument);
  }
  SUBCASE("an unfinished document is not complete") {
    JsonWriter w(out);
    CHECK_FALSE(w.complete());
    w.begin_object();
    CHECK_FALSE(w.complete());
  }
}

TEST_CASE("json writer: raw_number accepts JSON numbers only") {
  for (const char* ok : {"0", "-0", "1234.567", "1e5", "-1.5E-3", "0.000"}) {
    CAPTURE(ok);
    std::ostringstream out;
    JsonWriter w(out);
    w.raw_number(ok);
    CHECK(out.str() == ok);
    CHECK(parse_json(out.str()).number_text() == ok);
  }
  for (const char* bad : {"", "-", "01", "1.", ".5", "+1", "1e", "NaN", "inf", "0x10", "1 ", "1,2"}) {
    CAPTURE(bad);
    std::ostringstream out;
    JsonWriter w(out);
    CHECK_THROWS_AS(w.raw_number(bad), std::invalid_argument);
    CHECK(out.str().empty());
  }
}

TEST_CASE("json parser: rejects what is not strict JSON") {
  for (const char* bad : {"", "{", "[1,]", "{\"a\":1,}", "{\"a\":1,\"a\":2}", "[1] x", "01", "'a'", "[NaN]", "\"\x01\"",
                          "\"\\x\"", "\"\\ud800\"", "\"\xff\"", "tru", "{a:1}", "[1 2]"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_json(bad), fathom::test::JsonParseError);
  }
  CHECK(parse_json(" [\"\\u00e9\\ud83d\\ude00\\/\"] ")[0].as_string() == "\xc3\xa9\xf0\x9f\x98\x80/");
}
