// A wafer-scale scenario (`cluster.kind: wafer-scale`): the catalog of systems, MemoryX and
// SwarmX, the keys, and every mistake located at the key that makes it, memory limits included.
#include <doctest/doctest.h>

#include <string>

#include "scenarios/scenario.hpp"
#include "scenarios/wafer_catalog.hpp"
#include "tests/scenarios/scenario_files.hpp"

using namespace fathom;
using fathom::test::load_error;
using fathom::test::write_scratch_file;

namespace {

// 16 CS-3s (their dense peak and efficiency supplied) training `model`, then `rest`.
std::string wafer_text(const std::string& workload, const std::string& rest = "",
                       const std::string& system = "{base: cs-3, peak_dense: 15PFLOPS, compute_efficiency: 0.5}") {
  return "cluster:\n"
         "  kind: wafer-scale\n"
         "  systems: 16\n"
         "  system: " +
         system +
         "\n"
         "  memoryx: memoryx-12tb\n"
         "workload:\n"
         "  kind: training\n" +
         workload + rest;
}

const std::string kLlama8b = "  model: llama3-8b\n  sequence: 2048\n  global_batch: 256\n  micro_batch: 4\n";

scenario::Scenario load(const std::string& text) {
  return scenario::load_scenario(write_scratch_file("wafer.yaml", text));
}

}  // namespace

TEST_CASE("wafer catalog: every entry with its source; the figures Cerebras does not publish are 0") {
  const scenario::WaferCatalog& c = scenario::wafer_catalog();
  REQUIRE(c.systems.size() == 2);
  for (const auto& s : c.systems) CHECK_FALSE(s.source.empty());
  for (const auto& m : c.memoryx) CHECK_FALSE(m.source.empty());
  for (const auto& x : c.swarmx) CHECK_FALSE(x.source.empty());
  const hw::WaferSystemSpec& cs2 = c.systems[0];
  const hw::WaferSystemSpec& cs3 = c.systems[1];
  CHECK(cs2.name == "cs-2");
  CHECK(cs2.peak_dense_flops == 7.5e15);  // Andromeda's 120 PFLOP/s dense over 16 CS-2
  CHECK(cs2.peak_sparse_flops == 62.5e15);
  CHECK(cs3.name == "cs-3");
  CHECK(cs3.peak_dense_flops == 0);  // not public
  CHECK(cs3.peak_sparse_flops == 125e15);
  CHECK(cs3.sram_bytes == 44e9);
  CHECK(cs3.io_bytes_per_s == 150e9);  // 1.2 Tb/s
  CHECK(cs3.compute_efficiency == 0);
  CHECK(c.memoryx.size() == 3);
  CHECK(c.memoryx.back().capacity_bytes == 1.2e15);
  CHECK(c.swarmx.front().fan_out == 4);  // "1:4 broadcast-reduce operations"
  // Input workers: Argonne's cluster has one a system; neither their rate nor their power is public.
  REQUIRE(c.input_workers.size() == 1);
  CHECK(c.input_workers.front().name == "input-worker");
  CHECK(c.input_workers.front().source.find("4 worker nodes") != std::string::npos);
  CHECK(c.input_workers.front().bytes_per_s == 0);
  CHECK(c.input_workers.front().power_w == 0);
}

TEST_CASE("wafer scenario: input workers, their unpublished rate asked for, and their price with cost:") {
  const std::string workers =
      "  input_workers: 16\n  input_worker: {base: input-worker, bandwidth: 100Gbps, power: 1kW}\n";
  std::string text = wafer_text(kLlama8b);
  text.insert(text.find("workload:"), workers);
  const scenario::Scenario s = load(text);
  CHECK(s.wafer.input_workers == 16);
  CHECK(s.wafer.input_worker.bytes_per_s == 12.5e9);
  CHECK(s.wafer_training.input_bytes_per_token == 12);
  std::string no_rate = wafer_text(kLlama8b);
  no_rate.insert(no_rate.find("workload:"), "  input_workers: 16\n");
  CHECK(load_error(no_rate).key_path() == "cluster.input_worker.bandwidth");
  // Priced: the workers are appliances at cost.input_worker_price.
  std::string priced = text +
                       "  tokens: 1e12\ncost:\n  node_price: $2e6\n  node_power: 25kW\n  switch_price: $5e4\n"
                       "  switch_power: 1kW\n  memoryx_price: $3e6\n";
  priced.replace(priced.find("memoryx-12tb"), 12, "{base: memoryx-12tb, power: 20kW}");
  CHECK(load_error(priced).key_path() == "cost.input_worker_price");
  const scenario::Scenario with_price = load(priced + "  input_worker_price: $2e4\n");
  REQUIRE(with_price.cost);
  CHECK(with_price.wafer_prices.input_worker_usd == 2e4);
}

