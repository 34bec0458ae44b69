// The collective fit recovers the parameters that generated synthetic nccl-tests results
// (fathom's own closed forms plus noise) within its reported uncertainty; it fits only what the
// data constrain; and the closed forms it fits agree with the simulation it reports.
#include "calibrate/fit/collective_fit.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "calibrate/fit/nccl_series.hpp"
#include "models/collectives/nccl_tests.hpp"
#include "tests/support/fuzz_rng.hpp"
#include "topologies/cluster.hpp"

using namespace fathom;
using namespace fathom::calib;

namespace {

// DGX-H100-like nodes (8 GPUs on one NVLS plane, 8 x 400G NICs) on a radix-64 fat-tree with
// D-mod-K routing, resized to any node count.
topo::ClusterSpec system_with(int nodes) {
  topo::ClusterSpec spec;
  spec.node.nvls = true;
  spec.fabric.radix = 64;
  spec.fabric.tier = {{50e9, 1000}, {50e9, 1000}};
  spec.fabric.routing = topo::Routing::kDestination;
  return topo::resized_cluster(spec, nodes);
}

BusbwSeries sweep(int nodes, const char* algo) {
  BusbwSeries s;
  s.file = std::to_string(nodes) + "-node " + algo;
  s.op_name = "all_reduce";
  s.op = coll::parse_nccl_op("all_reduce");
  s.nodes = nodes;
  s.gpus_per_node = 8;
  s.algo_name = algo;
  s.algorithm = coll::parse_nccl_algo(algo);
  for (std::int64_t bytes = std::int64_t{1} << 20; bytes <= std::int64_t{8} << 30; bytes *= 2) {
    s.points.push_back({bytes, 0, 0});
  }
  return s;
}

// Fills the series' busbw from the closed forms at `truth`, times 1 + noise (uniform in
// [-noise, noise], a fixed stream).
void synthesise(std::vector<BusbwSeries>& series, const coll::CollectiveParams& truth, double noise) {
  CollectiveFitOptions options;
  const std::vector<double> exact = predict_busbw(system_with, series, truth, options, false);
  test::FuzzRng rng(12345);
  std::size_t k = 0;
  for (auto& s : series) {
    for (auto& p : s.points) p.busbw_gbps = exact[k++] * (1 + noise * (2 * rng.uniform() - 1));
  }
}

double fitted(const CollectiveFit& fit, const char* name) { return fit.result.value(name); }
double sigma(const CollectiveFit& fit, const char* name) { return fit.result.sigma(name); }

}  // namespace

TEST_CASE("collective fit: recovers alpha, launch, both step costs and the NVLS and NIC fractions within 3 sigma") {
  coll::CollectiveParams truth;
  truth.tuner = coll::Tuner::kThresholds;  // as the fit chooses (it fits thresholds)
  truth.alpha_ns = 3000;
  truth.launch_ns = 20000;
  truth.step_ns = 2500;
  truth.nvls_step_ns = 9000;
  truth.efficiency.nvls = 0.78;
  truth.efficiency.nic = 0.92;
  // One node with NVLS (NCCL_ALGO=NVLS) and two nodes with rings (NCCL_ALGO=Ring), as the
  // calibration data has them: together they separate launch from alpha. A 2-node ring's
  // latency-bound sizes carry its NVLink hops' bytes along the path a slice travels, so the
  // NVLink ring fraction enters them too, weakly and tangled with the NIC's: a one-node ring
  // (NCCL_ALGO=Ring) pins it.
  std::vector<BusbwSeries> series = {sweep(1, "NVLS"), sweep(2, "Ring"), sweep(1, "Ring")};
  series[1].protocol = coll::Protocol::kSimple;  // NCCL_PROTO=Simple: no protocol thresholds to find
  series[2].protocol = coll::Protocol::kSimple;
  synthesise(series, truth, 0.01);

  const coll::CollectiveParams start;  // the catalog-like defaults
  const CollectiveFit fit = fit_collectives(system_with, series, start);
  MESSAGE("fit: max error " << fit.result.max_abs_rel_error << ", R^2 " << fit.result.r_squared);
  const struct {
    std::string name;
    double truth;
  } expected[] = {
      {"alpha_ns", 3000}, {"launch_ns", 20000},           {"step_ns", 2500}, {"nvls_step_ns", 9000}, {"nvls", 0.78},
      {"nic", 0.92},      {"ring", truth.efficiency.ring}};
  for (const auto& e : expected) {
    CAPTURE(e.name);
    const double v = fitted(fit, e.name.c_str()), s = sigma(fit, e.name.c_str());
    MESSAGE(e.name << ": " << v << " +- " << s << " (truth " << e.truth << ")");
    REQUIRE(std::isfinite(s));
    CHECK(s > 0);
    CHECK(std::abs(v - e.truth) <= 3 * s);
    CHECK(s < 0.25 * e.truth);  // constrained, not merely consistent
  }
  CHECK(fit.result.max_abs_rel_error < 0.03);  // 1% noise
  // Simple runs everywhere, so the low-latency protocols' costs are not identified.
  CHECK(fit.not_identified == std::vector<std::string>{"ll_alpha_ns", "ll128_alpha_ns"});
}

