// The go-live report of a wafer-scale training cluster (report/golive/wafer_golive.hpp): its rows
// are the weight-streaming model's figures, MFU splits exactly into its factors, the stream check
// equals the tandem line's closed form, a miss fails, and bad report: input is a located error.
#include "report/golive/wafer_golive.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "models/workloads/training/transformer.hpp"
#include "models/workloads/wafer/weight_streaming.hpp"
#include "report/golive/criterion_rows.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::report {
namespace {

std::string example(const std::string& name) { return std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/" + name; }

const Criterion& row(const WaferGoLiveReport& g, const std::string& prefix) {
  const auto it = std::find_if(g.criteria.begin(), g.criteria.end(),
                               [&](const Criterion& c) { return c.name.rfind(prefix, 0) == 0; });
  REQUIRE_MESSAGE(it != g.criteria.end(), "no row " << prefix);
  return *it;
}

WaferGoLiveReport pilot(const std::vector<std::string>& overrides = {}) {
  return evaluate_wafer_golive(scenario::load_scenario(example("cs3-llama3-70b-weight-streaming.yaml"), overrides));
}

TEST_CASE("wafer golive: MFU is busy x efficiency x useful share, exactly, and its row is the model's figure") {
  for (const char* recompute : {"none", "selective", "full"}) {
    CAPTURE(recompute);
    // Without recomputation every FLOP executed is the model's; with it, fewer are.
    const WaferGoLiveReport g = pilot({"workload.model=llama3-8b", "workload.sequence=2048",
                                       std::string("workload.recompute=") + recompute, "workload.micro_batch=1"});
    const WaferPeak& p = g.peak;
    const wafer::WaferStep& s = g.cluster.step;
    CHECK(s.utilization == doctest::Approx(p.busy * p.efficiency * p.useful).epsilon(1e-12));
    CHECK(p.busy == doctest::Approx(s.compute_s / s.step_s).epsilon(1e-12));
    CHECK(p.efficiency == 0.5);
    if (std::string(recompute) == "none") CHECK(p.useful == doctest::Approx(1).epsilon(1e-12));
    // The model's FLOPs are three forwards; a unit's backward carries what recomputation redoes.
    double forward = 0, executed = 0;
    for (const wafer::StreamUnit& u : wafer::stream_units(g.scenario().wafer_training)) {
      forward += u.forward_flops;
      executed += u.forward_flops + u.backward_flops;
    }
    CHECK(p.useful == doctest::Approx(3 * forward / executed).epsilon(1e-12));
    if (std::string(recompute) == "full") CHECK(p.useful < 0.8);
    const Criterion& mfu = row(g, "Training throughput");
    CHECK(mfu.predicted == criteria::percent(s.utilization));
    CHECK(mfu.verdict == (s.utilization >= 0.38 ? Verdict::kPass : Verdict::kFail));
    CHECK(mfu.margin == doctest::Approx(s.utilization / 0.38));
  }
  // The scenario's own target replaces the report's.
  const WaferGoLiveReport held = pilot({"expect={mfu: \">= 0.10\"}"});
  CHECK(row(held, "Training throughput").verdict == Verdict::kPass);
  CHECK(row(held, "Training throughput").target.find("expect: mfu") != std::string::npos);
}

TEST_CASE("wafer golive: the weight stream's utilisation is the tandem line's closed form") {
  // Every hop at 150 GB/s (MemoryX, SwarmX's links and the system's I/O are all 1.2 Tb/s): a layer's
  // B bytes in chunks of c over H hops of latency L take H L + (H - 1) c / R + B / R.
  for (const char* latency : {"1us", "100us", "2ms"}) {
    CAPTURE(latency);
    const WaferGoLiveReport g = pilot({std::string("cluster.swarmx={base: swarmx, hop_latency: ") + latency + "}"});
    const WaferPeak& p = g.peak;
    const double rate = 150e9, chunk = 1 << 20;
    const double hop_latency = std::string(latency) == "1us" ? 1e-6 : std::string(latency) == "100us" ? 1e-4 : 2e-3;
    REQUIRE(p.hops == 4);  // MemoryX, two SwarmX levels between three, the system: 64 systems at fan-out 4
    CHECK(p.line_rate_bytes_per_s == doctest::Approx(rate));
    const double seconds = p.hops * hop_latency + (p.hops - 1) * chunk / rate + p.layer_stream_bytes / rate;
    CHECK(g.cluster.step.layer_weight_stream_s == doctest::Approx(seconds).epsilon(1e-9));
    CHECK(p.stream_utilisation() == doctest::Approx(p.layer_stream_bytes / rate / seconds).epsilon(1e-9));
    const Criterion& c = row(g, "Weight-stream bandwidth");
    CHECK(c.verdict == (p.stream_utilisation() >= 0.8 ? Verdict::kPass : Verdict::kFail));
    if (std::string(latency) == "2ms") {
      CHECK(c.verdict == Verdict::kFail);  // 8 ms of fill beside an 11 ms stream
      CHECK(c.remedy.find("fan-out") != std::string::npos);
    }
  }
  // The layer's bytes are its parameters at the stream's bytes a parameter.
  const WaferGoLiveReport g = pilot();
  const std::vector<wafer::StreamUnit> units = wafer::stream_units(g.scenario().wafer_training);
  CHECK(g.peak.layer_stream_bytes == doctest::Approx(2 * units.at(1).parameters));
}

TEST_CASE("wafer golive: memory rows hold SRAM to the headroom and MemoryX to its capacity") {
  const WaferGoLiveReport g = pilot();
  const wafer::WaferMemory& m = g.cluster.step.memory;
  const Criterion& sram = row(g, "72-hour run without OOM (wafer SRAM)");
  CHECK(sram.verdict == (m.sram_bytes() <= 0.9 * m.sram_capacity ? Verdict::kPass : Verdict::kFail));
  CHECK(sram.margin == doctest::Approx(0.9 * m.sram_capacity / m.sram_bytes()));
  const Criterion& memoryx = row(g, "Parameters and optimizer state in MemoryX");
  CHECK(memoryx.verdict == Verdict::kPass);
  CHECK(memoryx.margin == doctest::Approx(m.memoryx_capacity / m.memoryx_bytes));
  // Three samples of 8,192 tokens do not fit at all; two fit with 26% free; at a headroom of 30%
  // the row fails and names the micro-batch.
  const WaferGoLiveReport tight = pilot({"report={memory_headroom: 30%}"});
  const Criterion& t = row(tight, "72-hour run without OOM (wafer SRAM)");
  CHECK(t.verdict == Verdict::kFail);
  CHECK(t.remedy.find("micro_batch") != std::string::npos);
  CHECK_FALSE(tight.all_pass());
}

TEST_CASE("wafer golive: the pilot's scaling, the service's rows, cost rows and what is not modelled") {
  const WaferGoLiveReport g = evaluate_wafer_golive(scenario::load_scenario(example("cs3-llama3-70b-golive.yaml")));
  REQUIRE(g.pilot);
  REQUIRE(g.service);
  // The same 16 samples a system on 2,048 systems as on 64: only the deeper tree's fill differs.
  const double here = g.cluster.step.tokens_per_s / 2048, there = g.pilot->step.tokens_per_s / 64;
  const Criterion& scaling = row(g, "Pilot then production");
  CHECK(scaling.margin == doctest::Approx(here / there / 0.9));
  CHECK(here / there > 0.99);
  CHECK(here / there <= 1);
  CHECK(scaling.verdict == Verdict::kPass);
  // A service on wafers reports its throughput per wafer.
  CHECK(row(g, "Inference throughput per wafer").verdict == Verdict::kReported);
  CHECK(row(g, "P99 inference latency (time per output token)").predicted != "");
  // With cost: the five cost rows, reported without an expect:, and the deadline held.
  for (const char* name : {"Capital cost", "Total cost of ownership", "IT power", "Facility power", "Cost of the run"})
    CHECK(row(g, name).verdict == Verdict::kReported);
  CHECK(row(g, "Time to train").verdict == Verdict::kPass);
  int not_modelled = 0;
  for (const Criterion& c : g.criteria) not_modelled += c.verdict == Verdict::kNotModelled;
  CHECK(not_modelled == 5);
  CHECK(row(g, "Recovery from a failure").verdict == Verdict::kNotModelled);

  // The page: both renderers show every row; the HTML has the step and SRAM charts.
  const GoLiveDocument d = wafer_golive_document(g);
  CHECK(d.pilot);
  CHECK(d.criteria.size() == g.criteria.size());
  std::ostringstream md, html;
  write_golive_markdown(md, d);
  write_golive_html(html, d);
  for (const Criterion& c : g.criteria) {
    CHECK(md.str().find(c.name) != std::string::npos);
    CHECK(html.str().find(c.name) != std::string::npos);
  }
  CHECK(html.str().find("id=\"step-chart\"") != std::string::npos);
  CHECK(html.str().find("id=\"memory-chart\"") != std::string::npos);
  CHECK(md.str().find("| tokens/s per system | 4358 |") != std::string::npos);
}

TEST_CASE("wafer golive: report: keys a wafer-scale report has no row for, and pilots of the wrong kind, are errors") {
  const std::string file = example("cs3-llama3-70b-weight-streaming.yaml");
  for (const char* key : {"bandwidth_nodes: 8", "recovery_time: 10min", "storage_iops: 1e6"}) {
    CAPTURE(key);
    try {
      (void)scenario::load_scenario(file, {std::string("report={") + key + "}"});
      FAIL("loaded");
    } catch (const scenario::ScenarioError& e) {
      const std::string what = e.what();
      CHECK(what.find("report." + std::string(key).substr(0, std::string(key).find(':'))) != std::string::npos);
      CHECK(what.find("GPU cluster") != std::string::npos);
    }
  }
  // A service on wafers has no go-live report (it is a training run's).
  CHECK_THROWS_AS(scenario::load_scenario(example("cs3-llama3.1-70b-serving.yaml"), {"report={mfu: 0.3}"}),
                  scenario::ScenarioError);
  // A GPU scenario as a wafer cluster's pilot.
  try {
    (void)evaluate_wafer_golive(scenario::load_scenario(file, {"report={pilot: pilot-16-nodes.yaml}"}));
    FAIL("evaluated");
  } catch (const scenario::ScenarioError& e) {
    CHECK(std::string(e.what()).find("report.pilot") != std::string::npos);
    CHECK(std::string(e.what()).find("wafer-scale") != std::string::npos);
  }
}

}  // namespace
}  // namespace fathom::report