TEST_CASE("wafer scenario: the cluster's parts and the training keys") {
  const scenario::Scenario s = load(wafer_text(kLlama8b + "  recompute: full\n  tokens: 1e12\n"));
  CHECK(s.workload == scenario::WorkloadKind::kWaferTraining);
  CHECK(s.wafer.systems == 16);
  CHECK(s.wafer.system.name == "cs-3");
  CHECK(s.wafer.system.peak_dense_flops == 15e15);
  CHECK(s.wafer.system.compute_efficiency == 0.5);
  CHECK(s.wafer.system.sram_bytes == 44e9);  // from the entry
  CHECK(s.wafer.memoryx.capacity_bytes == 12e12);
  CHECK(s.wafer.swarmx.name == "swarmx");  // the catalog's, when the scenario names none
  const wafer::WaferTrainingSpec& t = s.wafer_training;
  CHECK(t.model.name == "llama3-8b");
  CHECK(t.sequence == 2048);
  CHECK(t.global_batch == 256);
  CHECK(t.micro_batch == 4);
  CHECK(t.recompute == train::Recompute::kFull);
  CHECK(t.tokens == 1e12);
  CHECK(t.state_bytes_per_parameter == 16);
  // --set reaches the parts' keys.
  const scenario::Scenario faster = scenario::load_scenario(write_scratch_file("wafer.yaml", wafer_text(kLlama8b)),
                                                            {"cluster.swarmx={base: swarmx, hop_latency: 5us}"});
  CHECK(faster.wafer.swarmx.hop_latency_ns == 5000);
  CHECK(faster.wafer.swarmx.fan_out == 4);
}

TEST_CASE("wafer scenario: each mistake is located at its key") {
  struct Bad {
    std::string text;
    int line;
    std::string key;
    std::string part;  // of the message
  };
  const Bad cases[] = {
      // The CS-3's dense peak is not public: the scenario must supply it.
      {wafer_text(kLlama8b, "", "cs-3"), 4, "cluster.system.peak_dense", "must supply it"},
      {wafer_text(kLlama8b, "", "{base: cs-3, peak_dense: 15PFLOPS}"), 4, "cluster.system.compute_efficiency",
       "not published"},
      {wafer_text(kLlama8b, "", "cs-4"), 4, "cluster.system", "cs-2, cs-3"},
      // Batches the systems cannot share.
      {wafer_text("  model: llama3-8b\n  global_batch: 250\n"), 9, "workload.global_batch", "multiple of the 16"},
      {wafer_text("  model: llama3-8b\n  global_batch: 256\n  micro_batch: 3\n"), 10, "workload.micro_batch",
       "divisor of the per-system batch of 16"},
      {wafer_text("  model: llama3-8b\n"), 7, "workload.global_batch", "samples per step"},
      // Memory: a micro-batch the SRAM cannot hold, a model MemoryX cannot.
      {wafer_text("  model: llama3-70b\n  sequence: 8192\n  global_batch: 256\n  micro_batch: 16\n"), 11,
       "workload.micro_batch", "SRAM"},
      {"cluster:\n  kind: wafer-scale\n  systems: 16\n  system: {base: cs-3, peak_dense: 15PFLOPS, compute_efficiency: "
       "0.5}\n  memoryx: memoryx-1.5tb\nworkload:\n  kind: training\n  model: llama3-405b\n  global_batch: 16\n",
       5, "cluster.memoryx.capacity", "optimizer state"},
      // Keys that do not apply.
      {wafer_text(kLlama8b, "storage:\n  shared: {entry: minio-32-i3en}\n"), 13, "storage", "wafer-scale"},
      {wafer_text(kLlama8b, "expect:\n  p99_ttft: \"<= 1s\"\n"), 13, "expect.p99_ttft", "weight-streaming"},
      {wafer_text(kLlama8b, "expect:\n  time_to_train: \"<= 1d\"\n"), 13, "expect.time_to_train", "token budget"},
      {wafer_text(kLlama8b, "output:\n  trace: t.json\n"), 13, "output.trace", "output.json only"},
      {wafer_text(kLlama8b + "  parallel: {tp: 2}\n"), 12, "workload.parallel", ""},
  };
  for (const Bad& b : cases) {
    CAPTURE(b.text);
    const scenario::ScenarioError e = load_error(b.text);
    CHECK(e.line() == b.line);
    CHECK(e.key_path() == b.key);
    CHECK(std::string(e.what()).find(b.part) != std::string::npos);
  }
  const scenario::ScenarioError kind =
      load_error("cluster:\n  kind: wafer\n  systems: 1\nworkload:\n  kind: training\n");
  CHECK(kind.line() == 2);
  const scenario::ScenarioError serving = load_error(
      wafer_text("  model: llama3-8b\n").replace(wafer_text("").find("kind: training"), 14, "kind: inference"));
  // Serving is asked the figures it needs beyond training's: here the SRAM's share.
  CHECK(serving.key_path() == "cluster.system.sram_efficiency");
}

