// A wafer-scale scenario (`cluster.kind: wafer-scale`): the cluster's systems, MemoryX and
// SwarmX, a training workload run by weight streaming, and the scenario's `expect:` and `output:`
// (docs/wafer.md). The sections that describe a GPU cluster's parts (hardware, storage,
// collectives, ...) are refused by name.
#include <array>
#include <string>
#include <string_view>

#include "models/workloads/wafer/wafer_training_parameters.hpp"
#include "scenarios/declared_reader.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/scenario_reading.hpp"
#include "scenarios/wafer_catalog.hpp"

namespace fathom::scenario::detail {

namespace {

// The figures `expect:` can name for weight-streaming training.
constexpr std::array<std::string_view, 4> kWaferExpectKeys = {"step_time", "tokens_per_s", "time_to_train", "mfu"};

// Top-level sections of a GPU scenario that describe parts a wafer-scale cluster does not have,
// or questions not yet asked of one.
constexpr std::array<std::string_view, 9> kGpuSections = {
    "hardware", "calibration", "storage", "availability", "failures", "collectives", "cost", "plan", "report"};

void read_wafer_cluster(Scenario& s, MapReader& cluster) {
  const auto noted = [&](const ValueReader& v) { note(s, v); };
  wafer::WaferCluster& c = s.wafer;
  if (auto v = cluster.find("systems")) note(s, *v);
  c.systems = cluster.positive_int("systems");
  c.system = read_wafer_system(cluster.value("system", "a wafer-scale system of the catalog, or a mapping"), noted);
  c.memoryx = read_memoryx(cluster.value("memoryx", "a MemoryX of the catalog, or a mapping"), noted);
  if (auto v = cluster.find("swarmx")) {
    c.swarmx = read_swarmx(*v, noted);
  } else {
    c.swarmx = wafer_catalog().swarmx.front();
  }
  cluster.finish();
}

void read_wafer_workload(Scenario& s, MapReader w) {
  note(s, w);
  if (auto v = w.find("kind")) {
    note(s, *v);
    if (v->as<std::string>("a workload kind") != "training") {
      v->fail("training (the workload a wafer-scale cluster runs: weight streaming)",
              "serving on wafers is not modelled yet; docs/wafer.md");
    }
  }
  s.workload = WorkloadKind::kWaferTraining;
  wafer::WaferTrainingSpec& t = s.wafer_training;
  t.model = read_model(s, w);
  read_declared(w, wafer::wafer_training_parameters(), t, [&](const ValueReader& v) { note(s, v); });
  if (!w.has("global_batch")) w.value("global_batch", "samples per step over every system");
  w.finish();
}

}  // namespace

void read_wafer_scenario(Scenario& s, MapReader& root, MapReader& cluster) {
  for (std::string_view section : kGpuSections) {
    if (auto v = root.find(section)) {
      v->fail("no " + std::string(section) +
                  " section: a wafer-scale scenario holds cluster, workload, expect and output (docs/wafer.md)",
              "remove it, or use a GPU cluster");
    }
  }
  read_wafer_cluster(s, cluster);
  read_wafer_workload(s, root.child("workload"));
  if (root.has("expect")) {
    read_expect(s, root.child("expect"));
    for (const Expectation& e : s.expectations) {
      bool known = false;
      for (std::string_view key : kWaferExpectKeys) known = known || e.key == key;
      if (!known) {
        throw ScenarioError(e.where, "expect." + e.key,
                            "a figure of weight-streaming training (step_time, tokens_per_s, time_to_train, mfu)",
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
    if (!s.output_trace.empty()) {
      throw ScenarioError(s.locations.at("output.trace"), "output.trace",
                          "output.json only, for a wafer-scale scenario", "a trace path");
    }
  }
  root.finish();
  if (auto v = wafer::first_violation(s.wafer_training, s.wafer)) reject(s, *v, v->field);
}

}  // namespace fathom::scenario::detail