TEST_CASE("collective fit: one node alone cannot split launch from alpha, nor say anything of ring steps") {
  coll::CollectiveParams truth;
  truth.tuner = coll::Tuner::kThresholds;  // as the fit chooses (it fits thresholds)
  truth.alpha_ns = 12000;
  truth.nvls_step_ns = 15000;
  truth.efficiency.nvls = 0.79;
  std::vector<BusbwSeries> series = {sweep(1, "NVLS")};
  synthesise(series, truth, 0.005);
  const CollectiveFit fit = fit_collectives(system_with, series, coll::CollectiveParams{});
  CHECK(fit.fitted == std::vector<std::string>{"alpha_ns", "nvls_step_ns", "nvls", "tuner", "nvls_adaptive_chunk"});
  CHECK(fit.not_identified == std::vector<std::string>{"step_ns", "ll_alpha_ns", "ll128_alpha_ns", "launch_ns"});
  // Launch stays at its start value; alpha absorbs the difference: launch + 2 alpha is what the
  // data fix (one NVLS all-reduce has two algorithm steps).
  CHECK(fit.params.launch_ns == coll::CollectiveParams{}.launch_ns);
  CHECK(static_cast<double>(fit.params.launch_ns + 2 * fit.params.alpha_ns) ==
        doctest::Approx(static_cast<double>(truth.launch_ns + 2 * truth.alpha_ns)).epsilon(0.05));
  CHECK(fit.params.nvls_step_ns == doctest::Approx(15000).epsilon(0.1));
  CHECK(fit.params.efficiency.nvls == doctest::Approx(0.79).epsilon(0.02));
}

TEST_CASE("collective fit: the closed forms it fits are what the simulation reports") {
  coll::CollectiveParams p;
  p.tuner = coll::Tuner::kThresholds;  // as the fit chooses
  p.alpha_ns = 4000;
  p.step_ns = 1500;
  p.nvls_step_ns = 12000;
  std::vector<BusbwSeries> series = {sweep(1, "NVLS"), sweep(2, "Ring"), sweep(2, "NVLSTree")};
  CollectiveFitOptions options;
  const auto closed = predict_busbw(system_with, series, p, options, false);
  const auto simulated = predict_busbw(system_with, series, p, options, true);
  REQUIRE(closed.size() == simulated.size());
  const std::size_t per_series = series[0].points.size();
  double worst_exact = 0, worst_ring = 0, worst_tree = 0;
  for (std::size_t i = 0; i < closed.size(); ++i) {
    CAPTURE(i);
    const double d = simulated[i] / closed[i] - 1;
    if (i < per_series) {
      worst_exact = std::max(worst_exact, std::abs(d));
    } else if (i < 2 * per_series) {
      // The 2-node ring's 8 channels: the closed form's time bounds the simulation's from below
      // (docs/collectives.md, "Ring channels across nodes"), so its busbw from above.
      CHECK(d <= 1e-6);
      worst_ring = std::max(worst_ring, -d);
    } else {
      // NVLS-tree's sliced phases share NVLinks in the simulation (one slice's reduce-scatter
      // with another's all-gather), which the uncontended closed form does not see: the
      // simulation can only be slower.
      CHECK(d <= 1e-6);
      worst_tree = std::max(worst_tree, -d);
    }
  }
  MESSAGE("closed form vs simulation: NVLS worst " << worst_exact << ", 2-node ring worst " << worst_ring
                                                   << ", NVLS-tree worst " << worst_tree);
  CHECK(worst_exact < 1e-3);
  CHECK(worst_ring < 0.03);
  CHECK(worst_tree < 0.1);
}

TEST_CASE("nccl series: what the file lacks comes from the caller, and what neither says is an error") {
  NcclTestsLog log;
  log.file = "x.csv";
  log.rows.push_back({});
  log.rows.back().bytes = 1 << 20;
  log.rows.back().in_place = Placement{1, 1, 10.5, 0};
  SeriesOptions o;
  CHECK_THROWS_WITH(busbw_series(log, o), doctest::Contains("the node count is unknown: pass --nodes"));
  o.default_nodes = 1;
  o.default_gpus_per_node = 8;
  CHECK_THROWS_WITH(busbw_series(log, o), doctest::Contains("the operation is unknown: pass --op"));
  o.op = "all_reduce";
  const BusbwSeries s = busbw_series(log, o);
  CHECK(s.nodes == 1);
  CHECK(s.gpus_per_node == 8);
  CHECK(s.assumed.size() == 2);
  CHECK(s.points.size() == 1);
  CHECK(s.points[0].busbw_gbps == 10.5);
  o.algo = "warp";
  CHECK_THROWS_WITH(busbw_series(log, o), doctest::Contains("--algo"));
}