TEST_CASE("wafer scenario: the example loads and its expectations are read") {
  const scenario::Scenario s = scenario::load_scenario(std::string(FATHOM_SOURCE_DIR) +
                                                       "/scenarios/examples/cs3-llama3-70b-weight-streaming.yaml");
  CHECK(s.workload == scenario::WorkloadKind::kWaferTraining);
  CHECK(s.wafer.systems == 64);
  const scenario::Scenario with =
      load(wafer_text(kLlama8b + "  tokens: 1e12\n",
                      "expect:\n  step_time: \"<= 10s\"\n  mfu: \">= 20%\"\n  time_to_train: \"<= 30d\"\n"));
  REQUIRE(with.expectations.size() == 3);
  for (const scenario::Expectation& e : with.expectations) {
    CHECK((e.key == "step_time" || e.key == "mfu" || e.key == "time_to_train"));
  }
}

TEST_CASE("wafer serving: each system a wafer of the inference model, a replica the wafers its weights need") {
  const std::string serving =
      "cluster:\n"
      "  kind: wafer-scale\n"
      "  systems: 8\n"
      "  system: {base: cs-3, peak_dense: 15PFLOPS, compute_efficiency: 0.5, sram_efficiency: 0.5, layer_latency: "
      "8us}\n"
      "workload:\n"
      "  kind: inference\n"
      "  model: llama3.1-70b\n"
      "  requests: {arrival: poisson, rate: 1, count: 10, prompt_tokens: 500, output_tokens: 100}\n";
  const scenario::Scenario s = load(serving);
  CHECK(s.workload == scenario::WorkloadKind::kInference);
  CHECK(s.wafer_scale);
  CHECK(s.accelerator.name == "cs-3");
  CHECK(s.accelerator.hbm_bytes == 44e9);
  CHECK(s.accelerator.layer_latency_s == doctest::Approx(8e-6));
  CHECK(s.cluster.nodes == 8);
  CHECK(s.cluster.node.gpus == 1);
  CHECK(s.inference.serving.pp == 4);  // the fewest wafers that hold 70B's 16-bit weights
  CHECK(s.inference.serving.tp == 1);
  CHECK(s.collectives.launch_ns == 0);
  // Split every layer over two wafers: groups of two, two stages.
  const scenario::Scenario split =
      scenario::load_scenario(write_scratch_file("wafer.yaml", serving), {"workload.serving={tp: 2}"});
  CHECK(split.cluster.nodes == 4);
  CHECK(split.cluster.node.gpus == 2);
  CHECK(split.inference.serving.pp == 2);
  // A replica's pipeline may be given; one that does not hold the weights is the serving model's error.
  const scenario::ScenarioError shallow = load_error(serving + "  serving: {pp: 2}\n");
  CHECK(shallow.key_path().rfind("workload.serving", 0) == 0);
  // The figures serving needs that Cerebras does not publish, and a split the systems cannot hold.
  std::string no_latency = serving;
  no_latency.replace(no_latency.find(", layer_latency: 8us"), 20, "");
  const scenario::ScenarioError latency = load_error(no_latency);
  CHECK(latency.line() == 4);
  CHECK(latency.key_path() == "cluster.system.layer_latency");
  const scenario::ScenarioError three = load_error(serving + "  serving: {tp: 3}\n");
  CHECK(three.line() == 9);
  CHECK(std::string(three.what()).find("divisor of the cluster's 8 systems") != std::string::npos);
  const scenario::ScenarioError training_key = load_error(serving + "expect:\n  step_time: \"<= 1s\"\n");
  CHECK(training_key.key_path() == "expect.step_time");
  // Its cost: the systems and an Ethernet fabric (ethernet-64x400g unless cost.switch names one),
  // three 400G ports a system for its 1.2 Tb/s; no MemoryX to price.
  const std::string cost = "cost:\n  node_price: $2e6\n  node_power: 20kW\n  switch_price: $3e4\n";
  const scenario::Scenario priced = load(serving + cost + "expect:\n  capex: \"<= $20e6\"\n");
  REQUIRE(priced.cost);
  CHECK(priced.cost->switch_name == "ethernet-64x400g");
  CHECK(priced.cost->switch_radix == 64);
  CHECK(priced.cost->switch_watts == 700);
  CHECK(priced.wafer_prices.system_ports == 3);
  CHECK(load(serving + cost + "  switch: spectrum-4-sn5600\n").wafer_prices.system_ports == 2);
  CHECK(load_error(serving + cost + "  memoryx_price: $3e6\n").key_path() == "cost.memoryx_price");
  CHECK(load_error(serving + "cost:\n  node_price: $2e6\n  node_power: 20kW\n").key_path() == "cost.switch_price");
  CHECK(load_error(serving + "expect:\n  capex: \"<= $20e6\"\n").key_path() == "expect.capex");
  // Training still needs a MemoryX.
  const scenario::ScenarioError memoryx = load_error(
      "cluster:\n  kind: wafer-scale\n  systems: 4\n  system: {base: cs-3, peak_dense: 15PFLOPS, compute_efficiency: "
      "0.5}\nworkload:\n  kind: training\n  model: llama3-8b\n  global_batch: 16\n");
  CHECK(memoryx.key_path() == "cluster.memoryx");
}

