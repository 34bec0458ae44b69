// Storage tiers built from their servers against published throughput of the real systems
// (data/validation/object-store-throughput.csv and parallel-fs-throughput.csv,
// docs/validation.md#object-stores-minio-on-32-servers). A row marked
// `within` must come within its tolerance; a row marked `gap` is a published figure the model,
// given what its source says, does not reach: it must stay outside, so that a model change that
// closes the gap updates the table and the explanation beside it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/storage/storage_tier.hpp"
#include "tests/support/csv_cells.hpp"

using namespace fathom;

namespace {

// Every row of one of fathom's tables of published storage throughput; returns rows and `within` ones.
std::pair<int, int> check_table(const std::string& name, storage::TierKind kind) {
  std::ifstream file(std::string(FATHOM_SOURCE_DIR) + "/data/validation/" + name);
  REQUIRE(file.good());
  std::string line;
  std::getline(file, line);
  const std::vector<std::string> header = test::first_cells(line, 16);
  REQUIRE(header.size() == 16);
  REQUIRE(header[15] == "expected");
  int rows = 0, within = 0;
  while (std::getline(file, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> c = test::first_cells(line, 16);
    REQUIRE(c.size() == 16);
    storage::TierSpec t;
    t.kind = kind;
    t.servers = std::stoi(c[2]);
    t.drives_per_server = std::stoi(c[3]);
    t.drive_read_bytes_per_s = std::stod(c[4]) * 1e9 / t.drives_per_server;
    t.drive_write_bytes_per_s = std::stod(c[5]) * 1e9 / t.drives_per_server;
    t.network_bytes_per_s = std::stod(c[6]) * 1e9;
    REQUIRE(c[7] == "shared");
    t.fanout = c[8] == "client" ? storage::Fanout::kClient : storage::Fanout::kServer;
    t.data_shards = std::stoi(c[9]);
    t.parity_shards = std::stoi(c[10]);
    storage::derive_from_servers(t);
    const bool read = c[11] == "read";
    const double model = read ? t.read_bytes_per_s : t.client_write_bytes_per_s();
    const double published = std::stod(c[13]) * 1e9;
    const double error = model / published - 1;
    const double tolerance = std::stod(c[14]);
    std::printf("%-22s %-5s published %7.1f GB/s  model %7.1f GB/s  %+6.1f%%  (%s, tolerance %.0f%%)\n", c[0].c_str(),
                c[11].c_str(), published / 1e9, model / 1e9, 100 * error, c[15].c_str(), 100 * tolerance);
    INFO(c[0]);
    if (c[15] == "within") {
      CHECK(std::abs(error) <= tolerance);
      ++within;
    } else {
      REQUIRE(c[15] == "gap");
      CHECK(std::abs(error) > tolerance);
    }
    ++rows;
  }
  return {rows, within};
}

}  // namespace

TEST_CASE("object stores built from their servers reproduce the published throughput, or the gap is listed") {
  const auto [rows, within] = check_table("object-store-throughput.csv", storage::TierKind::kObjectStore);
  CHECK(rows == 4);
  CHECK(within == 2);
}

TEST_CASE("a parallel file system built from its servers reproduces the published throughput") {
  const auto [rows, within] = check_table("parallel-fs-throughput.csv", storage::TierKind::kParallelFs);
  CHECK(rows == 2);
  CHECK(within == 2);
}

TEST_CASE("a tier built from servers: the closed forms of its network and drive bounds") {
  storage::TierSpec t;
  t.kind = storage::TierKind::kObjectStore;
  t.servers = 4;
  t.drives_per_server = 10;
  t.drive_read_bytes_per_s = 2e9;
  t.drive_write_bytes_per_s = 1e9;
  t.network_bytes_per_s = 10e9;
  t.data_shards = 2;
  t.parity_shards = 2;  // a = 2; f = 3/4
  storage::ServerBounds b = storage::server_bounds(t);
  CHECK(b.read_bytes_per_s == doctest::Approx(10e9 / 1.75));
  CHECK(b.write_bytes_per_s == doctest::Approx(10e9 / 2.5));
  CHECK(std::string(b.write_limit) == "network");
  t.backend_network_bytes_per_s = 10e9;  // a separate backend: the client network, then the drives (10 GB/s / 2)
  b = storage::server_bounds(t);
  CHECK(b.read_bytes_per_s == doctest::Approx(10e9));
  CHECK(b.write_bytes_per_s == doctest::Approx(5e9));
  CHECK(std::string(b.write_limit) == "drives");
  t.backend_network_bytes_per_s = 0;
  t.fanout = storage::Fanout::kClient;  // the clients write both copies: the servers forward nothing
  b = storage::server_bounds(t);
  CHECK(b.read_bytes_per_s == doctest::Approx(10e9));
  CHECK(b.write_bytes_per_s == doctest::Approx(5e9));
  CHECK(t.client_write_traffic() == 2);
  t.drive_iops = 500e3;
  storage::derive_from_servers(t);
  CHECK(t.read_bytes_per_s == doctest::Approx(40e9));
  CHECK(t.write_bytes_per_s == doctest::Approx(40e9));  // raw: 20 GB/s of clients' bytes, twice
  CHECK(t.iops == doctest::Approx(4 * 10 * 500e3 / 2));
}
