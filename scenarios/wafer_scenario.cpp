// A wafer-scale scenario (`cluster.kind: wafer-scale`): the cluster's systems, MemoryX and
// SwarmX, a training workload run by weight streaming or an inference service with the weights
// resident on the wafers, and the scenario's `expect:` and `output:`
// (docs/wafer.md). The sections that describe a GPU cluster's parts (hardware, storage,
// collectives, ...) are refused by name.
#include <array>
#include <cmath>
#include <string>
#include <string_view>

#include "models/cost/cost_spec.hpp"
#include "models/workloads/wafer/wafer_cost.hpp"
#include "models/workloads/wafer/wafer_serving.hpp"
#include "models/workloads/wafer/wafer_training_parameters.hpp"
#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/declared_reader.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/inference_workload.hpp"
#include "scenarios/price_list.hpp"
#include "scenarios/report_section.hpp"
#include "scenarios/scenario_reading.hpp"
#include "scenarios/wafer_catalog.hpp"

namespace fathom::scenario::detail {

namespace {

// The figures `expect:` can name for weight-streaming training.
constexpr std::array<std::string_view, 4> kWaferExpectKeys = {"step_time", "tokens_per_s", "time_to_train", "mfu"};

// Top-level sections of a GPU scenario that describe parts a wafer-scale cluster does not have,
// or questions not yet asked of one.
constexpr std::array<std::string_view, 6> kGpuSections = {"hardware",     "calibration", "storage",
                                                          "availability", "failures",    "collectives"};

// `report:` targets of rows a GPU cluster's go-live report has and a wafer-scale one's does not:
// the nccl-tests check, and what fathom models on GPU clusters only (failures, storage, availability).
constexpr std::array<std::string_view, 7> kGpuReportKeys = {
    "bandwidth_message", "bandwidth_nodes", "recovery_time",       "effective_training_time",
    "availability",      "storage_iops",    "data_load_per_sample"};

void read_wafer_cluster(Scenario& s, MapReader& cluster) {
  const auto noted = [&](const ValueReader& v) { note(s, v); };
  wafer::WaferCluster& c = s.wafer;
  if (auto v = cluster.find("systems")) note(s, *v);
  c.systems = cluster.positive_int("systems");
  c.system = read_wafer_system(cluster.value("system", "a wafer-scale system of the catalog, or a mapping"), noted);
  if (auto v = cluster.find("memoryx")) c.memoryx = read_memoryx(*v, noted);
  if (auto v = cluster.find("swarmx")) {
    c.swarmx = read_swarmx(*v, noted);
  } else {
    c.swarmx = wafer_catalog().swarmx.front();
  }
  // The input workers: how many, and which (the catalog's by default, whose rate must be given).
  if (auto v = cluster.find("input_workers")) {
    note(s, *v);
    c.input_workers = v->non_negative_int();
  }
  if (auto v = cluster.find("input_worker")) {
    c.input_worker = read_input_worker(*v, noted);
  } else {
    c.input_worker = wafer_catalog().input_workers.front();
  }
  cluster.finish();
}

// Training by weight streaming: MemoryX holds the weights, so the cluster needs one.
void read_wafer_training(Scenario& s, MapReader& w) {
  s.workload = WorkloadKind::kWaferTraining;
  if (s.wafer.memoryx.name.empty()) {
    throw ScenarioError(s.locations.at("cluster"), "cluster.memoryx",
                        "a MemoryX to hold the weights and optimizer state (training streams them from it)", "none",
                        "add memoryx: memoryx-12tb under cluster");
  }
  wafer::WaferTrainingSpec& t = s.wafer_training;
  t.model = read_model(s, w);
  read_declared(w, wafer::wafer_training_parameters(), t, [&](const ValueReader& v) { note(s, v); });
  if (!w.has("global_batch")) w.value("global_batch", "samples per step over every system");
}

// Serving: the inference model's keys, each system one accelerator, `serving.tp` wafers a group
// that splits every layer, and the groups a replica needs as its pipeline stages (serving.pp, by
// default the fewest that hold the weights).
void read_wafer_serving(Scenario& s, MapReader& w) {
  s.workload = WorkloadKind::kInference;
  const wafer::WaferCluster& c = s.wafer;
  if (auto v = wafer::serving_violation(c.system)) reject(s, *v, v->field);
  if (c.input_workers > 0) {
    throw ScenarioError(s.locations.at("cluster.input_workers"), "cluster.input_workers",
                        "no input workers for a service (they stream training data)", std::to_string(c.input_workers));
  }
  int tp = 1;
  if (auto serving = w.find("serving"); serving && serving->is_map()) {
    MapReader keys = serving->map();
    if (auto v = keys.find("tp")) {
      tp = v->positive_int();
      if (c.systems % tp != 0) {
        v->fail("a divisor of the cluster's " + std::to_string(c.systems) +
                " systems (a replica's tensor-parallel wafers share one switch)");
      }
    }
  }
  s.accelerator = wafer::as_accelerator(c.system);
  s.cluster = wafer::serving_cluster(c.systems, tp, c.system, c.swarmx.hop_latency_ns);
  // Between wafers, messages cross two links (a system's to the switch, the switch's to the next)
  // with no kernel to launch; the links are 100 GbE, whose 64b/66b coding leaves the same share
  // of the line rate as the NIC default's.
  s.collectives.alpha_ns = 2 * c.swarmx.hop_latency_ns;
  s.collectives.launch_ns = 0;
  s.collectives.efficiency.ring = s.collectives.efficiency.tree = s.collectives.efficiency.nic;
  InferenceWorkload& i = s.inference;
  i.model = read_model(s, w);
  i.serving.tp = tp;
  if (i.model.heads % tp == 0 && i.model.ffn_hidden % tp == 0) {
    i.serving.pp = wafer::fewest_wafers(i.serving, i.model, s.accelerator);
  }
  read_inference_workload(i, w, s.file, s.accelerator, tp, c.systems / tp, s.seed, s.locations, {});
}

void read_wafer_workload(Scenario& s, MapReader w) {
  note(s, w);
  std::string kind = "training";
  if (auto v = w.find("kind")) {
    note(s, *v);
    kind = v->one_of({"training", "inference"});
  }
  if (kind == "training") {
    read_wafer_training(s, w);
  } else {
    read_wafer_serving(s, w);
  }
  w.finish();
}

// The serving fabric's switch when `cost.switch` names none: Ethernet, as the systems' I/O is.
constexpr std::string_view kServingSwitch = "ethernet-64x400g";

// `cost:` of a wafer-scale cluster: the cost model's keys (docs/cost.md), the systems as its
// nodes. Training: SwarmX's nodes as its switches, plus memoryx_price. Serving: the Ethernet
// switches of `cost.switch` between the systems (no MemoryX: the weights are in SRAM). Powers
// not given come from the cluster's parts and the switch catalog; every figure Cerebras does not
// publish must be given.
void read_wafer_cost(Scenario& s, MapReader c) {
  note(s, c);
  const bool serving = s.workload == WorkloadKind::kInference;
  if (!serving) {
    c.forbid("switch", "a wafer-scale cluster trains over SwarmX (cluster.swarmx), priced by switch_price");
  } else {
    c.forbid("memoryx_price", "a service on wafers holds its weights in SRAM: it has no MemoryX");
  }
  cost::CostSpec spec;
  read_declared(c, cost::cost_parameters(), spec, [&](const ValueReader& v) { note(s, v); });
  if (!(spec.node_watts > 0)) spec.node_watts = s.wafer.system.power_w;
  if (serving) {
    hw::SwitchSpec fabric = *find_catalog_switch(kServingSwitch);
    if (auto v = c.find("switch")) {
      note(s, *v);
      fabric = catalog_switch(*v);
    }
    spec.switch_name = fabric.name;
    spec.switch_radix = fabric.radix;
    if (!(spec.switch_watts > 0)) spec.switch_watts = fabric.watts;
    if (const PriceEntry* price = find_price(fabric.name); price && !(spec.switch_usd > 0))
      spec.switch_usd = price->usd;
    s.wafer_prices.system_ports =
        static_cast<int>(std::ceil(s.wafer.system.io_bytes_per_s / fabric.port_bytes_per_s - 1e-9));
    c.finish();
    s.cost = spec;
    if (auto v = wafer::serving_cost_violation(spec, s.wafer_prices, s.wafer)) reject(s, *v, v->field);
    return;
  }
  c.declare({"memoryx_price", "input_worker_price"});
  if (auto v = c.find("memoryx_price")) {
    note(s, *v);
    s.wafer_prices.memoryx_usd = v->usd();
  }
  if (auto v = c.find("input_worker_price")) {
    note(s, *v);
    s.wafer_prices.input_worker_usd = v->usd();
  }
  c.finish();
  spec.switch_name = s.wafer.swarmx.name;
  spec.switch_radix = 0;
  if (!(spec.switch_watts > 0)) spec.switch_watts = s.wafer.swarmx.power_w;
  s.cost = spec;
  if (auto v = wafer::cost_violation(spec, s.wafer_prices, s.wafer)) reject(s, *v, v->field);
}

// `report:` of a weight-streaming training run (docs/go-live.md, "On a wafer-scale cluster").
void read_wafer_report(Scenario& s, MapReader r) {
  note(s, r);
  if (s.workload != WorkloadKind::kWaferTraining) {
    throw ScenarioError(r.location(), "report", "a training workload to report on", "an inference service on wafers");
  }
  for (std::string_view key : kGpuReportKeys) {
    r.forbid(key,
             "its row is a GPU cluster's; a wafer-scale report takes mfu, gpu_busy, bandwidth, memory_headroom, "
             "scaling, pilot and service (docs/go-live.md)");
  }
  s.report = read_report_section(r, s.file, [&](const ValueReader& v) { note(s, v); });
  r.finish();
}

}  // namespace

void read_wafer_scenario(Scenario& s, MapReader& root, MapReader& cluster) {
  s.wafer_scale = true;
  for (std::string_view section : kGpuSections) {
    if (auto v = root.find(section)) {
      v->fail("no " + std::string(section) +
                  " section: a wafer-scale scenario holds cluster, workload, expect and output (docs/wafer.md)",
              "remove it, or use a GPU cluster");
    }
  }
  read_wafer_cluster(s, cluster);
  read_wafer_workload(s, root.child("workload"));
  if (root.has("cost")) read_wafer_cost(s, root.child("cost"));
  if (root.has("report")) read_wafer_report(s, root.child("report"));
  if (root.has("plan")) read_plan(s, root.child("plan"));
  if (root.has("expect")) {
    read_expect(s, root.child("expect"));
    const bool serving = s.workload == WorkloadKind::kInference;
    for (const Expectation& e : s.expectations) {
      bool known = is_cost_expectation(e.key) || (serving && is_inference_expectation(e.key));
      for (std::string_view key : kWaferExpectKeys) known = known || (!serving && e.key == key);
      if (is_cost_expectation(e.key) && !s.cost) {
        throw ScenarioError(e.where, "expect." + e.key, "a cost: section to price the cluster with", "no cost section",
                            "add cost: with the systems' prices (docs/wafer.md)");
      }
      if (e.key == "run_cost" && !serving && !(s.wafer_training.tokens > 0)) {
        throw ScenarioError(e.where, "expect.run_cost", "a token budget to cost the run of (workload.tokens)",
                            "no workload.tokens", "add tokens: (e.g. 2e12) under workload");
      }
      if (!known) {
        throw ScenarioError(e.where, "expect." + e.key,
                            serving
                                ? "a figure of an inference service (p99_ttft, p99_tpot, p99_e2e, throughput; with "
                                  "cost: capex, tco, run_cost, it_power, facility_power)"
                                : "a figure of weight-streaming training (step_time, tokens_per_s, time_to_train, mfu)",
                            quote_found(e.text));
      }
      if (e.key == "time_to_train" && !(s.wafer_training.tokens > 0)) {
        throw ScenarioError(e.where, "expect.time_to_train", "a token budget to train for (workload.tokens)",
                            "no workload.tokens", "add tokens: (e.g. 2e12) under workload");
      }
    }
  }
  if (root.has("output")) {
    read_output(s, root.child("output"));
    if (!s.output_trace.empty() && s.workload != WorkloadKind::kInference) {
      throw ScenarioError(s.locations.at("output.trace"), "output.trace",
                          "output.json only, for a wafer-scale scenario", "a trace path");
    }
  }
  root.finish();
  if (s.workload != WorkloadKind::kWaferTraining) return;
  if (auto v = wafer::first_violation(s.wafer_training, s.wafer)) reject(s, *v, v->field);
}

}  // namespace fathom::scenario::detail
