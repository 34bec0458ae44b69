// Data loading against its closed forms: a step's read bound by the tier's bandwidth, a node's
// NICs, the tier's IOPS or the loaders' requests in flight, each exactly; a cache's hit rate and
// cold share; the stall with and without prefetching; and a whole run's time split around it.
#include "models/workloads/training/data_loading.hpp"

#include <doctest/doctest.h>

#include "models/reliability/whole_run.hpp"

using namespace fathom;
using train::DataLoading;
using train::DataSpec;

namespace {

// 80 nodes of 8 GPUs, TP 8 inside a node: 80 data-parallel replicas, one loading rank a node.
train::TrainingSpec spec_on_80_nodes(int pp = 1) {
  train::TrainingSpec s;
  s.gpus = 640;
  s.sequence = 4096;
  s.global_batch = 1280;  // 16 samples a node
  s.parallel.tp = 8;
  s.parallel.pp = pp;
  s.parallel.dp = 640 / (8 * pp);
  return s;
}

topo::NodeSpec node_with_nics(double bytes_per_s) {
  topo::NodeSpec n;
  n.gpus = 8;
  n.nics = 1;
  n.nic_bytes_per_s = bytes_per_s;
  return n;
}

storage::TierSpec shared_tier(double read_bytes_per_s, double iops = 0, double latency_s = 0) {
  storage::TierSpec t;
  t.name = "fs";
  t.kind = storage::TierKind::kParallelFs;
  t.read_bytes_per_s = read_bytes_per_s;
  t.write_bytes_per_s = read_bytes_per_s;
  t.iops = iops;
  t.latency_ns = static_cast<std::int64_t>(latency_s * 1e9);
  return t;
}

DataSpec samples_of(double bytes) {
  DataSpec d;
  d.tier = "fs";
  d.bytes_per_sample = bytes;
  return d;
}

}  // namespace

TEST_CASE("a step's read is bound by the tier's share, the NICs, the IOPS or the requests in flight") {
  const train::TrainingSpec spec = spec_on_80_nodes();
  const topo::NodeSpec node = node_with_nics(50e9);
  SUBCASE("the tier's bandwidth, split evenly among the loading nodes") {
    const DataLoading d = plan_data_loading(samples_of(100e6), shared_tier(400e9), nullptr, spec, node, 10, 0);
    CHECK(d.loading_nodes == 80);
    CHECK(d.samples_per_node == 16);
    CHECK(d.bytes_per_node == 1.6e9);
    CHECK(d.cold.seconds == doctest::Approx(1.6e9 / (400e9 / 80)));
    CHECK(d.cold.limit == "tier bandwidth");
    CHECK(d.required_bytes_per_s == doctest::Approx(80 * 1.6e9 / 10));
  }
  SUBCASE("a node's NICs, when its share of the tier is larger") {
    const DataLoading d =
        plan_data_loading(samples_of(100e6), shared_tier(8e12), nullptr, spec, node_with_nics(25e9), 10, 0);
    CHECK(d.cold.seconds == doctest::Approx(1.6e9 / 25e9));
    CHECK(d.cold.limit == "NICs");
  }
  SUBCASE("the tier's IOPS, one request per shuffled sample (two above the request size)") {
    DataSpec data = samples_of(16e3);
    const DataLoading d = plan_data_loading(data, shared_tier(400e9, 8000), nullptr, spec, node, 10, 0);
    CHECK(d.requests_per_node == 16);
    CHECK(d.cold.seconds == doctest::Approx(16.0 / (8000.0 / 80)));
    CHECK(d.cold.limit == "IOPS");
    CHECK(d.tier_iops == 8000);
    CHECK(d.required_iops == doctest::Approx(80 * 16 / 10.0));
    data.bytes_per_sample = 1.5 * (1 << 20);
    CHECK(plan_data_loading(data, shared_tier(400e9, 8000), nullptr, spec, node, 10, 0).requests_per_node == 32);
    data.pattern = train::ReadPattern::kSequential;  // 24 MiB a node in 1 MiB requests
    CHECK(plan_data_loading(data, shared_tier(400e9, 8000), nullptr, spec, node, 10, 0).requests_per_node ==
          doctest::Approx(24));
  }
  SUBCASE("the requests in flight: two workers, each with one read of 20 ms outstanding") {
    const DataLoading d = plan_data_loading(samples_of(16e3), shared_tier(400e9, 0, 0.02), nullptr, spec, node, 10, 0);
    CHECK(d.cold.seconds == doctest::Approx(16 * 0.02 / 2));
    CHECK(d.cold.limit == "latency");
    CHECK(d.load_per_sample_s == doctest::Approx(0.01));
  }
  SUBCASE("a node's own drives are not shared; their IOPS count once per node for the job") {
    storage::TierSpec local = shared_tier(10e9, 1e6);
    local.kind = storage::TierKind::kLocalNvme;
    const DataLoading d = plan_data_loading(samples_of(100e6), local, nullptr, spec, node, 10, 0);
    CHECK(d.cold.seconds == doctest::Approx(1.6e9 / 10e9));
    CHECK(d.tier_iops == 80e6);
  }
}

