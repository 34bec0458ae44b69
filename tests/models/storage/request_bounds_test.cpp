// A transfer's requests against closed forms: an object store's client moves at most its parts
// in flight per request latency (Little's law), a file at most what the servers it is striped over
// move, and a file system's metadata service creates or opens the transfer's files at its rate;
// each bounds a checkpoint's write when it is the slower.
#include <doctest/doctest.h>

#include <cmath>

#include "models/reliability/run_setup.hpp"

using namespace fathom;

namespace {

// 16 nodes of one 50 GB/s NIC.
topo::ClusterSpec cluster_16() {
  topo::ClusterSpec c;
  c.nodes = 16;
  c.node.nics = 1;
  c.node.nic_bytes_per_s = 50e9;
  c.fabric.hosts_per_leaf = 16;
  c.fabric.spines = 2;
  c.fabric.tier = {{50e9, 1000}, {50e9, 1000}};
  return c;
}

storage::TierSpec tier(storage::TierKind kind, double latency_s) {
  storage::TierSpec t;
  t.name = "t";
  t.kind = kind;
  t.read_bytes_per_s = t.write_bytes_per_s = 400e9;
  t.latency_ns = static_cast<std::int64_t>(std::llround(latency_s * 1e9));
  return t;
}

const std::vector<train::CheckpointSize::StageRead> kSixteenWriters = {{16, 10e9}};

}  // namespace

TEST_CASE("an object store's writer moves its parts in flight per request latency") {
  const storage::TierSpec s3 = tier(storage::TierKind::kObjectStore, 0.02);
  // 10 parts of 8 MiB in flight, each waiting 20 ms: 4.19 GB/s a writer.
  const double per_writer = 10 * 8.0 * 1024 * 1024 / 0.02;
  CHECK(s3.request_bound_bytes_per_s() == doctest::Approx(per_writer));
  CHECK(std::isinf(tier(storage::TierKind::kParallelFs, 0.02).request_bound_bytes_per_s()));
  CHECK(std::isinf(tier(storage::TierKind::kObjectStore, 0).request_bound_bytes_per_s()));
  // One writer a node: 10 GB at 4.19 GB/s, under the NIC (50) and the tier's share (25).
  CHECK(rel::tier_transfer_s(s3, cluster_16(), 16, kSixteenWriters, true, 1, {1, 0}) ==
        doctest::Approx(0.02 + 10e9 / per_writer));
  // Eight writers a node reach the tier's share: 16 x 10 GB over 400 GB/s.
  CHECK(rel::tier_transfer_s(s3, cluster_16(), 16, kSixteenWriters, true, 1, {8, 0}) == doctest::Approx(0.02 + 0.4));
  // Bigger parts lift the bound.
  storage::TierSpec big = s3;
  big.part_bytes = 64.0 * 1024 * 1024;
  CHECK(rel::tier_transfer_s(big, cluster_16(), 16, kSixteenWriters, true, 1, {1, 0}) == doctest::Approx(0.02 + 0.4));
}

TEST_CASE("a file system's metadata service creates the checkpoint's files meanwhile; the slower bounds it") {
  storage::TierSpec fs = tier(storage::TierKind::kParallelFs, 0.001);
  fs.metadata_ops = 1000;
  CHECK(fs.metadata_s(16000) == doctest::Approx(16));
  // 16,000 files at 1,000 creates a second: 16 s, against 0.4 s of bytes.
  CHECK(rel::tier_transfer_s(fs, cluster_16(), 16, kSixteenWriters, true, 1, {8, 16000}) ==
        doctest::Approx(0.001 + 16));
  // 100 files: 0.1 s, the bytes' 0.4 s bound it.
  CHECK(rel::tier_transfer_s(fs, cluster_16(), 16, kSixteenWriters, true, 1, {8, 100}) == doctest::Approx(0.001 + 0.4));
  fs.metadata_ops = 0;
  CHECK(rel::tier_transfer_s(fs, cluster_16(), 16, kSixteenWriters, true, 1, {8, 16000}) ==
        doctest::Approx(0.001 + 0.4));
}

TEST_CASE("a file striped over a few servers moves at their rate") {
  // 16 servers of 25 GB/s each way, two nodes writing a 10 GB file each. Spread over every server,
  // a node's 50 GB/s NIC bounds it (0.2 s); striped over one server, that server's 25 GB/s does (0.4 s).
  storage::TierSpec fs = tier(storage::TierKind::kParallelFs, 0);
  fs.servers = 16;
  fs.drives_per_server = 1;
  fs.drive_read_bytes_per_s = fs.drive_write_bytes_per_s = 100e9;
  fs.network_bytes_per_s = 25e9;
  fs.fanout = storage::Fanout::kClient;
  storage::derive_from_servers(fs);
  const std::vector<train::CheckpointSize::StageRead> two = {{2, 10e9}};
  CHECK(rel::tier_transfer_s(fs, cluster_16(), 16, two, true, 1, {1, 0}) == doctest::Approx(0.2));
  fs.stripe_count = 1;
  CHECK(fs.file_bound_bytes_per_s(true) == doctest::Approx(25e9));
  CHECK(rel::tier_transfer_s(fs, cluster_16(), 16, two, true, 1, {1, 0}) == doctest::Approx(0.4));
  CHECK(rel::tier_transfer_s(fs, cluster_16(), 16, two, false, 1, {1, 0}) == doctest::Approx(0.4));
  // Two files a node, or two servers a file: the NIC bounds it again.
  CHECK(rel::tier_transfer_s(fs, cluster_16(), 16, two, true, 1, {2, 0}) == doctest::Approx(0.2));
  fs.stripe_count = 2;
  CHECK(rel::tier_transfer_s(fs, cluster_16(), 16, two, true, 1, {1, 0}) == doctest::Approx(0.2));
  // Every server, or a tier given in aggregate: no bound of its own.
  fs.stripe_count = 16;
  CHECK(std::isinf(fs.file_bound_bytes_per_s(true)));
  CHECK(std::isinf(tier(storage::TierKind::kParallelFs, 0).file_bound_bytes_per_s(true)));
}
