#include "report/calibration/measured_system.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/hardware_catalog.hpp"
#include "scenarios/user_catalogs.hpp"
#include "sim/errors.hpp"
#include "topologies/cluster.hpp"

namespace fathom::report {

MeasuredSystem system_from_scenario(const scenario::Scenario& s) {
  MeasuredSystem m;
  m.accelerator = s.accelerator;
  m.collectives = s.collectives;
  m.cluster = s.cluster;
  m.seed = s.seed;
  m.described = "the cluster of " + s.file;
  return m;
}

MeasuredSystem system_from_node(const std::string& node) {
  const scenario::CatalogNode* entry = scenario::find_catalog_node(node);
  if (entry == nullptr) {
    std::string names;
    for (const auto& n : scenario::catalog_node_names()) names += (names.empty() ? "" : ", ") + n;
    throw std::invalid_argument("--node: expected a catalog node (" + names + "), found '" + node + "'");
  }
  MeasuredSystem m;
  m.node = entry->name;
  m.accelerator = *scenario::find_catalog_accelerator(entry->accelerator);
  m.collectives = scenario::collective_defaults(m.accelerator);
  m.cluster.nodes = std::max(1, entry->node.nvlink_domain_nodes);  // whole NVLink domains
  m.cluster.node = entry->node;
  m.cluster.fabric.kind = topo::FabricKind::kFatTree;
  m.cluster.fabric.tiers = 2;
  m.cluster.fabric.radix = topo::kDefaultResizeRadix;
  const topo::TierSpec tier{entry->node.nic_bytes_per_s, 1000};
  m.cluster.fabric.tier = {tier, tier};
  m.cluster.fabric.routing = topo::Routing::kDestination;  // InfiniBand's static D-mod-K routing
  m.described = "catalog node " + entry->name +
                " on the default fabric (fat-tree, radix 64, NIC-rate links, 1 us/hop, D-mod-K routing)";
  return m;
}

std::string guess_node(const std::vector<std::string>& texts) {
  // Each name a catalog node is measured as, claimed by the first node in search order: the
  // user catalogs' (latest first), then the built-in ones.
  std::map<std::string, std::string> claimed;
  std::vector<std::string> names = scenario::catalog_node_names();
  std::stable_partition(names.begin(), names.end(), [](const std::string& n) {
    return scenario::catalog_origin("node", n).rfind("<built-in>", 0) != 0;
  });
  for (const auto& name : names) {
    for (const auto& token : scenario::find_catalog_node(name)->measured_as) claimed.emplace(token, name);
  }
  std::set<std::string> found;
  for (std::string t : texts) {
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const auto& [token, node] : claimed) {
      if (t.find(token) != std::string::npos) found.insert(node);
    }
  }
  return found.size() == 1 ? *found.begin() : std::string();
}

calib::ClusterForNodes cluster_for(const MeasuredSystem& system) {
  const topo::ClusterSpec base = system.cluster;
  const double limit = system.max_memory_bytes;
  return [base, limit](int nodes) {
    // The measured cluster itself where it is large enough (its own fabric); else resized.
    if (nodes <= base.nodes) return base;
    topo::ClusterSpec resized = topo::resized_cluster(base, nodes);
    const std::string what = "the system resized to " + std::to_string(nodes) + " nodes";
    try {
      topo::layout_fabric(resized);  // the fabric's own rules: radix, pods
    } catch (const sim::SpecError& e) {
      throw std::invalid_argument(what + ": " + e.what());
    }
    scenario::require_within_memory(what, scenario::estimate_cluster(resized), limit,
                                    "shrink the node count (a log's, --nodes or --predict-nodes)");
    return resized;
  };
}

void require_series_within_memory(const MeasuredSystem& system, const calib::BusbwSeries& series) {
  const topo::ClusterSpec cluster = cluster_for(system)(series.nodes);
  double largest = 0;
  for (const auto& p : series.points) largest = std::max(largest, static_cast<double>(p.bytes));
  scenario::ResourceEstimate estimate = scenario::estimate_cluster(cluster);
  estimate.uses.push_back(scenario::nccl_tests_dag(series.ranks(), largest, system.collectives));
  scenario::require_within_memory(series.file + ": simulating its " + std::to_string(series.nodes) + " node(s) x " +
                                      std::to_string(series.gpus_per_node) + " GPU(s)",
                                  estimate, system.max_memory_bytes,
                                  "leave the file out (--exclude), or pass a smaller --nodes");
}

}  // namespace fathom::report
