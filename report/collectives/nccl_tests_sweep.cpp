#include "report/collectives/nccl_tests_sweep.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/collective_timer.hpp"

namespace fathom::report {

namespace {

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

}  // namespace

namespace {

NcclTestsSweep sweep(const scenario::Scenario& s, const NcclTestsRequest& q) {
  NcclTestsSweep w;
  const scenario::NcclTestsWorkload& defaults = s.nccl_tests;  // the workload's, or nccl-tests-like defaults
  w.scenario_file = s.file;
  w.op_name = q.op.empty() ? defaults.op : q.op;
  w.op = coll::parse_nccl_op(w.op_name);
  w.min_bytes = q.min_bytes.value_or(defaults.min_bytes);
  w.max_bytes = q.max_bytes.value_or(defaults.max_bytes);
  w.step_factor = defaults.step_factor;
  if (q.step_factor) {
    if (*q.step_factor > 1024) {
      throw std::invalid_argument("-f: expected a step factor from 1 to 1024, found '" +
                                  std::to_string(*q.step_factor) + "'");
    }
    w.step_factor = static_cast<int>(*q.step_factor);
  }
  if (w.max_bytes < w.min_bytes) throw std::invalid_argument("-e: the largest size must be >= -b");
  if (w.step_factor < 2 && w.max_bytes > w.min_bytes) {
    throw std::invalid_argument("-f: expected a factor >= 2 when -e > -b");
  }
  w.algo = q.algo;
  w.closed_form = q.closed_form;
  const std::optional<coll::Algorithm> algo = coll::parse_nccl_algo(q.algo);

  const topo::ClusterSpec& cluster = s.cluster;
  w.nodes = q.nodes == 0 ? cluster.nodes : q.nodes;
  w.gpus_per_node = q.gpus_per_node == 0 ? cluster.node.gpus : q.gpus_per_node;
  if (w.nodes < 1 || w.nodes > cluster.nodes) {
    throw std::invalid_argument("--nodes: expected 1 to " + std::to_string(cluster.nodes) +
                                " (the scenario's nodes), found " + std::to_string(q.nodes));
  }
  if (w.gpus_per_node < 1 || w.gpus_per_node > cluster.node.gpus) {
    throw std::invalid_argument("--gpus-per-node: expected 1 to " + std::to_string(cluster.node.gpus) + ", found " +
                                std::to_string(q.gpus_per_node));
  }
  w.params = s.collectives;
  coll::CollectiveTimer timer(cluster, w.params, s.seed);
  const topo::Topology& plain = timer.topology();
  const std::vector<topo::VertexId> ranks = coll::nccl_group_ranks(plain, w.nodes, w.gpus_per_node);
  const int n = static_cast<int>(ranks.size());
  if (w.op.op == coll::Op::kSendRecv && n < 2) throw std::invalid_argument("sendrecv: needs at least 2 GPUs");
  for (topo::VertexId v : ranks) w.rank_vertices.push_back(plain.vertex(v).name);

  auto algo_error = [&](const std::invalid_argument& e) {
    return std::invalid_argument("--algo " + q.algo + " for " + w.op_name + " on " + std::to_string(n) +
                                 " GPUs: " + e.what());
  };
  // A fixed algorithm that does not fit the op or the group fails before any size is timed.
  if (algo) {
    coll::CollectiveSpec probe;
    probe.ranks = ranks;
    try {
      coll::check_collective(w.op.op, *algo, plain, probe);
    } catch (const std::invalid_argument& e) {
      throw algo_error(e);
    }
  }
  std::vector<std::int64_t> sizes;
  for (std::int64_t size = w.min_bytes; size <= w.max_bytes;) {
    sizes.push_back(size);
    if (w.step_factor <= 1 || size > w.max_bytes / w.step_factor) break;
    size *= w.step_factor;
  }
  const auto time_size = [&](coll::CollectiveTimer& on, std::int64_t size) {
    NcclTestsRow row;
    try {
      row.size = w.closed_form ? coll::closed_form_nccl_size(on, w.op, ranks, size, algo)
                               : coll::simulate_nccl_size(on, w.op, ranks, size, algo);
    } catch (const std::invalid_argument& e) {
      throw algo_error(e);
    }
    // The closed forms reckon in seconds; hold them to the clock the simulation has.
    if (!(row.size.timing.seconds <= sim::SimTime::max().to_seconds())) {
      throw sim::TimeOutOfRange(row.size.timing.seconds);
    }
    row.reason = algo ? std::string("set by --algo") : std::string(row.size.timing.reason);
    return row;
  };
  w.rows.resize(sizes.size());
  const std::size_t workers = std::min<std::size_t>(std::max(1U, q.threads), sizes.size());
  if (workers <= 1) {
    for (std::size_t k = 0; k < sizes.size(); ++k) w.rows[k] = time_size(timer, sizes[k]);
    return w;
  }
  // Sizes side by side, each thread with a timer of its own (a timer is not thread-safe). A size's
  // row is a pure function of the timer's arguments and the size (CollectiveTimer), so the table
  // is the same on any thread count. Largest sizes first, so that the longest runs start first;
  // the first size that fails, in size order, is the one reported, as on one thread.
  tbb::enumerable_thread_specific<std::unique_ptr<coll::CollectiveTimer>> timers;
  std::vector<std::exception_ptr> failed(sizes.size());
  tbb::task_arena arena(static_cast<int>(workers));
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, sizes.size(), 1),
        [&](const tbb::blocked_range<std::size_t>& range) {
          for (std::size_t r = range.begin(); r != range.end(); ++r) {
            const std::size_t k = sizes.size() - 1 - r;
            auto& own = timers.local();
            try {
              if (!own) own = std::make_unique<coll::CollectiveTimer>(cluster, w.params, s.seed);
              w.rows[k] = time_size(*own, sizes[k]);
            } catch (...) {
              failed[k] = std::current_exception();
            }
          }
        },
        tbb::simple_partitioner());
  });
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
  return w;
}

}  // namespace

