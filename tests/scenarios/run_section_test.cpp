// The keys of a whole run: storage tiers, workload.run, workload.checkpoint and failures, and the
// located errors bad ones get.
#include <doctest/doctest.h>

#include <string>

#include "scenario_files.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/storage_catalog.hpp"

using fathom::scenario::load_scenario;
using fathom::scenario::Scenario;
using fathom::scenario::ScenarioError;
using fathom::test::load_error;
using fathom::test::write_scratch_file;

namespace {

// A 16-node training scenario with `run_keys` under workload and `tail` at the root.
std::string run_scenario(const std::string& run_keys, const std::string& tail) {
  return "cluster:\n"
         "  nodes: 16\n"
         "  node: dgx-h100\n"
         "  fabric:\n"
         "    tiers: 2\n"
         "    radix: 64\n"
         "    links:\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n"
         "storage:\n"
         "  gluster: {kind: parallel_fs, read_bandwidth: 40GB/s, write_bandwidth: 60GB/s, replicas: 3, "
         "capacity: 1PB}\n"
         "  nvme: {kind: local_nvme, read_bandwidth: 25GB/s, write_bandwidth: 12GB/s}\n"
         "workload:\n"
         "  kind: training\n"
         "  model: llama3-8b\n"
         "  sequence: 4096\n"
         "  global_batch: 128\n"
         "  tokens: 1e12\n"
         "  parallel: {tp: 8}\n" +
         run_keys + tail;
}

Scenario load_text(const std::string& text) { return load_scenario(write_scratch_file("run.yaml", text)); }

}  // namespace

