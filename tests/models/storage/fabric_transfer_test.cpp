// A tier on the compute fabric against closed forms: with every flow spread evenly (adaptive
// routing), a transfer through an oversubscribed leaf takes its leaf's bytes over the leaf's
// uplinks; through a non-blocking fabric it takes what the storage-network model (its NICs and
// the tier's aggregate, max-min) says; writers spread over the job's leaves; a client that
// writes its own copies sends them all over the fabric; a restore crosses the spines' downlinks.
#include "models/storage/fabric_transfer.hpp"

#include <doctest/doctest.h>

#include <string>

#include "models/reliability/run_setup.hpp"
#include "topologies/routing.hpp"

using namespace fathom;
using storage::FabricClients;

namespace {

// 16 nodes of one 50 GB/s NIC, 4 to a leaf, 2 spines with `cables` of 25 GB/s from each leaf.
topo::ClusterSpec cluster_16(int cables) {
  topo::ClusterSpec c;
  c.nodes = 16;
  c.node.gpus = 8;
  c.node.nics = 1;
  c.node.nic_bytes_per_s = 50e9;
  c.fabric.tiers = 2;
  c.fabric.hosts_per_leaf = 4;
  c.fabric.spines = 2;
  c.fabric.links_per_leaf_spine = cables;
  c.fabric.routing = topo::Routing::kAdaptive;
  c.fabric.tier = {{50e9, 1000}, {25e9, 1000}};
  return c;
}

// 4 servers of 100 GB/s each way (their drives match their NICs); clients write the copies.
storage::TierSpec servers_4(int replicas = 1) {
  storage::TierSpec t;
  t.name = "fs";
  t.kind = storage::TierKind::kParallelFs;
  t.servers = 4;
  t.drives_per_server = 10;
  t.drive_read_bytes_per_s = 10e9;
  t.drive_write_bytes_per_s = 10e9;
  t.network_bytes_per_s = 100e9;
  t.fanout = storage::Fanout::kClient;
  t.replicas = replicas;
  t.attach = storage::Attachment::kFabric;
  storage::derive_from_servers(t);
  return t;
}

constexpr double kSlack = 1e-4;  // the links' microseconds of latency

}  // namespace

TEST_CASE("a checkpoint through an oversubscribed leaf takes the leaf's bytes over its uplinks") {
  // 4:1 leaves: 200 GB/s of NICs under 50 GB/s of uplinks. 16 nodes write 10 GB each: each leaf's
  // 40 GB cross 50 GB/s in 0.8 s, where the tier (400 GB/s) alone would take 0.4 s.
  const auto t = storage::fabric_transfer(cluster_16(1), servers_4(), 16, {{16, 10e9}}, true, 1);
  CHECK(t.seconds == doctest::Approx(0.8).epsilon(kSlack));
  CHECK(t.bytes == doctest::Approx(160e9));
  CHECK(t.clients == 16);
  storage::TierSpec network = servers_4();
  network.attach = storage::Attachment::kStorageNetwork;
  const std::vector<train::CheckpointSize::StageRead> groups = {{16, 10e9}};
  CHECK(rel::tier_transfer_s(network, cluster_16(1), 16, groups, true, 1) == doctest::Approx(0.4));
  CHECK(rel::tier_transfer_s(servers_4(), cluster_16(1), 16, groups, true, 1) == doctest::Approx(0.8).epsilon(kSlack));
}

TEST_CASE("through a non-blocking fabric the transfer is what the storage network's max-min gives") {
  // 2 spines x 2 cables x 25 GB/s = 100 GB/s a leaf... 4 cables: 200 GB/s, the leaf's NICs.
  const topo::ClusterSpec c = cluster_16(4);
  storage::TierSpec network = servers_4();
  network.attach = storage::Attachment::kStorageNetwork;
  for (double bytes : {1e9, 10e9}) {
    const std::vector<train::CheckpointSize::StageRead> groups = {{16, bytes}};
    const double star = rel::tier_transfer_s(network, c, 16, groups, true, 1);
    CHECK(star == doctest::Approx(16 * bytes / 400e9));
    CHECK(rel::tier_transfer_s(servers_4(), c, 16, groups, true, 1) == doctest::Approx(star).epsilon(kSlack));
  }
  // NIC-bound: 2 writers of 10 GB at 50 GB/s each.
  CHECK(storage::fabric_transfer(c, servers_4(), 16, {{2, 10e9}}, true, 1).seconds ==
        doctest::Approx(0.2).epsilon(kSlack));
}

TEST_CASE("writers spread over the job's nodes: one a leaf crosses no shared uplink") {
  // 4 writers on 16 nodes are nodes 0, 4, 8 and 12, one under each leaf: 10 GB over a 50 GB/s NIC
  // (the leaf's uplinks carry 50 GB/s too). All four under one leaf would take 40 GB / 50 GB/s.
  CHECK(storage::fabric_transfer(cluster_16(1), servers_4(), 16, {{4, 10e9}}, true, 1).seconds ==
        doctest::Approx(0.2).epsilon(kSlack));
  CHECK(storage::fabric_transfer(cluster_16(1), servers_4(), 4, {{4, 10e9}}, true, 1).seconds ==
        doctest::Approx(0.8).epsilon(kSlack));
}