NcclTestsSweep run_nccl_tests_sweep(const scenario::Scenario& s, const NcclTestsRequest& q) {
  try {
    return sweep(s, q);
  } catch (const sim::TimeOutOfRange& e) {
    scenario::refuse_beyond_clock(s, e);
  }
}

void write_nccl_tests_table(std::FILE* out, const NcclTestsSweep& w) {
  const int n = static_cast<int>(w.rank_vertices.size());
  const coll::CollectiveParams& params = w.params;
  std::fprintf(
      out,
      "# nThread 1 nGpus %d minBytes %lld maxBytes %lld step: %d(factor) warmup iters: 0 iters: 1 agg iters: 1 "
      "validation: 0 graph: 0\n",
      n, static_cast<long long>(w.min_bytes), static_cast<long long>(w.max_bytes), w.step_factor);
  std::fprintf(out,
               "#\n# fathom %s of %s: %d node(s) x %d GPU(s), algo %s, tuner %s, alpha %lld ns, launch %lld ns,\n"
               "# slice %.0f B, nvls chunk %.0f B x %d channels, max slices %d,\n"
               "# efficiency ring %.3f tree %.3f nvls %.3f nic %.3f\n",
               w.closed_form ? "closed forms" : "simulation", w.scenario_file.c_str(), w.nodes, w.gpus_per_node,
               w.algo.c_str(), std::string(coll::to_string(params.tuner)).c_str(),
               static_cast<long long>(params.alpha_ns), static_cast<long long>(params.launch_ns), params.slice_bytes,
               params.nvls_chunk_bytes, params.nvls_channels, params.max_slices, params.efficiency.ring,
               params.efficiency.tree, params.efficiency.nvls, params.efficiency.nic);
  std::fprintf(out, "#\n# Using devices\n");
  for (int r = 0; r < n; ++r) {
    const std::string& name = w.rank_vertices[static_cast<std::size_t>(r)];
    std::fprintf(out, "#  Rank %2d Group  0 Pid      0 on %10s device %2d [simulated] %s\n", r,
                 name.substr(0, name.find('.')).c_str(), r % w.gpus_per_node, name.c_str());
  }
  std::fprintf(out, "#\n");
  std::fprintf(
      out,
      "#                                                              out-of-place                       in-place\n");
  std::fprintf(
      out,
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n");
  std::fprintf(out,
               "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
               "(GB/s)\n");
  double busbw_sum = 0;
  int busbw_count = 0;
  for (const NcclTestsRow& row : w.rows) {
    const coll::NcclSize& z = row.size;
    const std::string time = format_time_us(z.timing.seconds * 1e6);
    std::fprintf(out, "%12lld  %12lld  %8s  %6s  %6d", static_cast<long long>(z.bytes), static_cast<long long>(z.count),
                 "float", w.op.redop, w.op.root);
    for (int place = 0; place < 2; ++place) {
      std::fprintf(out, "  %7s  %6.2f  %6.2f  %5s", time.c_str(), z.algbw_gbps, z.busbw_gbps, "0");
    }
    std::fprintf(out, "\n");
    busbw_sum += 2 * z.busbw_gbps;
    busbw_count += 2;
  }
  std::fprintf(out, "# Out of bounds values : 0 OK\n");
  std::fprintf(out, "# Avg bus bandwidth    : %g \n", busbw_count > 0 ? busbw_sum / busbw_count : 0.0);
  // The algorithm and protocol of every size, consecutive sizes with the same pair joined into a
  // range.
  std::string line;
  const auto& rows = w.rows;
  const auto same = [&](std::size_t a, std::size_t b) {
    return rows[a].size.timing.algorithm == rows[b].size.timing.algorithm &&
           rows[a].size.timing.protocol == rows[b].size.timing.protocol;
  };
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && same(j + 1, i)) ++j;
    if (!line.empty()) line += ", ";
    line += std::string(coll::to_string(rows[i].size.timing.algorithm)) + "/" +
            std::string(coll::to_string(rows[i].size.timing.protocol)) + " " + size_label(rows[i].size.bytes);
    if (j > i) line += "-" + size_label(rows[j].size.bytes);
    i = j + 1;
  }
  std::fprintf(out, "# Algorithm per size   : %s\n", line.c_str());
  std::map<coll::Algorithm, std::string_view> reasons;
  for (const NcclTestsRow& r : rows) reasons.emplace(r.size.timing.algorithm, r.reason);
  for (const auto& [a, reason] : reasons) {
    std::fprintf(out, "#   %s: %.*s\n", std::string(coll::to_string(a)).c_str(), static_cast<int>(reason.size()),
                 reason.data());
  }
}

}  // namespace fathom::report
