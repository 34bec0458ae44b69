// User catalogs (scenarios/user_catalogs.hpp): a folder that adds an accelerator, a node and a
// model in the built-in schema, named by a scenario's `catalogs:` key, loads and simulates; an
// entry extends a built-in one with `base:` or replaces one of the same name; the entries are
// gone when the scope ends; and a mistake in a user file is reported at its file and line.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/workloads/training/step_model.hpp"
#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/model_catalog.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/storage_catalog.hpp"
#include "scenarios/user_catalogs.hpp"

using fathom::scenario::catalog_origin;
using fathom::scenario::find_catalog_accelerator;
using fathom::scenario::find_catalog_model;
using fathom::scenario::load_scenario;
using fathom::scenario::ScenarioError;
using fathom::scenario::ScopedCatalogs;

namespace {

namespace fs = std::filesystem;

// A fresh folder under the system's temporary folder.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "fathom-user-catalog-tests" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

// A hypothetical accelerator, node and model, every key written as the built-in files write them.
void write_catalog(const fs::path& dir) {
  write(dir / "accelerators.yaml", R"(test-gpu:
  source: "a hypothetical part, for the test"
  peak_fp32: 50TFLOPS
  peak_tf32: 400TFLOPS
  peak_bf16: 800TFLOPS
  peak_fp8: 1600TFLOPS
  hbm: 96GiB
  runtime_reserve: 2GiB
  hbm_bandwidth: 4TB/s
  tdp: 700W
  compute_units: 132
  efficiency:
    gemm_max: 0.8
    kernel_overhead: 5us
    gemm_curve: none
    gemm_tiles: none
    attention: 0.5
    hbm: 0.85
    nvlink: 0.8
    nic: 0.9
  efficiency_source: "assumed for the test"
)");
  write(dir / "nodes.yaml", R"(test-node:
  source: "a hypothetical node, for the test"
  accelerator: test-gpu
  gpus: 8
  nics: 8
  nvlink_bandwidth: 450GB/s
  nic_bandwidth: 400Gbps
)");
  write(dir / "models.yaml", R"(test-model:
  source: "a small dense model, for the test"
  layers: 8
  hidden: 2048
  ffn_hidden: 8192
  heads: 16
  vocab: 32000
  max_sequence: 4096
  mlp: swiglu
  position: rotary
  tied_embeddings: false
slim-llama:
  base: llama3-8b
  layers: 16
)");
}

const char* kScenario = R"(catalogs: [cat]
cluster:
  nodes: 2
  node: test-node
  fabric: {kind: fat-tree, tiers: 2, hosts_per_leaf: 16, spines: 2, links: [{bandwidth: 400Gbps, latency: 1us}, {bandwidth: 400Gbps, latency: 1us}]}
workload:
  kind: training
  model: test-model
  sequence: 4096
  global_batch: 16
  micro_batch: 1
  parallel: {tp: 8}
)";

}  // namespace

TEST_CASE("a user catalog folder adds an accelerator, a node and a model that a scenario names and simulates") {
  const fs::path root = scratch("adds");
  fs::create_directories(root / "cat");
  write_catalog(root / "cat");
  write(root / "run.yaml", kScenario);
  const auto s = load_scenario((root / "run.yaml").string());
  CHECK(s.accelerator.name == "test-gpu");
  CHECK(s.accelerator.peak(fathom::hw::Precision::kBf16) == 800e12);
  CHECK(s.cluster.node.nic_bytes_per_s == 50e9);
  CHECK(s.training.model.name == "test-model");
  CHECK(s.training.model.kv_heads == 16);
  REQUIRE(s.catalog_entries.size() == 3);
  for (const auto& e : s.catalog_entries) {
    CAPTURE(e.kind);
    CHECK(fs::path(e.file).parent_path() == root / "cat");
  }
  const auto r = fathom::train::simulate_training_step(s.training, s.accelerator, s.cluster, s.collectives, s.seed);
  CHECK(r.step_seconds > 0);
  // The peak the step's MFU is measured against is the user accelerator's.
  CHECK(r.mfu == doctest::Approx(r.model_tflops_per_gpu * 1e12 / 800e12));
  // Outside the load the folder's entries are gone.
  CHECK(find_catalog_accelerator("test-gpu") == nullptr);
  CHECK(find_catalog_model("test-model") == nullptr);
}

TEST_CASE("a user entry extends a built-in one with base:, or replaces one of the same name, while in scope") {
  const fs::path dir = scratch("extends");
  write_catalog(dir);
  write(dir / "switches.yaml", "quantum-2-qm9700:\n  base: quantum-2-qm9700\n  latency: 250ns\n");
  const double built_in_latency = fathom::scenario::find_catalog_switch("quantum-2-qm9700")->latency_ns;
  {
    const ScopedCatalogs scope({dir.string()});
    const auto* slim = find_catalog_model("slim-llama");
    const auto* base = find_catalog_model("llama3-8b");
    REQUIRE(slim != nullptr);
    CHECK(slim->layers == 16);
    CHECK(slim->hidden == base->hidden);
    CHECK(slim->source == base->source);  // not restated: the base's stands
    CHECK(fathom::scenario::find_catalog_switch("quantum-2-qm9700")->latency_ns == 250);
    CHECK(catalog_origin("switch", "quantum-2-qm9700") == (dir / "switches.yaml").string());
    CHECK(catalog_origin("model", "llama3-8b") == std::string(fathom::scenario::kModelCatalogFile));
  }
  CHECK(fathom::scenario::find_catalog_switch("quantum-2-qm9700")->latency_ns == built_in_latency);
  CHECK(catalog_origin("model", "slim-llama").empty());
}

