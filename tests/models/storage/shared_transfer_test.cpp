// Many clients through one tier: the max-min closed forms.
#include "models/storage/shared_transfer.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <stdexcept>

#include "models/storage/storage_tier.hpp"

using namespace fathom::storage;

TEST_CASE("N alike writers through a tier of bandwidth B take bytes / min(cap, B / N)") {
  // 2,048 nodes of 400 GB/s NICs writing 2.8 GB each into 2 TB/s: the tier holds them at
  // 2e12 / 2048 = 976.6 MB/s each.
  const SharedTransfer t = shared_transfer({{2048, 2.8e9, 400e9}}, 2e12);
  CHECK(t.seconds == doctest::Approx(2.8e9 / (2e12 / 2048)).epsilon(1e-12));
  // Few writers: each is held by its own link, not the tier.
  CHECK(shared_transfer({{4, 1e9, 50e9}}, 2e12).seconds == doctest::Approx(1e9 / 50e9).epsilon(1e-12));
  // A node's own drive shares nothing.
  CHECK(shared_transfer({{1000, 1e9, 5e9}}, std::numeric_limits<double>::infinity()).seconds ==
        doctest::Approx(0.2).epsilon(1e-12));
}

TEST_CASE("unequal writers: the small ones finish and leave their share to the rest") {
  // 10 flows of 1 GB and 10 of 3 GB, caps 100 GB/s, tier 20 GB/s: all at 1 GB/s until the small
  // ones end at 1 s, then the large ones at 2 GB/s for their last 2 GB: 2 s in all.
  const SharedTransfer t = shared_transfer({{10, 1e9, 100e9}, {10, 3e9, 100e9}}, 20e9);
  CHECK(t.group_seconds[0] == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(t.group_seconds[1] == doctest::Approx(2.0).epsilon(1e-12));
  CHECK(t.seconds == doctest::Approx(2.0).epsilon(1e-12));
  // Capped flows keep their cap and the others share what is left: 4 flows capped at 1 GB/s and
  // 4 free ones on 12 GB/s: the free ones get (12 - 4) / 4 = 2 GB/s.
  const SharedTransfer capped = shared_transfer({{4, 1e9, 1e9}, {4, 2e9, 100e9}}, 12e9);
  CHECK(capped.group_seconds[0] == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(capped.group_seconds[1] == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("the transfer never beats the tier nor the links, and bad input is refused") {
  const SharedTransfer t = shared_transfer({{7, 3e9, 9e9}, {5, 1e9, 2e9}, {3, 8e9, 40e9}}, 30e9);
  const double bytes = 7 * 3e9 + 5 * 1e9 + 3 * 8e9;
  CHECK(t.seconds >= bytes / 30e9 * (1 - 1e-12));
  CHECK(t.group_seconds[1] >= 1e9 / 2e9 * (1 - 1e-12));
  CHECK_THROWS_AS(shared_transfer({{1, 1e9, 0}}, 1e9), std::invalid_argument);
  CHECK_THROWS_AS(shared_transfer({{1, -1, 1e9}}, 1e9), std::invalid_argument);
  CHECK_THROWS_AS(shared_transfer({{1, 1e9, 1e9}}, 0), std::invalid_argument);
}

TEST_CASE("redundancy costs writes: replicas, and (data + parity) / data with erasure coding") {
  TierSpec t;
  t.write_bytes_per_s = 12e9;
  t.replicas = 3;  // a GlusterFS replica-3 volume
  CHECK(t.client_write_bytes_per_s() == doctest::Approx(4e9));
  t.replicas = 1;
  t.data_shards = 12;  // MinIO's default for 16 drives: EC:4
  t.parity_shards = 4;
  CHECK(t.write_amplification() == doctest::Approx(16.0 / 12.0));
  CHECK(t.client_write_bytes_per_s() == doctest::Approx(9e9));
}
