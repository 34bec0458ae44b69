// Tar archives read from memory: ustar names with a prefix, pax headers that rename the member
// after them, folders skipped, every header's checksum verified, cut archives refused.
#include "sim/input/tar_archive.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "sim/input/text_file.hpp"

using fathom::sim::InputFileError;
using fathom::sim::read_tar;

namespace {

// One 512-byte ustar header, its checksum computed as tar computes it.
std::string header(const std::string& name, std::size_t size, char type, const std::string& prefix = "") {
  std::string h(512, '\0');
  h.replace(0, name.size(), name);
  char field[13];
  std::snprintf(field, sizeof field, "%011zo", size);
  h.replace(124, 11, field, 11);
  h[156] = type;
  h.replace(257, 6, std::string("ustar\0", 6));
  h.replace(263, 2, "00");
  h.replace(345, prefix.size(), prefix);
  h.replace(148, 8, "        ");
  unsigned sum = 0;
  for (char c : h) sum += static_cast<unsigned char>(c);
  std::snprintf(field, sizeof field, "%06o", sum);
  h.replace(148, 7, field, 7);
  return h;
}

// A member: its header and its bytes padded to whole blocks.
std::string member(const std::string& name, const std::string& data, char type = '0', const std::string& prefix = "") {
  std::string m = header(name, data.size(), type, prefix) + data;
  m.resize((m.size() + 511) / 512 * 512, '\0');
  return m;
}

std::string end() { return std::string(1024, '\0'); }

std::string found_of(const std::string& archive) {
  try {
    (void)read_tar(archive);
  } catch (const InputFileError& e) {
    return e.expected() + " / " + e.found();
  }
  FAIL("no InputFileError");
  return {};
}

}  // namespace

TEST_CASE("tar: regular files by name, in archive order") {
  const std::string pax = "28 mtime=1671690717.0517426\n";
  const std::string rename = "24 path=a/long/name.csv\n";
  const std::string archive = member("././@PaxHeader", pax, 'x') + member("b.csv", "1,2\n") + member("dir/", "", '5') +
                              member("c.csv", std::string(600, 'z'), '0', "sub") +
                              member("././@PaxHeader", rename, 'x') + member("short.csv", "x") + member("empty", "") +
                              end();
  const auto members = read_tar(archive);
  REQUIRE(members.size() == 4);
  CHECK(members[0].name == "b.csv");
  CHECK(members[0].data == "1,2\n");
  CHECK(members[1].name == "sub/c.csv");
  CHECK(members[1].data == std::string(600, 'z'));
  CHECK(members[2].name == "a/long/name.csv");
  CHECK(members[2].data == "x");
  CHECK(members[3].name == "empty");
  CHECK(members[3].data.empty());
  // No end blocks at all is read to the last member too.
  CHECK(read_tar(member("b.csv", "1,2\n")).size() == 1);
}

TEST_CASE("tar: what is not an archive, or is cut, is said") {
  CHECK(found_of("") == "a tar archive / no tar header");
  CHECK(found_of(std::string(700, 'x')) ==
        "a tar header with a valid checksum / a header at byte 0 whose checksum does not match");
  std::string bad = member("b.csv", "1,2\n") + end();
  bad[3] = 'X';  // the name changed, the checksum not
  CHECK(found_of(bad) == "a tar header with a valid checksum / a header at byte 0 whose checksum does not match");
  const std::string whole = member("c.csv", std::string(600, 'z'));
  CHECK(found_of(whole.substr(0, 800)) == "a tar archive / a member cut short");
  CHECK(found_of(member("b.csv", "1") + std::string(100, 'x')) == "a tar archive / an archive cut short");
}
