#include "scenarios/collectives_reader.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "models/collectives/nccl_tests.hpp"

namespace fathom::scenario {

namespace {
// NCCL allows at most 128 queue pairs per connection (NCCL_IB_QPS_PER_CONNECTION), and fathom runs
// two channels through a NIC pair.
constexpr int kMaxFlowsPerConnection = 256;
}  // namespace

void read_collectives_section(MapReader& c, coll::CollectiveParams& p,
                              const std::function<void(const ValueReader&)>& note) {
  const auto noted = [&](const ValueReader& v) {
    if (note) note(v);
  };
  for (auto key : {"alpha", "launch", "step", "nvls_step", "slice", "nvls_chunk", "nvls_channels", "max_slices",
                   "ll_alpha", "ll128_alpha", "ll_max", "ll128_max", "tree_ll_max", "tree_ll128_max", "nvls_min",
                   "tree_max", "flows_per_connection"}) {
    if (auto v = c.find(key)) noted(*v);
  }
  p.alpha_ns = c.duration("alpha", sim::SimTime::from_ns(p.alpha_ns)).ns();
  p.launch_ns = c.duration("launch", sim::SimTime::from_ns(p.launch_ns)).ns();
  p.step_ns = c.duration("step", sim::SimTime::from_ns(p.step_ns)).ns();
  p.nvls_step_ns = c.duration("nvls_step", sim::SimTime::from_ns(p.nvls_step_ns)).ns();
  p.slice_bytes = static_cast<double>(c.bytes("slice", static_cast<std::int64_t>(p.slice_bytes)));
  p.nvls_chunk_bytes =
      static_cast<double>(c.bytes("nvls_chunk", static_cast<std::int64_t>(p.nvls_chunk_bytes), Sign::kPositive));
  p.nvls_channels = c.positive_int("nvls_channels", p.nvls_channels);
  p.max_slices = c.positive_int("max_slices", p.max_slices);
  p.flows_per_connection = c.positive_int("flows_per_connection", p.flows_per_connection);
  if (p.flows_per_connection > kMaxFlowsPerConnection) {
    c.find("flows_per_connection")
        ->fail("at most " + std::to_string(kMaxFlowsPerConnection) +
               " flows per connection (NCCL's channels through a NIC pair times NCCL_IB_QPS_PER_CONNECTION)");
  }
  // Protocols: NCCL's choice by size, their step latencies and wire efficiencies, or NCCL_PROTO.
  p.ll.alpha_ns = c.duration("ll_alpha", sim::SimTime::from_ns(p.ll.alpha_ns)).ns();
  p.ll128.alpha_ns = c.duration("ll128_alpha", sim::SimTime::from_ns(p.ll128.alpha_ns)).ns();
  p.ll_max_bytes = static_cast<double>(c.bytes("ll_max", static_cast<std::int64_t>(p.ll_max_bytes)));
  p.ll128_max_bytes = static_cast<double>(c.bytes("ll128_max", static_cast<std::int64_t>(p.ll128_max_bytes)));
  // The tree's bounds follow the ring's unless given: a section that sets only ll_max means it
  // for every algorithm. A section without either keeps what came before (catalog or profile).
  const auto tree_bound = [&](const char* key, const char* ring_key, double& tree, double ring) {
    const bool ring_given = c.find(ring_key).has_value();
    tree = static_cast<double>(c.bytes(key, static_cast<std::int64_t>(ring_given && !c.find(key) ? ring : tree)));
  };
  tree_bound("tree_ll_max", "ll_max", p.tree_ll_max_bytes, p.ll_max_bytes);
  tree_bound("tree_ll128_max", "ll128_max", p.tree_ll128_max_bytes, p.ll128_max_bytes);
  p.nvls_min_bytes = static_cast<double>(c.bytes("nvls_min", static_cast<std::int64_t>(p.nvls_min_bytes)));
  p.tree_max_bytes = static_cast<double>(c.bytes("tree_max", static_cast<std::int64_t>(p.tree_max_bytes)));
  for (auto [key, cost] : {std::pair{"ll_bandwidth", &p.ll}, std::pair{"ll128_bandwidth", &p.ll128}}) {
    if (auto v = c.find(key)) {
      noted(*v);
      cost->bandwidth_fraction = v->fraction();
      if (!(cost->bandwidth_fraction > 0)) v->fail("a fraction above 0 (the protocol's data per byte on the wire)");
    }
  }
  if (auto v = c.find("protocol")) {
    noted(*v);
    const std::string name = v->one_of({"auto", "Simple", "LL128", "LL"});
    p.protocol = name == "auto" ? std::nullopt : coll::parse_nccl_proto(name);
  }
  if (auto v = c.find("nvls_adaptive_chunk")) {
    noted(*v);
    p.nvls_adaptive_chunk = v->as<bool>("true or false (whether NCCL shrinks the NVLS chunk of mid-size messages)");
  }
  MapReader e = c.optional_child("efficiency");
  e.declare({"ring", "tree", "nvls", "nic"});
  auto fraction = [&](std::string_view key, double& out) {
    if (auto v = e.find(key)) {
      noted(*v);
      out = v->fraction();
      if (!(out > 0)) v->fail("a fraction above 0 (the share of link rate the algorithm reaches)");
    }
  };
  fraction("ring", p.efficiency.ring);
  fraction("tree", p.efficiency.tree);
  fraction("nvls", p.efficiency.nvls);
  fraction("nic", p.efficiency.nic);
  e.finish();
  c.finish();
}

}  // namespace fathom::scenario
