// `fathom nccl-tests SCENARIO`: NVIDIA nccl-tests (all_reduce_perf and its siblings) run in
// simulation. Each message size of the -b/-e/-f sweep is timed by coll::CollectiveTimer (the
// collective's transfer DAG run over the flow network of the scenario's cluster, or with
// --closed-form its closed form), and the command prints nccl-tests' table so that scripts
// written for the real tool read it.
// docs/nccl-tests.md describes the columns, the bus-bandwidth factors and the parameters.
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "cli/scenario_run.hpp"
#include "models/collectives/algorithms.hpp"
#include "models/collectives/collective_params.hpp"
#include "models/collectives/collective_timer.hpp"
#include "models/collectives/nccl_tests.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::cli {

namespace {

struct NcclTestsOptions {
  ScenarioOptions scenario;
  std::string op;         // empty: the scenario's (all_reduce by default)
  std::string begin;      // -b
  std::string end;        // -e
  std::string factor;     // -f
  int nodes = 0;          // 0: every node
  int gpus_per_node = 0;  // 0: every GPU of a node
  std::string algo = "auto";
  bool closed_form = false;  // time each size by its closed form instead of running its DAG
};

// nccl-tests' sizes: a whole number with an optional K, M, G or T suffix (powers of 1024).
std::int64_t parse_size(const std::string& flag, const std::string& text) {
  auto bad = [&]() -> std::invalid_argument {
    return std::invalid_argument(flag + ": expected a size such as 8, 64K, 1M or 8G (powers of 1024), found '" + text +
                                 "'");
  };
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 15) throw bad();
  std::int64_t value = std::stoll(text.substr(0, digits));
  const std::string suffix = text.substr(digits);
  int shift = 0;
  if (suffix.size() > 1) throw bad();
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'k':
      case 'K':
        shift = 10;
        break;
      case 'm':
      case 'M':
        shift = 20;
        break;
      case 'g':
      case 'G':
        shift = 30;
        break;
      case 't':
      case 'T':
        shift = 40;
        break;
      default:
        throw bad();
    }
  }
  if (value > (std::int64_t{1} << (62 - shift))) throw bad();
  return value << shift;
}

// nccl-tests' time column: fewer decimals as the time grows.
std::string format_time_us(double us) {
  char buf[32];
  if (us >= 10000) {
    std::snprintf(buf, sizeof buf, "%7.0f", us);
  } else if (us >= 100) {
    std::snprintf(buf, sizeof buf, "%7.1f", us);
  } else {
    std::snprintf(buf, sizeof buf, "%7.2f", us);
  }
  return buf;
}

std::string size_label(std::int64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + units[u];
}

struct Row {
  std::int64_t size = 0;
  coll::Algorithm algorithm = coll::Algorithm::kRing;
  std::string_view reason;
};

