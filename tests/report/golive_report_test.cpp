// The go-live report (report/golive/): its rows agree with the models they come from, fail
// when the cluster misses a target, and its renderers are self-contained.
#include "report/golive/golive_report.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "report/cost/cost_report.hpp"
#include "report/golive/golive_writers.hpp"
#include "report/golive/svg_chart.hpp"
#include "report/inference/inference_report.hpp"
#include "report/training/training_labels.hpp"
#include "report/training/training_report.hpp"
#include "scenarios/scenario.hpp"

namespace fathom::report {
namespace {

std::string example(const std::string& name) { return std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/" + name; }

const Criterion& row(const GoLiveReport& g, const std::string& prefix) {
  const auto it = std::find_if(g.criteria.begin(), g.criteria.end(),
                               [&](const Criterion& c) { return c.name.rfind(prefix, 0) == 0; });
  REQUIRE_MESSAGE(it != g.criteria.end(), "no row " << prefix);
  return *it;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The pilot and production reports, evaluated once for the cases below (the production step
// takes a few seconds).
const GoLiveReport& pilot_report() {
  static const GoLiveReport g = evaluate_golive(scenario::load_scenario(example("pilot-16-nodes.yaml")));
  return g;
}
const GoLiveReport& production_report() {
  static const GoLiveReport g = evaluate_golive(scenario::load_scenario(example("production-2048-nodes.yaml")));
  return g;
}

TEST_CASE("golive: the MFU and GPU rows are the training model's figures, and MFU decomposes exactly") {
  const GoLiveReport& g = pilot_report();
  const scenario::Scenario s = scenario::load_scenario(example("pilot-16-nodes.yaml"));
  const TrainingReport t = evaluate_training(s);
  REQUIRE(t.fits());
  CHECK(g.cluster.training.result.mfu == t.result.mfu);
  const Criterion& mfu = row(g, "Training throughput");
  // The pilot's `expect: mfu: ">= 0.30"` is the target, and its verdict is the model's.
  CHECK(mfu.target.find(">= 0.30") != std::string::npos);
  CHECK(mfu.verdict == (t.result.mfu >= 0.30 ? Verdict::kPass : Verdict::kFail));
  CHECK(mfu.margin == doctest::Approx(t.result.mfu / 0.30));
  // The note says what share of the peak is reachable: MFU = busy x kernels x useful.
  const ReachablePeak& p = *g.cluster.peak;
  CHECK(p.busy * p.kernel_efficiency * p.useful == doctest::Approx(t.result.mfu).epsilon(1e-9));
  CHECK(p.ceiling > t.result.mfu);
  CHECK(p.ceiling < 1);
  CHECK(p.compute_share + p.bubble_share + p.communication_share + p.optimizer_share + p.straggler_share ==
        doctest::Approx(1));
  CHECK(p.straggler_share > 0);
  CHECK(mfu.note.find("at most") != std::string::npos);

  const Criterion& gpu = row(g, "GPU utilisation");
  CHECK(p.busy == doctest::Approx(training_usage(s, t.result).busy_fraction));
  CHECK(gpu.verdict == (p.busy >= s.report.gpu_busy ? Verdict::kPass : Verdict::kFail));
}

TEST_CASE("golive: the bandwidth row is a simulated all-reduce over the NICs' line rate") {
  const GoLiveReport& g = pilot_report();
  REQUIRE(g.cluster.bandwidth);
  const FabricBandwidth& f = *g.cluster.bandwidth;
  const scenario::Scenario& s = g.scenario();
  CHECK(f.gpus == 128);
  CHECK_FALSE(f.closed_form);
  CHECK(f.line_rate_bytes_per_s == doctest::Approx(2 * 12.5e9));  // 2 x 100 Gb/s per node
  // The NICs' efficiency bounds it; a healthy non-blocking fabric comes close to that bound.
  CHECK(f.utilisation() <= s.collectives.efficiency.nic + 1e-9);
  CHECK(f.utilisation() > 0.5);
  const Criterion& c = row(g, "Inter-node bandwidth");
  CHECK(c.verdict == (f.utilisation() >= 0.80 ? Verdict::kPass : Verdict::kFail));
  // The production cluster's check spans its first 32 nodes, timed by the closed form.
  REQUIRE(production_report().cluster.bandwidth);
  CHECK(production_report().cluster.bandwidth->nodes == 32);
  CHECK(production_report().cluster.bandwidth->closed_form);
}

TEST_CASE("golive: the memory row holds the peak rank to HBM with headroom, and fails when HBM shrinks") {
  const GoLiveReport& g = pilot_report();
  const train::MemoryReport& m = g.cluster.training.result.memory;
  const Criterion& ok = row(g, "72-hour run");
  CHECK(ok.verdict == (m.peak_bytes <= 0.9 * m.capacity_bytes ? Verdict::kPass : Verdict::kFail));
  CHECK(ok.margin == doctest::Approx(0.9 * m.capacity_bytes / m.peak_bytes));

  // Usable HBM just above the peak: the step runs, but without the headroom the row fails.
  const double fraction = 1.02 * m.peak_bytes / m.capacity_bytes;
  const GoLiveReport tight = evaluate_golive(scenario::load_scenario(
      example("pilot-16-nodes.yaml"), {"workload.memory_fraction=" + std::to_string(fraction)}));
  CHECK(tight.cluster.training.fits());
  CHECK(row(tight, "72-hour run").verdict == Verdict::kFail);
  CHECK_FALSE(row(tight, "72-hour run").remedy.empty());
  CHECK_FALSE(tight.all_pass());

  // Half the HBM: the strategy does not fit, no step is simulated and the rows that need one
  // say so instead of passing.
  const GoLiveReport oom =
      evaluate_golive(scenario::load_scenario(example("pilot-16-nodes.yaml"), {"workload.memory_fraction=0.5"}));
  CHECK_FALSE(oom.cluster.training.fits());
  CHECK(row(oom, "72-hour run").verdict == Verdict::kFail);
  CHECK(row(oom, "72-hour run").predicted.find("does not fit") != std::string::npos);
  CHECK(row(oom, "Training throughput").verdict == Verdict::kNotEvaluated);
  CHECK(row(oom, "GPU utilisation").verdict == Verdict::kNotEvaluated);
  CHECK_FALSE(oom.all_pass());
  std::ostringstream html;
  write_golive_html(html, oom);
  CHECK(html.str().find("does not fit in memory") != std::string::npos);
}

TEST_CASE("golive: pilot then production, with the scaling efficiency of tokens/s per GPU") {
  const GoLiveReport& g = production_report();
  REQUIRE(g.pilot);
  const TrainingReport& prod = g.cluster.training;
  const TrainingReport& pilot = g.pilot->training;
  REQUIRE(prod.fits());
  REQUIRE(pilot.fits());
  CHECK(pilot.scenario.training.gpus == 128);
  CHECK(prod.scenario.training.gpus == 16384);
  // The pilot is the example's own pilot, run as `fathom simulate` runs it.
  const TrainingReport direct = evaluate_training(scenario::load_scenario(example("pilot-16-nodes.yaml")));
  CHECK(pilot.result.tokens_per_s == direct.result.tokens_per_s);
  const double efficiency = (prod.result.tokens_per_s / 16384) / (pilot.result.tokens_per_s / 128);
  const Criterion& c = row(g, "Pilot then production");
  CHECK(c.margin == doctest::Approx(efficiency / g.scenario().report.scaling));
  CHECK(c.verdict == (efficiency >= 0.90 ? Verdict::kPass : Verdict::kFail));
  // The time-to-train row is the scenario's deadline.
  const Criterion& deadline = row(g, "Time to train");
  CHECK(deadline.target.find("<= 30d") != std::string::npos);
  // The pilot alone has no pilot to compare with.
  CHECK(row(pilot_report(), "Pilot then production").verdict == Verdict::kNotEvaluated);
  // Side by side: the pilot's column filled.
  const std::vector<SideBySideRow> rows = side_by_side(g);
  REQUIRE(rows.size() > 5);
  for (const auto& r : rows) CHECK_FALSE(r.pilot.empty());
}

TEST_CASE("golive: rows without what they need are not evaluated and never fail the report") {
  const GoLiveReport& g = pilot_report();
  // The registry: one entry per criterion id.
  std::set<std::string_view> ids;
  for (const CriterionRule& r : golive_criteria()) CHECK(ids.insert(r.id).second);
  // Without report.service, the inference rows say how to get them.
  for (const char* name : {"P99 inference latency (time to first token)",
                           "P99 inference latency (time per output token)", "Inference throughput per GPU"}) {
    const Criterion& c = row(g, name);
    CHECK(c.verdict == Verdict::kNotEvaluated);
    CHECK(c.remedy.find("report.service") != std::string::npos);
  }
  // A row not evaluated (no whole run, no service) never fails the report.
  for (const char* name : {"P99 inference latency", "Inference throughput per GPU", "Storage IOPS",
                           "Data loading per sample", "Recovery from a failure", "Availability of a service"}) {
    GoLiveReport copy;
    copy.criteria = {row(g, name)};
    CHECK(copy.all_pass());
  }
  CHECK(row(g, "Recovery from a failure").verdict == Verdict::kNotEvaluated);
  CHECK(row(g, "Effective training time").verdict == Verdict::kNotEvaluated);
  CHECK(row(g, "Availability of a service").verdict == Verdict::kNotEvaluated);
  CHECK(row(g, "Storage IOPS").verdict == Verdict::kNotEvaluated);
  CHECK(row(g, "Data loading per sample").verdict == Verdict::kNotEvaluated);
}

TEST_CASE("golive: the inference service's P99 latencies are held to its SLO, its throughput per GPU reported") {
  const GoLiveReport& g = production_report();
  REQUIRE(g.service);
  const InferenceReport alone =
      evaluate_inference(scenario::load_scenario(example("llama3-70b-azure-conversation.yaml")));
  const infer::ServiceMetrics& m = alone.metrics;
  // The same service as `fathom simulate` runs it.
  CHECK(g.service->metrics.ttft_s.p99 == m.ttft_s.p99);
  CHECK(g.service->metrics.tpot_s.p99 == m.tpot_s.p99);
  const infer::Slo& slo = alone.scenario.inference.slo;
  const Criterion& ttft = row(g, "P99 inference latency (time to first token)");
  CHECK(ttft.predicted == duration_text(m.ttft_s.p99));
  CHECK(ttft.verdict == (m.ttft_s.p99 <= slo.ttft_s ? Verdict::kPass : Verdict::kFail));
  CHECK(ttft.target.find("workload.slo.ttft") != std::string::npos);
  CHECK(ttft.margin == doctest::Approx(slo.ttft_s / m.ttft_s.p99));
  const Criterion& tpot = row(g, "P99 inference latency (time per output token)");
  CHECK(tpot.predicted == duration_text(m.tpot_s.p99));
  CHECK(tpot.verdict == (m.tpot_s.p99 <= slo.tpot_s ? Verdict::kPass : Verdict::kFail));
  // Two TP-4 replicas: eight GPUs for the whole run.
  const Criterion& per_gpu = row(g, "Inference throughput per GPU");
  CHECK(per_gpu.verdict == Verdict::kReported);
  char tokens[32];
  std::snprintf(tokens, sizeof tokens, "%.0f output tokens/s", m.throughput_tokens_per_s / 8);
  CHECK(per_gpu.predicted.rfind(tokens, 0) == 0);
  // One replica misses the TPOT (docs/inference.md): the row fails and says what to change.
  GoLiveReport single;
  single.service = evaluate_inference(
      scenario::load_scenario(example("llama3-70b-azure-conversation.yaml"), {"workload.serving.replicas=1"}));
  REQUIRE(single.service->metrics.tpot_s.p99 > slo.tpot_s);
  const auto rule = std::find_if(golive_criteria().begin(), golive_criteria().end(),
                                 [](const CriterionRule& r) { return r.id == "inference"; });
  REQUIRE(rule != golive_criteria().end());
  single.criteria = rule->evaluate(single);
  const Criterion& missed = row(single, "P99 inference latency (time per output token)");
  CHECK(missed.verdict == Verdict::kFail);
  CHECK(missed.margin < 1);
  CHECK(missed.remedy.find("more replicas") != std::string::npos);
  CHECK_FALSE(single.all_pass());
}

TEST_CASE("golive: report.service must name an inference scenario") {
  try {
    evaluate_golive(scenario::load_scenario(example("pilot-16-nodes.yaml"), {"report.service=pilot-16-nodes.yaml"}));
    FAIL("a training scenario was taken as the service");
  } catch (const scenario::ScenarioError& e) {
    CHECK(e.key_path() == "report.service");
  }
}

TEST_CASE("golive: a whole run and a service fill the recovery, effective training time and availability rows") {
  const scenario::Scenario s = scenario::load_scenario(
      example("production-2048-nodes-run.yaml"), {"workload.run.replications=4", "report.pilot=pilot-16-nodes.yaml"});
  const GoLiveReport g = evaluate_golive(s);
  const Criterion& recovery = row(g, "Recovery from a failure");
  // Detection and restart alone take 20 minutes at their defaults: the 5-minute target fails.
  CHECK(recovery.verdict == Verdict::kFail);
  CHECK(recovery.target.find("report.recovery_time") != std::string::npos);
  CHECK(row(g, "Effective training time").verdict == Verdict::kFail);
  const Criterion& availability = row(g, "Availability of a service");
  CHECK(availability.verdict == Verdict::kPass);
  CHECK(availability.note.find("no closed form") != std::string::npos);
  // The time-to-train row is the whole run's.
  CHECK(row(g, "Time to train").note.find("whole run") != std::string::npos);
  // Data: 16 int32 sequences a loading node, 16 reads of 1 ms over 2 workers: 0.5 ms a sample.
  CHECK(row(g, "Data loading per sample").verdict == Verdict::kPass);
  CHECK(row(g, "Data loading per sample").predicted == "0.500 ms");
  CHECK(row(g, "Storage IOPS").verdict == Verdict::kNotEvaluated);  // the tier gives no IOPS
}

TEST_CASE("golive: the storage rows hold the data tier's IOPS and the cold read per sample to their targets") {
  const scenario::Scenario s = scenario::load_scenario(
      example("production-2048-nodes-run.yaml"), {"workload.run.replications=2", "report.pilot=pilot-16-nodes.yaml",
                                                  "storage.gluster.iops=400000", "storage.gluster.latency=10ms"});
  const GoLiveReport g = evaluate_golive(s);
  const Criterion& iops = row(g, "Storage IOPS");
  CHECK(iops.verdict == Verdict::kFail);
  CHECK(iops.predicted.rfind("400K", 0) == 0);
  const Criterion& load = row(g, "Data loading per sample");
  CHECK(load.verdict == Verdict::kFail);  // 10 ms a read, two in flight: 5 ms a sample
  CHECK(load.predicted == "5.000 ms");
  CHECK(load.remedy.find("workers") != std::string::npos);
}

TEST_CASE("golive: the renderers show every row; the HTML page fetches nothing") {
  const GoLiveReport& g = production_report();
  std::ostringstream md, html;
  write_golive_markdown(md, g);
  write_golive_html(html, g);
  for (const Criterion& c : g.criteria) {
    CHECK(md.str().find(c.name) != std::string::npos);
    CHECK(html.str().find(escape_markup(c.name)) != std::string::npos);
  }
  const std::string page = html.str();
  CHECK(count(page, "<tr class=\"criterion") == g.criteria.size());
  CHECK(count(page, "<svg") == 3);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find(" src=") == std::string::npos);
  CHECK(page.find(" href=") == std::string::npos);
  CHECK(page.find("@import") == std::string::npos);
  // Two step bars (pilot, production) of up to 8 components, 8 stages of memory.
  CHECK(count(page, "class=\"bar\"") > 2 + 8 * 4);
}

TEST_CASE("golive: the chart draws a rectangle per non-zero value, with its value in a title") {
  StackedChart c;
  c.id = "t";
  c.title = "a <title>";
  c.axis_label = "seconds";
  c.series = {"a", "b"};
  c.bars = {{"x", {1, 2}}, {"y", {0, 3}}};
  c.markers = {{"limit", 4}};
  const std::string svg = stacked_chart_svg(c);
  CHECK(count(svg, "class=\"bar\"") == 3);
  CHECK(svg.find("a &lt;title&gt;") != std::string::npos);
  CHECK(svg.find("<title>y: b 3</title>") != std::string::npos);
  CHECK(count(svg, "class=\"marker\"") == 1);
}

TEST_CASE("golive: report: is read strictly, the pilot relative to the scenario") {
  const scenario::Scenario s = scenario::load_scenario(example("production-2048-nodes.yaml"));
  CHECK(s.report.pilot == example("pilot-16-nodes.yaml"));
  CHECK(s.report.memory_headroom == 0.10);
  const auto fails = [](const std::vector<std::string>& sets, const std::string& wanted) {
    try {
      (void)scenario::load_scenario(example("pilot-16-nodes.yaml"), sets);
      FAIL("loaded");
    } catch (const scenario::ScenarioError& e) {
      CHECK_MESSAGE(std::string(e.what()).find(wanted) != std::string::npos, e.what());
    }
  };
  fails({"report.pilot=no-such-pilot.yaml"}, "report.pilot: expected the pilot's scenario file");
  fails({"report.pilott=x.yaml"}, "did you mean \"pilot\"");
  fails({"report.memory_headroom=95%"}, "report.memory_headroom");
  const scenario::Scenario h = scenario::load_scenario(example("pilot-16-nodes.yaml"), {"report.mfu=45%"});
  CHECK(h.report.mfu == doctest::Approx(0.45));
}

}  // namespace
}  // namespace fathom::report