TEST_CASE("a client writing its own copies sends them all over the fabric; a restore crosses the downlinks") {
  // Replica 3 written by the clients: 3 x 160 GB through 200 GB/s of leaf uplinks.
  CHECK(storage::fabric_transfer(cluster_16(1), servers_4(3), 16, {{16, 10e9}}, true, 1).seconds ==
        doctest::Approx(2.4).epsilon(kSlack));
  // Reading back one copy: 40 GB a leaf down 50 GB/s of spine-to-leaf cables.
  CHECK(storage::fabric_transfer(cluster_16(1), servers_4(3), 16, {{16, 10e9}}, false, 1).seconds ==
        doctest::Approx(0.8).epsilon(kSlack));
}

TEST_CASE("the servers hang off storage leaves that are not oversubscribed") {
  const topo::Topology t = storage::attach_to_fabric(cluster_16(1), servers_4());
  const topo::VertexId leaf = t.at("fs.leaf0");
  double down = 0, up = 0;
  for (const topo::Link& l : t.links()) {
    if (l.from != leaf) continue;
    (t.vertex(l.to).kind == topo::VertexKind::kStorage ? down : up) += l.bytes_per_s;
  }
  CHECK(down == doctest::Approx(400e9));
  CHECK(up >= down);
  CHECK_FALSE(t.find("fs.leaf1").has_value());  // 4 servers fill one leaf of 4 ports
  CHECK(t.at("fs.server3") > t.at("fs.leaf0"));
}

TEST_CASE("3 tiers: the storage leaves hang off the cores") {
  topo::ClusterSpec c = cluster_16(1);
  c.fabric = {};
  c.fabric.tiers = 3;
  c.fabric.radix = 4;
  c.fabric.routing = topo::Routing::kAdaptive;
  c.fabric.tier = {{50e9, 1000}, {50e9, 1000}, {50e9, 1000}};
  const topo::Topology t = storage::attach_to_fabric(c, servers_4());
  topo::Router router(t);
  CHECK(router.hop_count(t.at("n0.nic0"), t.at("fs.server0")) == 5u);  // nic, leaf, spine, core, storage leaf
  // Non-blocking: the tier (400 GB/s) bounds 16 x 10 GB.
  CHECK(storage::fabric_transfer(c, servers_4(), 16, {{16, 10e9}}, true, 1).seconds ==
        doctest::Approx(0.4).epsilon(kSlack));
}

TEST_CASE("only a tier built from its servers, on a cluster with a fabric, goes on the fabric") {
  storage::TierSpec aggregate;
  aggregate.name = "agg";
  aggregate.read_bytes_per_s = aggregate.write_bytes_per_s = 1e9;
  CHECK_THROWS_WITH_AS(storage::attach_to_fabric(cluster_16(1), aggregate), doctest::Contains("storage.agg.attach"),
                       std::invalid_argument);
  topo::ClusterSpec no_fabric = cluster_16(1);
  no_fabric.node.nics = 0;
  CHECK_THROWS_AS(storage::attach_to_fabric(no_fabric, servers_4()), std::invalid_argument);
  CHECK_THROWS_AS(storage::fabric_transfer(cluster_16(1), servers_4(), 4, {{8, 1e9}}, true, 1), std::invalid_argument);
}

TEST_CASE("ECMP hashing: the same seed gives the same transfer, and collisions only slow it") {
  topo::ClusterSpec c = cluster_16(4);
  c.fabric.routing = topo::Routing::kEcmpHash;
  const double a = storage::fabric_transfer(c, servers_4(), 16, {{16, 10e9}}, true, 7).seconds;
  CHECK(a == storage::fabric_transfer(c, servers_4(), 16, {{16, 10e9}}, true, 7).seconds);
  CHECK(a >= 0.4);
}

TEST_CASE("what a transfer takes of the fabric's links, and what it leaves a training job") {
  // The 4:1 checkpoint: each NIC moves 10 GB in 0.8 s (12.5 of 50 GB/s); each leaf's 40 GB leave
  // over 2 uplinks of 25 GB/s in 0.8 s, filling them.
  const auto t = storage::fabric_transfer(cluster_16(1), servers_4(), 16, {{16, 10e9}}, true, 1);
  CHECK(t.link_load[0] == doctest::Approx(0.25).epsilon(kSlack));
  CHECK(t.link_load[1] == doctest::Approx(1.0).epsilon(kSlack));
  CHECK(t.link_load[2] == 0);
  // The job keeps what the transfer leaves, and at least half a link where the transfer wants it all.
  const topo::ClusterSpec shared = storage::sharing_links(cluster_16(1), t.link_load);
  CHECK(shared.node.nic_bytes_per_s == doctest::Approx(50e9 * 0.75).epsilon(kSlack));
  CHECK(shared.fabric.tier[0].link_bytes_per_s == doctest::Approx(50e9 * 0.75).epsilon(kSlack));
  CHECK(shared.fabric.tier[1].link_bytes_per_s == doctest::Approx(25e9 * 0.5));
  CHECK(shared.node.nvlink_bytes_per_s == cluster_16(1).node.nvlink_bytes_per_s);
  CHECK(storage::sharing_links(cluster_16(1), {}) == cluster_16(1));
}