TEST_CASE("collective fit: NCCL's protocol thresholds and the low-latency protocols' step costs") {
  // One node, rings chosen by size (no NCCL_ALGO, no NVLS), LL below 8 MiB and LL128 below
  // 64 MiB: the fit finds both thresholds among the measured sizes and each protocol's latency.
  coll::CollectiveParams truth;
  truth.tuner = coll::Tuner::kThresholds;  // as the fit chooses (it fits thresholds)
  truth.alpha_ns = 15000;
  truth.ll_max_bytes = 8 << 20;
  truth.ll128_max_bytes = 64 << 20;
  truth.ll.alpha_ns = 900;
  truth.ll128.alpha_ns = 4000;
  truth.efficiency.ring = 0.79;
  BusbwSeries s = sweep(1, "Ring");
  s.algorithm.reset();
  s.algo_name.clear();
  s.points.resize(10);  // 1 MiB .. 512 MiB
  std::vector<BusbwSeries> series = {s};
  const auto ring_only = [](int nodes) {
    topo::ClusterSpec c = system_with(nodes);
    c.node.nvls = false;  // a ring system: A100-like NVSwitch without in-switch reduction
    return c;
  };
  CollectiveFitOptions options;
  const std::vector<double> exact = predict_busbw(ring_only, series, truth, options, false);
  test::FuzzRng rng(777);
  for (std::size_t i = 0; i < exact.size(); ++i)
    series[0].points[i].busbw_gbps = exact[i] * (1 + 0.005 * (2 * rng.uniform() - 1));

  const CollectiveFit fit = fit_collectives(ring_only, series, coll::CollectiveParams{});
  MESSAGE("thresholds " << fit.params.ll_max_bytes << " " << fit.params.ll128_max_bytes << ", max error "
                        << fit.result.max_abs_rel_error);
  CHECK(fit.params.ll_max_bytes == truth.ll_max_bytes);
  CHECK(fit.params.ll128_max_bytes == truth.ll128_max_bytes);
  for (const auto& [name, value] :
       {std::pair<std::string, double>{"ll_alpha_ns", 900.0}, {"ll128_alpha_ns", 4000.0}, {"ring", 0.79}}) {
    CAPTURE(name);
    MESSAGE(name << ": " << fitted(fit, name.c_str()) << " +- " << sigma(fit, name.c_str()));
    CHECK(std::abs(fitted(fit, name.c_str()) - value) <= 3 * sigma(fit, name.c_str()));
  }
  CHECK(fit.result.max_abs_rel_error < 0.01);
}

TEST_CASE("collective fit: the tree's own protocol thresholds and where NCCL leaves the tree for NVLS-tree") {
  // Two nodes, the algorithm left to NCCL: the tree below 16 MiB, running LL128 below 4 MiB, and
  // NVLS-tree from 16 MiB. The fit moves tree_max from its 4 MiB default and finds the tree's
  // LL128 bound, while the ring's thresholds (no ring ran) are not searched. Where the tree
  // gives way is found to within two measured sizes: the tree across nodes (chains and the trees
  // over the nodes) with a per-slice step of about 8 us runs 16 MiB about as slowly as NVLS-tree,
  // so tree_max at 32 or 64 MiB with that step fits these sizes about as well (measured: 64 MiB,
  // max error 0.16%, against 0.5% of noise) and the fit, a local search from the incumbent, may
  // settle there.
  coll::CollectiveParams truth;
  truth.tuner = coll::Tuner::kThresholds;  // as the fit chooses (it fits thresholds)
  truth.tree_max_bytes = 16 << 20;
  truth.tree_ll128_max_bytes = 4 << 20;
  truth.ll128.alpha_ns = 1500;
  truth.efficiency.tree = 0.7;
  BusbwSeries s = sweep(2, "auto");
  REQUIRE_FALSE(s.algorithm);
  s.points.resize(9);  // 1 MiB .. 256 MiB
  std::vector<BusbwSeries> series = {s};
  synthesise(series, truth, 0.005);

  const CollectiveFit fit = fit_collectives(system_with, series, coll::CollectiveParams{});
  MESSAGE("tree_max " << fit.params.tree_max_bytes << ", tree protocols " << fit.params.tree_ll_max_bytes << " "
                      << fit.params.tree_ll128_max_bytes << ", max error " << fit.result.max_abs_rel_error);
  const auto listed = [&](const char* name) {
    return std::find(fit.fitted.begin(), fit.fitted.end(), name) != fit.fitted.end();
  };
  CHECK(listed("tree_max_bytes"));
  CHECK(listed("tree_ll128_max_bytes"));
  CHECK_FALSE(listed("ll128_max_bytes"));
  CHECK_FALSE(listed("nvls_min_bytes"));  // no single-node series: moving it changes nothing
  CHECK(fit.params.tree_max_bytes >= truth.tree_max_bytes);
  CHECK(fit.params.tree_max_bytes <= 4 * truth.tree_max_bytes);
  CHECK(fit.params.tree_ll128_max_bytes == truth.tree_ll128_max_bytes);
  // No LL ran; with LL's alpha free, the 1 MiB point alone on LL fits as well (max error 0.2%
  // against 0.5% of noise), so the fit may put it there, and no further.
  CHECK(fit.params.tree_ll_max_bytes <= 2 << 20);
  CHECK(fit.result.max_abs_rel_error < 0.015);
}