TEST_CASE("a whole run's keys load into the scenario") {
  const Scenario s = load_text(
      run_scenario("  run: {replications: 20}\n  checkpoint: {interval: auto, tier: gluster, mode: async}\n",
                   "failures:\n  detection: 30s\n  spares: 2\n  components:\n    gpu: {mtbf: 50000h, shape: 0.8}\n"));
  REQUIRE(s.run.has_value());
  CHECK(s.run->replications == 20);
  REQUIRE(s.checkpoint.has_value());
  CHECK(s.checkpoint->auto_interval);
  CHECK(s.checkpoint->async);
  CHECK(s.checkpoint->tier == "gluster");
  REQUIRE(s.storage.size() == 2);
  CHECK(s.storage[0].client_write_bytes_per_s() == doctest::Approx(20e9));
  CHECK(s.storage[1].per_node());
  CHECK(s.failures.detection_ns == 30'000'000'000);
  CHECK(s.failures.spares == 2);
  CHECK(s.failures.rate(fathom::rel::Component::kGpu).mtbf_s == doctest::Approx(50000 * 3600.0));
  CHECK(s.failures.rate(fathom::rel::Component::kGpu).weibull_shape == 0.8);
  // Untouched classes keep the default table.
  CHECK(s.failures.rate(fathom::rel::Component::kHbm).mtbf_s ==
        doctest::Approx(fathom::rel::default_failures().rate(fathom::rel::Component::kHbm).mtbf_s));
  const Scenario none = load_text(run_scenario("  run: {duration: 7d}\n", "failures: none\n"));
  CHECK(none.failures.rate(fathom::rel::Component::kGpu).mtbf_s == 0);
}

TEST_CASE("bad whole-run keys get located errors") {
  ScenarioError e = load_error(run_scenario("  run: {}\n", "failures:\n  components:\n    gpus: {mtbf: 1h}\n"));
  CHECK(e.key_path() == "failures.components.gpus");
  CHECK(std::string(e.what()).find("did you mean") != std::string::npos);
  e = load_error(run_scenario("  run: {}\n", "failures:\n  components:\n    gpu: {mtbf: -5h}\n"));
  CHECK(e.key_path() == "failures.components.gpu.mtbf");
  e = load_error(run_scenario("", "failures: {detection: 1min}\n"));
  CHECK(e.key_path() == "failures");
  e = load_error(run_scenario("  checkpoint: {tier: lustre}\n", ""));
  CHECK(e.key_path() == "workload.checkpoint.tier");
  e = load_error(run_scenario("  run: {tokens: 1e12, duration: 1d}\n", ""));
  CHECK(e.key_path() == "workload.run.duration");
  e = load_error(run_scenario("  run: {replications: 0}\n", ""));
  CHECK(e.key_path() == "workload.run.replications");
  e = load_error(run_scenario("", "expect: {effective_training_time: \">= 90%\"}\n"));
  CHECK(e.key_path() == "expect.effective_training_time");
  e = load_error(run_scenario("", "storage2: {}\n"));
  CHECK(std::string(e.what()).find("storage") != std::string::npos);
}

TEST_CASE("a tier needs its bandwidths, and redundancy only where it is kept") {
  const std::string head = run_scenario("", "");
  const std::string without_tiers = head.substr(0, head.find("storage:\n"));
  const std::string workload = head.substr(head.find("workload:\n"));
  ScenarioError e =
      load_error(without_tiers + "storage:\n  s3: {kind: object_store, read_bandwidth: 1GB/s}\n" + workload);
  CHECK(e.key_path() == "storage.s3.write_bandwidth");
  e = load_error(without_tiers +
                 "storage:\n  nvme: {kind: local_nvme, read_bandwidth: 1GB/s, write_bandwidth: 1GB/s, replicas: 2}\n" +
                 workload);
  CHECK(e.key_path() == "storage.nvme.kind");
  e = load_error(without_tiers +
                 "storage:\n  s3: {kind: object_store, read_bandwidth: 1GB/s, write_bandwidth: 1GB/s, erasure: "
                 "{parity: 4}}\n" +
                 workload);
  CHECK(e.key_path() == "storage.s3.erasure");
}

TEST_CASE("a service's availability section") {
  const Scenario s = load_text(run_scenario(
      "",
      "availability: {replicas: 3, needed: 2, mtbf: 2000h, repair: 8h, depends_on: {nfs: {mtbf: 8760h, repair: "
      "4h}}}\n"));
  REQUIRE(s.availability.has_value());
  CHECK(s.availability->needed == 2);
  REQUIRE(s.availability->depends_on.size() == 1);
  CHECK(s.availability->depends_on[0].name == "nfs");
}

TEST_CASE("bad availability sections get located errors") {
  ScenarioError e = load_error(run_scenario("", "availability: {replicas: 2, needed: 3, mtbf: 1h, repair: 1h}\n"));
  CHECK(e.key_path() == "availability.needed");
  e = load_error(run_scenario("", "availability: {replicas: 2, mtbf: 1h}\n"));
  CHECK(e.key_path() == "availability.repair");
  e = load_error(run_scenario("", "availability: {mtbf: 1h, repair: 1h, depends_on: {nfs: {mtbf: 1h}}}\n"));
  CHECK(e.key_path() == "availability.depends_on.nfs.repair");
  e = load_error(run_scenario("", "expect: {availability: \">= 99.95%\"}\n"));
  CHECK(e.key_path() == "expect.availability");
}

TEST_CASE("workload.data loads, with its cache, and bad data keys get located errors") {
  const Scenario s = load_text(run_scenario(
      "  data: {tier: gluster, cache: nvme, bytes_per_token: 4, pattern: sequential, dataset: 4TB, workers: 8}\n",
      "expect:\n  storage_iops: \">= 500K\"\n  data_load_per_sample: \"< 1ms\"\n"));
  REQUIRE(s.data.has_value());
  CHECK(s.data->tier == "gluster");
  CHECK(s.data->cache == "nvme");
  CHECK(s.data->sample_bytes(4096) == 4 * 4096);
  CHECK(s.data->pattern == fathom::train::ReadPattern::kSequential);
  CHECK(s.data->dataset_bytes == 4e12);
  CHECK(s.data->workers == 8);
  REQUIRE(s.expectations.size() == 2);
  for (const auto& x : s.expectations) {
    CHECK(x.value == doctest::Approx(x.key == "storage_iops" ? 500e3 : 1e-3));
  }

  ScenarioError e = load_error(run_scenario("  data: {tier: lustre, bytes_per_token: 2}\n", ""));
  CHECK(e.key_path() == "workload.data.tier");
  e = load_error(run_scenario("  data: {tier: gluster, cache: gluster, bytes_per_token: 2}\n", ""));
  CHECK(e.key_path() == "workload.data.cache");
  CHECK(std::string(e.what()).find("nvme") != std::string::npos);
  INFO(e.what());
  e = load_error(run_scenario("  data: {tier: gluster}\n", ""));
  CHECK(e.key_path() == "workload.data.bytes_per_sample");
  e = load_error(run_scenario("  data: {tier: gluster, bytes_per_sample: 1MB, bytes_per_token: 2}\n", ""));
  CHECK(e.key_path() == "workload.data.bytes_per_token");
  e = load_error(run_scenario("  data: {tier: gluster, bytes_per_token: 2, workers: 0}\n", ""));
  CHECK(e.key_path() == "workload.data.workers");
  e = load_error(run_scenario("", "expect:\n  storage_iops: \">= 500K\"\n"));
  CHECK(e.key_path() == "expect.storage_iops");
}

TEST_CASE("a tier built from its servers derives its aggregate; mixing both forms is an error") {
  const std::string minio =
      "  minio: {kind: object_store, servers: 32, drives: 8, drive_read: 2.9975GB/s, drive_write: 1.617375GB/s, "
      "network: 100Gbps, erasure: {data: 12, parity: 4}}\n";
  std::string text = run_scenario("", "");
  text.replace(text.find("workload:"), 0, minio);
  const Scenario built = load_text(text);
  REQUIRE(built.storage.size() == 3);
  CHECK(built.storage[2].client_write_bytes_per_s() == doctest::Approx(32 * 12.5e9 / (1 + 4.0 / 3 * 31 / 32)));
  CHECK(built.storage[2].read_bytes_per_s == doctest::Approx(32 * 12.5e9 / (1 + 31.0 / 32)));
  std::string both = run_scenario("", "");
  both.replace(both.find("workload:"), 0,
               "  s3: {kind: object_store, servers: 4, drives: 2, drive_read: 1GB/s, drive_write: 1GB/s, network: "
               "10GB/s, read_bandwidth: 5GB/s}\n");
  CHECK(load_error(both).key_path() == "storage.s3.read_bandwidth");
  std::string missing = run_scenario("", "");
  missing.replace(missing.find("workload:"), 0,
                  "  s3: {kind: object_store, servers: 4, drives: 2, drive_read: 1GB/s}\n");
  CHECK(load_error(missing).key_path() == "storage.s3.drive_write");
  std::string local = run_scenario("", "");
  local.replace(local.find("workload:"), 0,
                "  s3: {kind: local_nvme, servers: 4, drives: 2, drive_read: 1GB/s, drive_write: 1GB/s, network: "
                "10GB/s}\n");
  CHECK(load_error(local).key_path() == "storage.s3.servers");
}

TEST_CASE("a failure class's own detection") {
  const Scenario s =
      load_text(run_scenario("  run: {replications: 2}\n", "failures:\n  components:\n    gpu: {detection: 5s}\n"));
  CHECK(s.failures.rate(fathom::rel::Component::kGpu).detection_ns == 5'000'000'000);
  CHECK(s.failures.rate(fathom::rel::Component::kNic).detection_ns == -1);  // failures.detection
  const ScenarioError e =
      load_error(run_scenario("  run: {replications: 2}\n", "failures:\n  components:\n    gpu: {detection: -5s}\n"));
  CHECK(e.key_path() == "failures.components.gpu.detection");
}

TEST_CASE("storage catalog: every entry has its sources; a tier starts from one and overrides it") {
  REQUIRE(fathom::scenario::catalog_tiers().size() >= 3);
  for (const auto& t : fathom::scenario::catalog_tiers()) {
    CAPTURE(t.name);
    CHECK_FALSE(t.source.empty());
    CHECK(t.read_bytes_per_s > 0);
    CHECK(t.write_bytes_per_s > 0);
  }
  std::string text = run_scenario("", "");
  text.replace(text.find("workload:"), 0,
               "  minio: {entry: minio-32-i3en}\n  fast: {entry: minio-32-i3en, backend_network: 100Gbps}\n"
               "  local: {entry: azure-nd-h100-v5-nvme, capacity: 28TB}\n");
  const Scenario s = load_text(text);
  REQUIRE(s.storage.size() == 5);
  // 32 servers of 100 GbE, reads crossing each NIC 1 + 31/32 times.
  CHECK(s.storage[2].read_bytes_per_s == doctest::Approx(32 * 12.5e9 / (1 + 31.0 / 32)));
  CHECK(s.storage[2].capacity_bytes == 1440e12);
  CHECK(s.storage[2].name == "minio");
  // A separate backend network: derived again, the client NIC now the bound.
  CHECK(s.storage[3].read_bytes_per_s == doctest::Approx(32 * 12.5e9));
  CHECK(s.storage[4].per_node());
  CHECK(s.storage[4].iops == 1.24e6);
  CHECK(s.storage[4].capacity_bytes == 28e12);
  std::string bad = run_scenario("", "");
  bad.replace(bad.find("workload:"), 0, "  minio: {entry: minio-64}\n");
  const ScenarioError e = load_error(bad);
  CHECK(e.key_path() == "storage.minio.entry");
  CHECK(std::string(e.what()).find("minio-32-i3en") != std::string::npos);
}

TEST_CASE("a tier on the fabric needs its servers; client_network is for a storage network") {
  const std::string servers =
      "{kind: parallel_fs, servers: 4, drives: 8, drive_read: 5GB/s, drive_write: 3GB/s, network: 25GB/s, "
      "fanout: client, replicas: 3";
  std::string text = run_scenario("", "");
  text.replace(text.find("workload:"), 0, "  fs: " + servers + ", attach: fabric}\n");
  const Scenario s = load_text(text);
  CHECK(s.storage[2].on_fabric());
  std::string aggregate = run_scenario("", "");
  aggregate.replace(aggregate.find("workload:"), 0,
                    "  fs: {kind: parallel_fs, read_bandwidth: 40GB/s, write_bandwidth: 40GB/s, attach: fabric}\n");
  CHECK(load_error(aggregate).key_path() == "storage.fs.attach");
  std::string both = run_scenario("", "");
  both.replace(both.find("workload:"), 0, "  fs: " + servers + ", attach: fabric, client_network: 50GB/s}\n");
  CHECK(load_error(both).key_path() == "storage.fs.client_network");
  std::string word = run_scenario("", "");
  word.replace(word.find("workload:"), 0, "  fs: " + servers + ", attach: spine}\n");
  CHECK(load_error(word).key_path() == "storage.fs.attach");
}

TEST_CASE("a negative rate is an error at its key; spares keeps its -1") {
  for (const char* key : {"iops", "metadata_ops"}) {
    std::string text = run_scenario("", "");
    text.replace(
        text.find("workload:"), 0,
        "  fs: {kind: parallel_fs, read_bandwidth: 4GB/s, write_bandwidth: 4GB/s, " + std::string(key) + ": -5}\n");
    const ScenarioError e = load_error(text);
    CHECK(e.key_path() == "storage.fs." + std::string(key));
    CHECK(std::string(e.what()).find("0 or more") != std::string::npos);
  }
  CHECK(
      load_error(run_scenario("  data: {tier: gluster, bytes_per_token: 2, samples_per_file: -1}\n", "")).key_path() ==
      "workload.data.samples_per_file");
  std::string part = run_scenario("", "");
  part.replace(part.find("workload:"), 0,
               "  s3: {kind: object_store, read_bandwidth: 4GB/s, write_bandwidth: 4GB/s, part_size: 0B}\n");
  CHECK(load_error(part).key_path() == "storage.s3.part_size");
  const Scenario s = load_text(run_scenario("  run: {replications: 2}\n", "failures:\n  spares: -1\n"));
  CHECK(s.failures.spares == -1);
}