TEST_CASE("wafer cost: the cost model's keys priced for systems and SwarmX, every unpublished figure asked for") {
  const std::string cost =
      "cost:\n  node_price: $2e6\n  node_power: 25kW\n  switch_price: $5e4\n  switch_power: 1kW\n"
      "  memoryx_price: $3e6\n";
  const std::string memoryx = "{base: memoryx-12tb, power: 20kW}";
  std::string text = wafer_text(kLlama8b + "  tokens: 1e12\n", cost);
  text.replace(text.find("memoryx-12tb"), 12, memoryx);
  const scenario::Scenario s = load(text);
  REQUIRE(s.cost);
  CHECK(s.cost->node_usd == 2e6);
  CHECK(s.cost->switch_name == "swarmx");
  CHECK(s.wafer_prices.memoryx_usd == 3e6);
  CHECK(s.wafer.memoryx.power_w == 20e3);
  // A system's and a SwarmX node's power default to the cluster's parts.
  std::string from_parts = text;
  from_parts.replace(from_parts.find("  node_power: 25kW\n"), 19, "");
  from_parts.replace(from_parts.find("cs-3, peak_dense"), 16, "cs-3, power: 23kW, peak_dense");
  CHECK(load(from_parts).cost->node_watts == 23e3);
  // What is missing or does not apply, at its key.
  std::string no_price = text;
  no_price.replace(no_price.find("  memoryx_price: $3e6\n"), 22, "");
  const scenario::ScenarioError e = load_error(no_price);
  CHECK(e.key_path() == "cost.memoryx_price");
  CHECK(std::string(e.what()).find("Cerebras publishes no price") != std::string::npos);
  CHECK(load_error(text + "  switch: quantum-2-qm9700\n").key_path() == "cost.switch");
  CHECK(load_error(wafer_text(kLlama8b, "expect:\n  capex: \"<= $1e9\"\n")).key_path() == "expect.capex");
  std::string run_cost = wafer_text(kLlama8b, cost + "expect:\n  run_cost: \"<= $1e9\"\n");
  run_cost.replace(run_cost.find("memoryx-12tb"), 12, memoryx);
  CHECK(load_error(run_cost).key_path() == "expect.run_cost");
}

TEST_CASE("a model whose layers differ (Llama 4 Maverick) is served but not trained, said at workload.model") {
  const scenario::ScenarioError wafer =
      load_error(wafer_text("  model: llama4-maverick\n  sequence: 2048\n  global_batch: 16\n"));
  CHECK(wafer.key_path() == "workload.model");
  CHECK(std::string(wafer.what()).find("serves such a model") != std::string::npos);
  try {
    (void)scenario::load_scenario(std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/pilot-16-nodes.yaml",
                                  {"workload.model=llama4-maverick"});
    FAIL("loaded");
  } catch (const scenario::ScenarioError& e) {
    CHECK(e.key_path() == "workload.model");
    CHECK(std::string(e.what()).find("does not train it") != std::string::npos);
  }
}