TEST_CASE("a busbw CSV's stated algorithm runs where the system can run it") {
  BusbwSeries s = sweep(1, "auto");
  s.algo_stated = "NVLS";
  BusbwSeries no_nvls = s;
  apply_stated_algorithm(s, true);
  CHECK(s.algorithm == coll::Algorithm::kNvls);
  CHECK(s.algo_name == "NVLS");
  REQUIRE(s.assumed.size() == 1);
  CHECK(s.assumed[0].find("as the file states") != std::string::npos);
  apply_stated_algorithm(no_nvls, false);  // an A100-like node: the statement cannot be true
  CHECK_FALSE(no_nvls.algorithm);
  REQUIRE(no_nvls.assumed.size() == 1);
  CHECK(no_nvls.assumed[0].find("cannot run") != std::string::npos);
  BusbwSeries forced = sweep(1, "Ring");
  forced.algo_stated = "NVLS";
  apply_stated_algorithm(forced, true);  // NCCL_ALGO (or --algo) wins over the statement
  CHECK(forced.algorithm == coll::Algorithm::kRing);
  CHECK(forced.assumed.empty());
}

TEST_CASE("collective fit under NCCL's cost model: no threshold search, small messages from 8 KiB") {
  // One node's all-reduces on 8, 4 and 2 GPUs, NCCL choosing (ring under LL at small sizes, NVLS
  // and the ring under LL128 and Simple above): with every point on the pair NCCL's model picks,
  // the launch and the low-latency protocols' step costs come out of the small sizes, the profile
  // says `tuner: nccl` and no threshold is fitted.
  coll::CollectiveParams truth;
  truth.tuner = coll::Tuner::kNccl;
  truth.launch_ns = 6000;
  truth.ll.alpha_ns = 700;
  truth.ll128.alpha_ns = 2500;
  truth.efficiency.nvls = 0.7;
  std::vector<BusbwSeries> series;
  for (int gpus : {8, 4, 2}) {
    BusbwSeries s = sweep(1, "auto");
    s.algorithm.reset();
    s.algo_name.clear();
    s.gpus_per_node = gpus;
    s.file = std::to_string(gpus) + " GPUs";
    s.points.clear();
    for (std::int64_t bytes = 8192; bytes <= std::int64_t{64} << 20; bytes *= 2) s.points.push_back({bytes, 0, 0});
    series.push_back(s);
  }
  CollectiveFitOptions options;
  options.min_bytes = 0;
  options.tuner = coll::Tuner::kNccl;
  const std::vector<double> exact = predict_busbw(system_with, series, truth, options, false);
  test::FuzzRng rng(4242);
  std::size_t k = 0;
  for (auto& s : series) {
    for (auto& p : s.points) p.busbw_gbps = exact[k++] * (1 + 0.005 * (2 * rng.uniform() - 1));
  }
  const CollectiveFit fit = fit_collectives(system_with, series, coll::CollectiveParams{}, options);
  MESSAGE("max error " << fit.result.max_abs_rel_error);
  CHECK(fit.params.tuner == coll::Tuner::kNccl);
  CHECK(std::find(fit.fitted.begin(), fit.fitted.end(), "tuner") != fit.fitted.end());
  for (const char* threshold : {"ll_max_bytes", "ll128_max_bytes", "nvls_min_bytes", "tree_max_bytes"}) {
    CHECK(std::find(fit.fitted.begin(), fit.fitted.end(), threshold) == fit.fitted.end());
  }
  for (const auto& [name, value] : {std::pair<std::string, double>{"launch_ns", 6000.0}, {"ll_alpha_ns", 700.0}}) {
    CAPTURE(name);
    MESSAGE(name << ": " << fitted(fit, name.c_str()) << " +- " << sigma(fit, name.c_str()));
    CHECK(std::abs(fitted(fit, name.c_str()) - value) <= 3 * sigma(fit, name.c_str()));
  }
  CHECK(fit.result.max_abs_rel_error < 0.01);
}
