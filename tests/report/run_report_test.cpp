// The whole run in the training report: the checkpoint's write as the max-min closed form says,
// the run summarised, the same bytes on any thread count, and a checkpoint too large for its tier.
#include <doctest/doctest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "models/workloads/training/transformer.hpp"
#include "report/training/training_report.hpp"
#include "scenarios/scenario.hpp"

using namespace fathom;

namespace {

std::string example(const std::string& name) { return std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/" + name; }

}  // namespace

TEST_CASE("the Llama 3 54-day run: the checkpoint's write is the max-min closed form") {
  const scenario::Scenario s =
      scenario::load_scenario(example("llama3-405b-54-days.yaml"), {"workload.run.replications=8"});
  const report::TrainingReport r = report::evaluate_training(s);
  REQUIRE(r.run_setup.has_value());
  REQUIRE(r.run.has_value());
  // 14 bytes per parameter, written by every node at once: each node's 400 Gb/s NICs (8 x 50 GB/s)
  // are far above its share of the tier's 2 TB/s, so every node writes at 2e12 / 2048 B/s.
  const double bytes = train::parameter_count(s.training.model) * 14;
  CHECK(r.run_setup->checkpoint->bytes == doctest::Approx(bytes));
  CHECK(r.run_setup->write_s == doctest::Approx(bytes / 2048 / (2e12 / 2048)));
  // Daly's interval in whole steps.
  CHECK(r.run_setup->interval_steps == static_cast<int>(std::round(r.run_setup->daly_s / r.result.step_seconds)));
  CHECK(r.run->interruptions.mean > 350);
  CHECK(r.run->effective_training_time.mean > 0.5);
  CHECK(r.run->effective_training_time.mean < 1.0);
}

TEST_CASE("the whole run's JSON is the same bytes on one thread or many") {
  const scenario::Scenario s =
      scenario::load_scenario(example("llama3-405b-54-days.yaml"), {"workload.run.replications=16"});
  std::ostringstream one, many;
  {
    tbb::global_control only(tbb::global_control::max_allowed_parallelism, 1);
    report::write_training_json(one, report::evaluate_training(s));
  }
  report::write_training_json(many, report::evaluate_training(s));
  CHECK(one.str() == many.str());
  CHECK(one.str().find("\"effective_training_time\"") != std::string::npos);
}

TEST_CASE("a checkpoint larger than its tier is an error at the tier's capacity") {
  const scenario::Scenario s = scenario::load_scenario(
      example("llama3-405b-54-days.yaml"), {"workload.run.replications=2", "storage.tectonic.capacity=1TB"});
  try {
    report::evaluate_training(s);
    FAIL("a 5.7 TB checkpoint fitted a 1 TB tier");
  } catch (const scenario::ScenarioError& e) {
    CHECK(e.key_path() == "storage.tectonic.capacity");
    CHECK(std::string(e.what()).find("5.68 TB") != std::string::npos);
  }
}

TEST_CASE("the trace shows the whole run's first replication: training, checkpoints, failures, recoveries") {
  const scenario::Scenario s =
      scenario::load_scenario(example("llama3-405b-54-days.yaml"), {"workload.run.replications=2"});
  const report::TrainingReport r = report::evaluate_training(s);
  std::ostringstream trace;
  report::write_training_trace(trace, r);
  const std::string text = trace.str();
  for (const char* name : {"whole run (replication 0)", "\"checkpoint\"", "\"detection\"", "\"restart\"", "\"hbm\""}) {
    CHECK(text.find(name) != std::string::npos);
  }
  // The timeline's slices tile replication 0's run: training and recovery never overlap.
  const auto& timeline = r.run->replications.front().timeline;
  std::int64_t busy_until = 0;
  for (const rel::RunEvent& e : timeline) {
    if (e.kind == rel::RunEvent::Kind::kTraining || e.kind == rel::RunEvent::Kind::kRestart) {
      CHECK(e.start_ns >= busy_until);
      busy_until = e.end_ns;
    }
  }
}

TEST_CASE("the production run: tiers, spares and the checkpoint store's availability in one report") {
  const scenario::Scenario s =
      scenario::load_scenario(example("production-2048-nodes-run.yaml"), {"workload.run.replications=4"});
  const report::TrainingReport r = report::evaluate_training(s);
  REQUIRE(r.availability.has_value());
  REQUIRE(r.availability->closed_form == std::nullopt);  // a failover time: simulated only
  CHECK(r.availability->simulated.mean > 0.999);
  REQUIRE(r.run_setup.has_value());
  CHECK(r.run->inputs.spares == 32);
  CHECK(r.run->inputs.checkpoint_interval == 1000);
  // On a storage network of its own, a replica-3 volume: clients write at a third of the raw
  // 400 GB/s, shared by 2,048 nodes whose 2 x 100 Gb/s NICs are far above their share.
  const report::TrainingReport apart = report::evaluate_training(
      scenario::load_scenario(example("production-2048-nodes-run.yaml"),
                              {"workload.run.replications=4", "storage.gluster.attach=storage_network"}));
  const double bytes = apart.run_setup->checkpoint->bytes;
  const double closed_form = 1e-3 + bytes / (400e9 / 3);
  CHECK(apart.run_setup->write_s == doctest::Approx(closed_form).epsilon(1e-9));
  // On the fabric the same servers sit behind one storage leaf whose 8 uplinks carry exactly their
  // 400 GB/s: the ECMP hash of 4,096 NIC flows over 8 spines loads some uplinks more, never less.
  CHECK(r.run_setup->write_s > closed_form);
  CHECK(r.run_setup->write_s < 1.2 * closed_form);
}

TEST_CASE("a data stall lengthens the time to train and the run's steps, outside the effective training time") {
  // The production run with its samples 10 MB each from the GlusterFS tier: 16 samples a loading
  // node, 160 MB at the 512 loading nodes' share of 400 GB/s (781 MB/s): 0.2 s, well under the
  // step, so no stall; then with the tier at 4 GB/s, 20.5 s a read: the step waits the difference.
  // The tier on a storage network of its own, where the closed form is exact.
  const std::vector<std::string> sets = {"workload.run.replications=2", "workload.data.bytes_per_token=0",
                                         "workload.data.bytes_per_sample=10MB",
                                         "storage.gluster.attach=storage_network"};
  const report::TrainingReport fast =
      report::evaluate_training(scenario::load_scenario(example("production-2048-nodes-run.yaml"), sets));
  REQUIRE(fast.data.has_value());
  CHECK(fast.data->cold.seconds == doctest::Approx(160e6 / (400e9 / 512)));
  CHECK(fast.data->stall_s == 0);
  // On the fabric the 512 loading nodes read through it at once: its links and the ECMP hash can
  // only slow the read.
  std::vector<std::string> on_fabric = sets;
  on_fabric.back() = "storage.gluster.attach=fabric";
  const report::TrainingReport shared =
      report::evaluate_training(scenario::load_scenario(example("production-2048-nodes-run.yaml"), on_fabric));
  CHECK(shared.data->cold.limit == "fabric");
  // Its traffic beside the steps: the step on what the read leaves of the links, every step.
  CHECK(shared.data->link_load[0] > 0);
  CHECK(shared.data->traffic_step_s >= shared.result.step_seconds);
  CHECK(shared.data->traffic_slowdown_s == doctest::Approx(shared.data->traffic_step_s - shared.result.step_seconds));
  CHECK(shared.run->inputs.data_stall_ns ==
        sim::SimTime::from_seconds(shared.data->stall_s + shared.data->traffic_slowdown_s).ns());
  CHECK(fast.data->traffic_step_s == 0);
  CHECK(shared.data->cold.seconds >= fast.data->cold.seconds);
  CHECK(shared.data->cold.seconds < 1.5 * fast.data->cold.seconds);
  std::vector<std::string> slow_sets = sets;
  slow_sets.push_back("storage.gluster.network=2Gbps");  // 16 servers x 250 MB/s: 4 GB/s
  const report::TrainingReport slow =
      report::evaluate_training(scenario::load_scenario(example("production-2048-nodes-run.yaml"), slow_sets));
  const double read = 160e6 / (4e9 / 512);
  const double step = slow.result.step_seconds;
  CHECK(slow.data->stall_s == doctest::Approx(read - step));
  CHECK(slow.result.time_to_train_s == doctest::Approx(fast.result.time_to_train_s * read / step));
  REQUIRE(slow.run.has_value());
  CHECK(slow.run->inputs.step_ns == sim::SimTime::from_seconds(read).ns());
  CHECK(slow.run->mean_time.data_ns > 0);
  std::ostringstream json;
  report::write_training_json(json, slow);
  CHECK(json.str().find("\"data_stall_fraction\"") != std::string::npos);
}

TEST_CASE("a whole run's cost: its wall time, the spare nodes bought beside the cluster, its storage tiers") {
  const scenario::Scenario s =
      scenario::load_scenario(example("plan-checkpoint-and-spares.yaml"), {"workload.run.replications=4"});
  const report::TrainingReport r = report::evaluate_training(s);
  REQUIRE(r.run.has_value());
  REQUIRE(r.cost.has_value());
  const cost::CostResult& c = *r.cost;
  // 32 spares and no idle node in the cluster: 32 nodes bought at the node's price.
  const auto spares =
      std::find_if(c.capex.begin(), c.capex.end(), [](const auto& l) { return l.item == "spare nodes"; });
  REQUIRE(spares != c.capex.end());
  CHECK(spares->count == 32);
  CHECK(spares->unit_usd == s.cost->node_usd);
  // The GlusterFS tier holds the checkpoints and the data: its 980 TB at $20 per TB-month for the
  // run's wall time.
  const double months = r.run->wall_s.mean / (cost::kHoursPerYear / 12 * 3600);
  CHECK(c.storage_usd_per_run == doctest::Approx(20 * 980 * months));
  // The run is priced for its wall time, not the failure-free steps.
  CHECK(c.usd_per_run ==
        doctest::Approx(c.usd_per_step * r.run->wall_s.mean / r.result.step_seconds + c.storage_usd_per_run));
  // Without spares beyond the cluster: no line, and a bill smaller by their price (racks apart:
  // spares are racked for full load, so they may need more racks).
  const report::TrainingReport none = report::evaluate_training(scenario::load_scenario(
      example("plan-checkpoint-and-spares.yaml"), {"workload.run.replications=4", "failures.spares=0"}));
  const auto without_racks = [](const cost::CostResult& cost) {
    double usd = 0;
    for (const auto& line : cost.capex) usd += line.item == "racks" ? 0 : line.usd();
    return usd;
  };
  CHECK(without_racks(*none.cost) == doctest::Approx(without_racks(c) - 32 * s.cost->node_usd));
  CHECK(none.cost->power_w_it_peak == doctest::Approx(c.power_w_it_peak - 32 * s.cost->node_watts));
}

TEST_CASE("an asynchronous drain on the fabric slows the steps behind it; on its own network it does not") {
  const std::vector<std::string> async = {"workload.run.replications=2", "workload.checkpoint.mode=async"};
  const report::TrainingReport r =
      report::evaluate_training(scenario::load_scenario(example("production-2048-nodes-run.yaml"), async));
  REQUIRE(r.run_setup.has_value());
  const rel::RunSetup& s = *r.run_setup;
  CHECK(s.drain_link_load[0] > 0);
  CHECK(s.drain_step_s > r.result.step_seconds);
  // The drain's span loses (1 - step / slowed step) of itself, and the steps wait that much more.
  CHECK(s.drain_slowdown_s == doctest::Approx(s.drain_s * (1 - r.result.step_seconds / s.drain_step_s)));
  const double copy = s.checkpoint->bytes_per_writing_gpu / r.scenario.cluster.node.pcie_bytes_per_s;
  CHECK(s.block_s == doctest::Approx(copy + s.drain_slowdown_s));

  std::vector<std::string> own = async;
  own.push_back("storage.gluster.attach=storage_network");
  const report::TrainingReport apart =
      report::evaluate_training(scenario::load_scenario(example("production-2048-nodes-run.yaml"), own));
  CHECK(apart.run_setup->drain_step_s == 0);
  CHECK(apart.run_setup->block_s == doctest::Approx(copy));
}
