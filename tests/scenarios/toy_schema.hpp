// A small schema in the shape of a cluster section, read with the strict YAML reader, shared
// by the reader's, the overrides' and the fuzz tests. Not the real cluster loader.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario::test {

struct ToyTier {
  double link_bytes_per_s = 0;
  sim::SimTime latency;
};

struct Toy {
  int nodes = 0;
  int gpus = 0;
  double nvlink_bytes_per_s = 0;
  std::int64_t hbm_bytes = 0;
  bool nvls = false;
  std::string kind;
  int hosts_per_leaf = 0;
  int leaves = 0;
  std::vector<ToyTier> tiers;
  double price_usd_per_hour = 0;
  double mfu = 0;
};

// Line numbers matter: the tests point at them.
inline const char* const kPilot = R"(# pilot cluster
cluster:
  nodes: 4
  node:
    gpus: 8
    nvlink: 900GB/s
    hbm: 80GiB
    nvls: true
  fabric:
    kind: rail-optimized
    hosts_per_leaf: 32
    tiers:
      - bandwidth: 400Gbps
        latency: 1us
      - {bandwidth: 800Gbps, latency: 2.5us}
  price: $2.50/h
expect:
  mfu: 40%
)";

inline Toy read_toy(const Document& doc) {
  Toy t;
  MapReader root = doc.root();
  MapReader cluster = root.child("cluster");
  cluster.declare({"nodes", "node", "fabric", "price"});
  t.nodes = cluster.positive_int("nodes");
  {
    MapReader node = cluster.optional_child("node");
    t.gpus = node.positive_int("gpus", 8);
    t.nvlink_bytes_per_s = node.bandwidth("nvlink", 450e9);
    t.hbm_bytes = node.bytes("hbm", std::int64_t{80} << 30);
    t.nvls = node.optional<bool>("nvls", false);
    node.finish();
  }
  {
    MapReader fabric = cluster.child("fabric");
    t.kind = fabric.one_of("kind", {"fat-tree", "rail-optimized"}, "fat-tree");
    t.hosts_per_leaf = fabric.positive_int("hosts_per_leaf");
    fabric.forbid("cores", "only with tiers: 3");
    ListReader tiers = fabric.list("tiers");
    // "leaves" applies only when no tiers are listed.
    if (tiers.empty()) {
      t.leaves = fabric.non_negative_int("leaves", 0);
    } else {
      fabric.declare({"leaves"});
    }
    for (std::size_t i = 0; i < tiers.size(); ++i) {
      MapReader tier = tiers.at(i).map();
      t.tiers.push_back(ToyTier{tier.bandwidth("bandwidth"), tier.duration("latency")});
      tier.finish();
    }
    fabric.finish();
  }
  t.price_usd_per_hour = cluster.usd_per_hour("price", 0.0);
  cluster.finish();
  MapReader expect = root.optional_child("expect");
  t.mfu = expect.fraction("mfu", 0.0);
  expect.finish();
  root.finish();
  return t;
}

// `text` with the first `from` replaced by `to`; the test fails if `from` is absent.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  REQUIRE_MESSAGE(pos != std::string::npos, "\"" << from << "\" is not in the document");
  text.replace(pos, from.size(), to);
  return text;
}

}  // namespace fathom::scenario::test
