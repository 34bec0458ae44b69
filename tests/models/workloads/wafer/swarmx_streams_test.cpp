// The SwarmX tree's streams on the flow model against their closed form (the tandem line of
// swarmx_streams.hpp).
#include "models/workloads/wafer/swarmx_streams.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "models/collectives/transfer_dag.hpp"
#include "topologies/routing.hpp"

namespace fathom::wafer {

namespace {

struct Parts {
  hw::WaferSystemSpec system;
  hw::MemoryXSpec memoryx;
  hw::SwarmXSpec swarmx;
};

Parts parts(int fan_out, double system_rate, double tree_rate, double memoryx_rate, std::int64_t latency_ns,
            double chunk) {
  Parts p;
  p.system.io_bytes_per_s = system_rate;
  p.memoryx.bytes_per_s = memoryx_rate;
  p.swarmx.fan_out = fan_out;
  p.swarmx.link_bytes_per_s = tree_rate;
  p.swarmx.hop_latency_ns = latency_ns;
  p.swarmx.chunk_bytes = chunk;
  return p;
}

double run_seconds(const topo::SwarmXTree& tree, const coll::TransferDag& dag) {
  topo::Router router(tree.topology);
  return coll::run_dag(tree.topology, router, dag, 1).makespan.to_seconds();
}

}  // namespace

TEST_CASE("A stream through the tree on the flow model equals the tandem line's closed form") {
  struct Case {
    int systems;
    int fan_out;
    double system_rate, tree_rate, memoryx_rate;
    std::int64_t latency_ns;
    double chunk, bytes;
  };
  const Case cases[] = {
      {1, 4, 150e9, 150e9, 150e9, 1000, 1 << 20, 8 << 20},
      {16, 4, 150e9, 150e9, 150e9, 1000, 1 << 20, 8 << 20},
      {17, 4, 150e9, 100e9, 150e9, 2000, 1 << 20, 5.5 * (1 << 20)},  // a slower tree link; a partial last chunk
      {9, 2, 100e9, 150e9, 50e9, 500, 256 << 10, 3 << 20},           // MemoryX the slowest hop
      {64, 4, 150e9, 150e9, 150e9, 0, 1 << 20, 1 << 20},             // one chunk, no latency
  };
  for (const Case& c : cases) {
    CAPTURE(c.systems);
    CAPTURE(c.fan_out);
    const Parts p = parts(c.fan_out, c.system_rate, c.tree_rate, c.memoryx_rate, c.latency_ns, c.chunk);
    const topo::SwarmXTree tree = build_tree(c.systems, p.system, p.memoryx, p.swarmx);
    const double chunks = std::ceil(c.bytes / c.chunk);
    const double hops = tree.levels + 1;
    // The engine rounds each transfer's end to the nanosecond.
    const double rounding = chunks * hops * 1e-9;
    const double down = broadcast_seconds(c.systems, p.system, p.memoryx, p.swarmx, c.bytes);
    CHECK(run_seconds(tree, broadcast_dag(tree, c.bytes, c.chunk)) == doctest::Approx(down).epsilon(rounding / down));
    const double up = reduce_seconds(c.systems, p.system, p.memoryx, p.swarmx, c.bytes);
    CHECK(run_seconds(tree, reduce_dag(tree, c.bytes, c.chunk)) == doctest::Approx(up).epsilon(rounding / up));
  }
}

TEST_CASE("With equal links a stream takes H latencies, H - 1 chunks and its bytes at the link rate") {
  const double rate = 150e9;
  const double chunk = 1 << 20;
  const double bytes = 64 * chunk;
  const double latency = 1e-6;
  const Parts p = parts(4, rate, rate, rate, 1000, chunk);
  for (int systems : {1, 4, 16, 64, 256, 1024, 2048}) {
    CAPTURE(systems);
    const double hops = topo::swarmx_levels(systems, 4) + 1;
    const double expected = hops * latency + (hops - 1) * chunk / rate + bytes / rate;
    CHECK(broadcast_seconds(systems, p.system, p.memoryx, p.swarmx, bytes) == doctest::Approx(expected).epsilon(1e-12));
    CHECK(reduce_seconds(systems, p.system, p.memoryx, p.swarmx, bytes) == doctest::Approx(expected).epsilon(1e-12));
  }
  // Four times the systems, one level more: one more hop's latency and chunk, nothing else.
  const double step = broadcast_seconds(64, p.system, p.memoryx, p.swarmx, bytes) -
                      broadcast_seconds(16, p.system, p.memoryx, p.swarmx, bytes);
  CHECK(step == doctest::Approx(latency + chunk / rate).epsilon(1e-9));
}

TEST_CASE("The longest-path form equals the chunk-by-chunk recursion, for any chunk count") {
  const std::vector<std::vector<Hop>> paths = {
      {{150e9, 1e-6}, {150e9, 1e-6}, {150e9, 1e-6}},
      {{50e9, 2e-6}, {150e9, 0}, {100e9, 5e-7}, {150e9, 1e-6}},
      {{150e9, 1e-6}, {100e9, 3e-6}, {50e9, 0}},
      {{80e9, 1e-6}},
  };
  const double chunk = 1 << 20;
  for (std::size_t p = 0; p < paths.size(); ++p) {
    CAPTURE(p);
    for (double bytes : {chunk, 2 * chunk, 7.25 * chunk, 11 * chunk, 12.5 * chunk, 64 * chunk, 1000.5 * chunk}) {
      CAPTURE(bytes);
      CHECK(stream_seconds(paths[p], bytes, chunk) ==
            doctest::Approx(tandem_seconds_each_chunk(paths[p], bytes, chunk)).epsilon(1e-12));
    }
  }
  // A billion chunks: the form, not the recursion.
  CHECK(stream_seconds(paths[1], 1e15, 1) == doctest::Approx(1e15 / 50e9).epsilon(1e-6));
}

TEST_CASE("A stream's bounds: the slowest hop's rate, and nothing for no bytes") {
  const Parts p = parts(4, 150e9, 150e9, 50e9, 0, 1 << 20);
  const double bytes = 1e9;
  const double t = broadcast_seconds(16, p.system, p.memoryx, p.swarmx, bytes);
  CHECK(t >= bytes / 50e9);
  CHECK(t <= bytes / 50e9 + 3 * (1 << 20) / 50e9);
  CHECK(broadcast_seconds(16, p.system, p.memoryx, p.swarmx, 0) == 0);
  CHECK_THROWS_AS(stream_seconds({{1e9, 0}}, 1, 0), std::invalid_argument);
  CHECK_THROWS_AS(stream_seconds({{1e9, 0}}, -1, 1), std::invalid_argument);
}

}  // namespace fathom::wafer