TEST_CASE("pipeline parallelism: the first stage reads the inputs, the last stage the labels") {
  // pp 4: 20 nodes a stage, 40 loading nodes, each reading 2 x 1280 / 40 samples.
  const DataLoading d =
      plan_data_loading(samples_of(1e6), shared_tier(400e9), nullptr, spec_on_80_nodes(4), node_with_nics(50e9), 10, 0);
  CHECK(d.loading_nodes == 40);
  CHECK(d.samples_per_node == 64);
  CHECK(d.loaders_per_node == 1);
}

TEST_CASE("a step stalls for what its read takes beyond the step; without prefetching, for all of it") {
  const train::TrainingSpec spec = spec_on_80_nodes();
  const topo::NodeSpec node = node_with_nics(50e9);
  DataSpec data = samples_of(100e6);  // 1.6 GB a node at 5 GB/s: 0.32 s
  DataLoading d = plan_data_loading(data, shared_tier(400e9), nullptr, spec, node, 0.25, 0);
  CHECK(d.stall_s == doctest::Approx(0.07));
  CHECK(d.stall_fraction == doctest::Approx(0.07 / 0.32));
  CHECK(d.delivered_bytes_per_s == doctest::Approx(400e9));
  CHECK(plan_data_loading(data, shared_tier(400e9), nullptr, spec, node, 1.0, 0).stall_s == 0);
  data.prefetch = 0;
  CHECK(plan_data_loading(data, shared_tier(400e9), nullptr, spec, node, 1.0, 0).stall_s == doctest::Approx(0.32));
}

TEST_CASE("a node-local cache holds its share of the dataset after the first pass") {
  const train::TrainingSpec spec = spec_on_80_nodes();
  storage::TierSpec cache = shared_tier(20e9);
  cache.kind = storage::TierKind::kLocalNvme;
  cache.name = "nvme";
  cache.capacity_bytes = 5e12;
  DataSpec data = samples_of(100e6);
  data.cache = "nvme";
  data.dataset_bytes = 10e12;
  // 1,280 samples of 100 MB a step: 128 GB; 78.125 steps a pass; 312.5 steps are four passes.
  const DataLoading d = plan_data_loading(data, shared_tier(400e9), &cache, spec, node_with_nics(50e9), 0.1, 312.5);
  CHECK(d.hit_rate == doctest::Approx(0.5));
  CHECK(d.cold_fraction == doctest::Approx(0.25));
  CHECK(d.cold.seconds == doctest::Approx(0.32));
  // Warm: 0.8 GB from the tier at 5 GB/s and 0.8 GB from the cache at 20 GB/s, at once.
  CHECK(d.warm.seconds == doctest::Approx(0.16));
  CHECK(d.stall_s == doctest::Approx(0.25 * 0.22 + 0.75 * 0.06));
}

TEST_CASE("samples without a size are refused") {
  CHECK_THROWS_AS(
      plan_data_loading(samples_of(0), shared_tier(1e9), nullptr, spec_on_80_nodes(), node_with_nics(50e9), 1, 0),
      std::invalid_argument);
}

TEST_CASE("a whole run's kept steps split into training and waiting for data, exactly") {
  rel::RunInputs in;
  in.failures = rel::no_failures();
  in.units = {1, 1, 1};
  in.gpus = 1;
  in.tokens_per_step = 1;
  in.step_ns = 1'250'000'000;  // a 1 s step and 0.25 s waiting for its data
  in.data_stall_ns = 250'000'000;
  in.steps = 1000;
  const rel::Replication r = rel::simulate_replication(in, 0);
  CHECK(r.time.wall_ns == 1250 * 1'000'000'000LL);
  CHECK(r.time.kept_ns == 1000 * 1'000'000'000LL);
  CHECK(r.time.data_ns == 250 * 1'000'000'000LL);
  CHECK(rel::simulate_run(in).effective_training_time.mean == doctest::Approx(0.8));
  in.data_stall_ns = in.step_ns;
  CHECK_THROWS_AS(rel::simulate_run(in), std::invalid_argument);
}

TEST_CASE("a file opened per sample waits for the tier's metadata service") {
  // 80 loading nodes share 8,000 opens a second: 100 each, and 16 samples a node take 0.16 s.
  DataSpec data = samples_of(1e6);
  data.samples_per_file = 1;
  storage::TierSpec fs = shared_tier(400e9);
  fs.metadata_ops = 8000;
  const DataLoading d = plan_data_loading(data, fs, nullptr, spec_on_80_nodes(), node_with_nics(50e9), 10, 0);
  CHECK(d.cold.seconds == doctest::Approx(0.16));
  CHECK(d.cold.limit == "metadata");
  // Files of 100 samples: 0.16 opens a node, and its share of the bandwidth (5 GB/s) bounds it again.
  data.samples_per_file = 100;
  const DataLoading packed = plan_data_loading(data, fs, nullptr, spec_on_80_nodes(), node_with_nics(50e9), 10, 0);
  CHECK(packed.cold.seconds == doctest::Approx(16e6 / 5e9));
  CHECK(packed.cold.limit == "tier bandwidth");
}