TEST_CASE("mistakes in a user catalog are reported at the user's file and line") {
  const fs::path dir = scratch("errors");
  write(dir / "accelerators.yaml", "my-gpu:\n  base: h100-sxm\n  peak_bf16: 1PFLOPS\n  hbm_bandwith: 4TB/s\n");
  try {
    const ScopedCatalogs scope({dir.string()});
    FAIL("the misspelt key was accepted");
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    CHECK(what.find((dir / "accelerators.yaml").string() + ":4:3") != std::string::npos);
    CHECK(what.find("did you mean \"hbm_bandwidth\"") != std::string::npos);
  }
  CHECK(fathom::scenario::active_user_catalogs().empty());  // nothing left half-active

  write(dir / "accelerators.yaml", "my-gpu:\n  base: h100-sxn\n");
  CHECK_THROWS_WITH_AS(ScopedCatalogs({dir.string()}), doctest::Contains("did you mean \"h100-sxm\""), ScenarioError);

  // measured_as names are matched against lower-cased paths: an upper-case one could never match.
  fs::remove(dir / "accelerators.yaml");
  write(dir / "nodes.yaml", "my-box:\n  base: dgx-h100\n  measured_as: [h100, H200]\n");
  try {
    const ScopedCatalogs scope({dir.string()});
    FAIL("an upper-case measured_as name was accepted");
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    CHECK(what.find((dir / "nodes.yaml").string() + ":3:") != std::string::npos);
    CHECK(what.find("a lower-case name such as h100") != std::string::npos);
    CHECK(what.find("H200") != std::string::npos);
  }
  write(dir / "nodes.yaml", "my-box:\n  base: dgx-h100\n  measured_as: [\"\"]\n");
  CHECK_THROWS_WITH_AS(ScopedCatalogs({dir.string()}), doctest::Contains("a lower-case name such as h100"),
                       ScenarioError);

  fs::remove(dir / "nodes.yaml");
  write(dir / "gpus.yaml", "x: {}\n");
  CHECK_THROWS_WITH_AS(ScopedCatalogs({dir.string()}), doctest::Contains("catalog files named accelerators.yaml"),
                       ScenarioError);
  CHECK_THROWS_WITH_AS(ScopedCatalogs({(dir / "missing").string()}), doctest::Contains("which is not a folder"),
                       ScenarioError);
}

TEST_CASE("a user catalog's storage.yaml adds tiers that a scenario starts from with entry:") {
  const fs::path root = scratch("storage");
  fs::create_directories(root / "cat");
  write_catalog(root / "cat");
  write(root / "cat" / "storage.yaml", R"(site-lustre:
  source: "our site's Lustre, for the test"
  kind: parallel_fs
  servers: 8
  drives: 12
  drive_read: 6GB/s
  drive_write: 3GB/s
  network: 200Gbps
  fanout: client
  metadata_ops: 50000
minio-wider:
  entry: minio-32-i3en
  network: 200Gbps
)");
  std::string text = kScenario;
  text.replace(text.find("workload:"), 0, "storage:\n  scratch: {entry: site-lustre}\n  s3: {entry: minio-wider}\n");
  write(root / "run.yaml", text);
  const auto s = load_scenario((root / "run.yaml").string());
  REQUIRE(s.storage.size() == 2);
  CHECK(s.storage[0].metadata_ops == 50000);
  CHECK(s.storage[0].read_bytes_per_s == doctest::Approx(8 * 25e9));  // the servers' NICs bound it
  CHECK(s.storage[0].source == "our site's Lustre, for the test");
  // An entry over a built-in one keeps its sources and is derived again from its servers.
  const auto& minio = fathom::scenario::catalog_tiers().front();
  CHECK(s.storage[1].source == minio.source);
  CHECK(s.storage[1].read_bytes_per_s > minio.read_bytes_per_s);
  {
    const ScopedCatalogs scope({(root / "cat").string()});
    CHECK(catalog_origin("storage", "site-lustre") == (root / "cat" / "storage.yaml").string());
    CHECK(catalog_origin("storage", "minio-32-i3en") == std::string(fathom::scenario::kStorageCatalogFile));
  }
  CHECK(fathom::scenario::find_catalog_tier("site-lustre") == nullptr);

  write(root / "cat" / "storage.yaml",
        "no-source:\n  kind: parallel_fs\n  read_bandwidth: 1GB/s\n"
        "  write_bandwidth: 1GB/s\n");
  CHECK_THROWS_WITH_AS(ScopedCatalogs({(root / "cat").string()}), doctest::Contains("source"), ScenarioError);
}
