// Reading input files whole: gzip members decompressed and joined, line endings made uniform,
// and every way gzip data can be wrong reported as an InputFileError, never a crash.
#include "sim/input/text_file.hpp"

#include <doctest/doctest.h>
#include <zlib.h>

#include <fstream>
#include <string>

#include "tests/sim/scratch_dir.hpp"

using fathom::sim::gunzip;
using fathom::sim::InputFileError;

namespace {

// `text` as one gzip member, written with zlib itself.
std::string gzip(const std::string& text) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

std::string found_of(const std::string& data, std::uint64_t max_bytes = 1 << 20) {
  try {
    (void)gunzip(data, max_bytes);
  } catch (const InputFileError& e) {
    CHECK(e.expected() == "gzip data");
    return e.found();
  }
  FAIL("no InputFileError");
  return {};
}

}  // namespace

TEST_CASE("gunzip: one member, two members joined, and a large text") {
  CHECK(gunzip(gzip("hello\n"), 100) == "hello\n");
  CHECK(gunzip(gzip("one\n") + gzip("two\n"), 100) == "one\ntwo\n");
  CHECK(gunzip(gzip(""), 100).empty());
  std::string big;
  for (int i = 0; i < 200000; ++i) big += std::to_string(i) + " ";
  CHECK(gunzip(gzip(big), big.size()) == big);
  // Zero padding after the last member (as tape archives leave) is not data.
  CHECK(gunzip(gzip("x") + std::string(512, '\0'), 100) == "x");
}

TEST_CASE("gunzip: what is wrong with the data is said, not crashed on") {
  const std::string good = gzip("some text that compresses, some text that compresses\n");
  CHECK(found_of("plain text") == "no gzip header");
  CHECK(found_of(good.substr(0, good.size() - 9)) == "a truncated stream");
  std::string flipped = good;
  flipped[12] = static_cast<char>(flipped[12] ^ 0x55);
  CHECK(found_of(flipped).rfind("corrupt data", 0) == 0);
  CHECK(found_of(good + "trailing") == "bytes after the gzip data");
  CHECK(found_of(good, 10) == "more than 10 bytes once decompressed");
}

TEST_CASE("read_text_file_or_gzip: a gzip file and a plain one read alike, CRLF made LF") {
  const fathom::test::ScratchDir dir;
  const auto plain = dir.path() / "log.txt";
  const auto packed = dir.path() / "log.txt.gz";
  std::ofstream(plain, std::ios::binary) << "a\r\nb\rc\n";
  std::ofstream(packed, std::ios::binary) << gzip("a\r\nb\rc\n");
  CHECK(fathom::sim::read_text_file_or_gzip(plain, 1000) == "a\nb\nc\n");
  CHECK(fathom::sim::read_text_file_or_gzip(packed, 1000) == "a\nb\nc\n");
  // read_text_file leaves gzip bytes alone.
  CHECK(fathom::sim::read_text_file(packed, 1000).rfind("\x1f\x8b", 0) == 0);
}