void run_nccl_tests(const NcclTestsOptions& o) {
  const scenario::Scenario s = scenario::load_scenario(o.scenario.file, o.scenario.overrides);
  const scenario::NcclTestsWorkload defaults = s.nccl_tests;  // the workload's, or nccl-tests-like defaults
  const std::string op_name = o.op.empty() ? defaults.op : o.op;
  const coll::NcclOp op = coll::parse_nccl_op(op_name);
  const std::int64_t min_bytes = o.begin.empty() ? defaults.min_bytes : parse_size("-b", o.begin);
  const std::int64_t max_bytes = o.end.empty() ? defaults.max_bytes : parse_size("-e", o.end);
  int factor = defaults.step_factor;
  if (!o.factor.empty()) {
    const std::int64_t f = parse_size("-f", o.factor);
    if (f > 1024) throw std::invalid_argument("-f: expected a step factor from 1 to 1024, found '" + o.factor + "'");
    factor = static_cast<int>(f);
  }
  if (max_bytes < min_bytes) throw std::invalid_argument("-e: the largest size must be >= -b");
  if (factor < 2 && max_bytes > min_bytes) throw std::invalid_argument("-f: expected a factor >= 2 when -e > -b");
  const std::optional<coll::Algorithm> algo = coll::parse_nccl_algo(o.algo);

  const topo::ClusterSpec& cluster = s.cluster;
  const int nodes = o.nodes == 0 ? cluster.nodes : o.nodes;
  const int gpus = o.gpus_per_node == 0 ? cluster.node.gpus : o.gpus_per_node;
  if (nodes < 1 || nodes > cluster.nodes) {
    throw std::invalid_argument("--nodes: expected 1 to " + std::to_string(cluster.nodes) +
                                " (the scenario's nodes), found " + std::to_string(o.nodes));
  }
  if (gpus < 1 || gpus > cluster.node.gpus) {
    throw std::invalid_argument("--gpus-per-node: expected 1 to " + std::to_string(cluster.node.gpus) + ", found " +
                                std::to_string(o.gpus_per_node));
  }
  const coll::CollectiveParams& params = s.collectives;
  coll::CollectiveTimer timer(cluster, params, s.seed);
  const topo::Topology& plain = timer.topology();
  const std::vector<topo::VertexId> ranks = coll::nccl_group_ranks(plain, nodes, gpus);
  const int n = static_cast<int>(ranks.size());
  if (op.op == coll::Op::kSendRecv && n < 2) throw std::invalid_argument("sendrecv: needs at least 2 GPUs");

  // A fixed algorithm that does not fit the op or the group fails before the table starts.
  if (algo) {
    coll::CollectiveSpec probe;
    probe.ranks = ranks;
    try {
      coll::build_collective(op.op, *algo, plain, probe);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--algo " + o.algo + " for " + op_name + " on " + std::to_string(n) +
                                  " GPUs: " + e.what());
    }
  }
  std::printf(
      "# nThread 1 nGpus %d minBytes %lld maxBytes %lld step: %d(factor) warmup iters: 0 iters: 1 agg iters: 1 "
      "validation: 0 graph: 0\n",
      n, static_cast<long long>(min_bytes), static_cast<long long>(max_bytes), factor);
  std::printf(
      "#\n# fathom %s of %s: %d node(s) x %d GPU(s), algo %s, alpha %lld ns, launch %lld ns,\n"
      "# slice %.0f B, nvls chunk %.0f B x %d channels, max slices %d,\n"
      "# efficiency ring %.3f tree %.3f nvls %.3f nic %.3f\n",
      o.closed_form ? "closed forms" : "simulation", s.file.c_str(), nodes, gpus, o.algo.c_str(),
      static_cast<long long>(params.alpha_ns), static_cast<long long>(params.launch_ns), params.slice_bytes,
      params.nvls_chunk_bytes, params.nvls_channels, params.max_slices, params.efficiency.ring, params.efficiency.tree,
      params.efficiency.nvls, params.efficiency.nic);
  std::printf("#\n# Using devices\n");
  for (int r = 0; r < n; ++r) {
    const auto& v = plain.vertex(ranks[static_cast<std::size_t>(r)]);
    std::printf("#  Rank %2d Group  0 Pid      0 on %10s device %2d [simulated] %s\n", r,
                v.name.substr(0, v.name.find('.')).c_str(), r % gpus, v.name.c_str());
  }
  std::printf("#\n");
  std::printf(
      "#                                                              out-of-place                       in-place\n");
  std::printf(
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n");
  std::printf(
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
      "(GB/s)\n");

  std::vector<Row> rows;
  double busbw_sum = 0;
  int busbw_count = 0;
  for (std::int64_t size = min_bytes; size <= max_bytes;) {
    coll::NcclSize sim;
    try {
      sim = o.closed_form ? coll::closed_form_nccl_size(timer, op, ranks, size, algo)
                          : coll::simulate_nccl_size(timer, op, ranks, size, algo);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--algo " + o.algo + " for " + op_name + " on " + std::to_string(n) +
                                  " GPUs: " + e.what());
    }
    const std::int64_t bytes = sim.bytes;
    const std::int64_t count = sim.count;
    const Row row{bytes, sim.timing.algorithm, algo ? std::string_view("set by --algo") : sim.timing.reason};
    const double seconds = sim.timing.seconds;
    const double algbw = sim.algbw_gbps;
    const double busbw = sim.busbw_gbps;
    const std::string time = format_time_us(seconds * 1e6);
    std::printf("%12lld  %12lld  %8s  %6s  %6d", static_cast<long long>(bytes), static_cast<long long>(count), "float",
                op.redop, op.root);
    for (int place = 0; place < 2; ++place) std::printf("  %7s  %6.2f  %6.2f  %5s", time.c_str(), algbw, busbw, "0");
    std::printf("\n");
    busbw_sum += 2 * busbw;
    busbw_count += 2;
    rows.push_back(row);
    if (factor > 1) {
      if (size > max_bytes / factor) break;
      size *= factor;
    } else {
      break;
    }
  }
  std::printf("# Out of bounds values : 0 OK\n");
  std::printf("# Avg bus bandwidth    : %g \n", busbw_count > 0 ? busbw_sum / busbw_count : 0.0);
  // The algorithm of every size, consecutive sizes with the same one joined into a range.
  std::string line;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1].algorithm == rows[i].algorithm) ++j;
    if (!line.empty()) line += ", ";
    line += std::string(coll::to_string(rows[i].algorithm)) + " " + size_label(rows[i].size);
    if (j > i) line += "-" + size_label(rows[j].size);
    i = j + 1;
  }
  std::printf("# Algorithm per size   : %s\n", line.c_str());
  std::map<coll::Algorithm, std::string_view> reasons;
  for (const Row& r : rows) reasons.emplace(r.algorithm, r.reason);
  for (const auto& [a, reason] : reasons) {
    std::printf("#   %s: %.*s\n", std::string(coll::to_string(a)).c_str(), static_cast<int>(reason.size()),
                reason.data());
  }
}

}  // namespace

void add_nccl_tests_command(CLI::App& app) {
  auto options = std::make_shared<NcclTestsOptions>();
  CLI::App* cmd = app.add_subcommand("nccl-tests", "simulate NVIDIA nccl-tests (all_reduce_perf, ...) on a scenario");
  add_scenario_options(*cmd, options->scenario);
  cmd->add_option("--op", options->op,
                  "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce or sendrecv "
                  "(default: the scenario's nccl-tests workload, else all_reduce)");
  cmd->add_option("-b,--minbytes", options->begin, "smallest size, e.g. 8, 1K, 1M (powers of 1024; default 8)");
  cmd->add_option("-e,--maxbytes", options->end, "largest size, e.g. 8G (default 8G)");
  cmd->add_option("-f,--stepfactor", options->factor, "multiply the size by this each step (default 2)");
  cmd->add_option("--nodes", options->nodes, "use the first N nodes (default: all)");
  cmd->add_option("--gpus-per-node", options->gpus_per_node, "use the first G GPUs of each node (default: all)");
  cmd->add_option("--algo", options->algo,
                  "auto, ring, tree, nvls, nvlstree, hd, hierarchical or direct (default auto)");
  cmd->add_flag("--closed-form", options->closed_form,
                "time each size by its algorithm's closed form (docs/collectives.md), equal to the simulation on an "
                "idle cluster and fast on large ones, instead of running its transfer DAG");
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_nccl_tests(*options);
  });
}

}  // namespace fathom::cli
