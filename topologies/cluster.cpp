// build_cluster(): validation, fabric derivation, and the builders for nodes and fabrics.
#include "topologies/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/errors.hpp"

namespace fathom::topo {

namespace {

using Count = std::int64_t;  // intermediate counts: nodes * nics must not overflow an int

// Vertices and links are numbered in 32 bits; stay well inside so that a typo (nodes: 1e9)
// is an error, not an hour of allocation.
constexpr Count kMaxElements = Count{1} << 30;

// A rule the spec breaks, typed (sim::SpecViolation): the loader locates it by its field.
[[noreturn]] void fail(std::string field, std::string expected, std::string found, std::string hint = {}) {
  throw sim::SpecError({std::move(field), std::move(expected), std::move(found), std::move(hint)});
}

std::string num(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

std::string num(Count x) { return std::to_string(x); }

Count ceil_div(Count a, Count b) { return (a + b - 1) / b; }

// a * b for non-negative counts, saturating far above kMaxElements instead of overflowing.
Count sat_mul(Count a, Count b) {
  constexpr Count kCap = kMaxElements * 4;
  if (a == 0 || b == 0) return 0;
  return a > kCap / b ? kCap : std::min(kCap, a * b);
}

// GPUs, NICs and NVSwitch planes.
Count node_vertices(const ClusterSpec& spec) {
  const Count planes = spec.node.gpus > 0 ? spec.nodes / spec.node.nvlink_domain_nodes : 0;
  return Count{spec.nodes} * (Count{spec.node.gpus} + spec.node.nics) + planes;
}

// `links`: which links, for the message ("leaf-spine"); empty for a node's own.
void require_rate(const std::string& field, double bytes_per_s, const std::string& links = {}) {
  if (!std::isfinite(bytes_per_s) || bytes_per_s <= 0) {
    fail(field, "a positive, finite number of bytes per second" + (links.empty() ? "" : " (" + links + " links)"),
         num(bytes_per_s));
  }
}

void require_latency(const std::string& field, std::int64_t latency_ns, const std::string& links = {}) {
  if (latency_ns < 0) {
    fail(field, "a latency of 0 ns or more" + (links.empty() ? "" : " (" + links + " links)"),
         num(Count{latency_ns}) + " ns");
  }
}

void require_non_negative(const std::string& field, int value, const std::string& zero_means) {
  if (value < 0) fail(field, "0 or more (0 " + zero_means + ")", num(Count{value}));
}

void validate_node(const ClusterSpec& spec) {
  const NodeSpec& n = spec.node;
  if (spec.nodes < 1) fail("nodes", "at least 1", num(Count{spec.nodes}));
  if (n.gpus < 0) fail("node.gpus", "0 or more", num(Count{n.gpus}));
  if (n.nics < 0) fail("node.nics", "0 or more", num(Count{n.nics}));
  if (n.gpus == 0 && n.nics == 0) {
    fail("node.nics", "at least 1 on a node without GPUs (a node with neither has nothing to build)", "0");
  }
  if (n.nvlink_domain_nodes < 1) fail("node.nvlink_domain_nodes", "at least 1", num(Count{n.nvlink_domain_nodes}));
  if (n.gpus == 0 && n.nvlink_domain_nodes != 1) {
    fail("node.nvlink_domain_nodes", "1 on a node without GPUs (an NVLink domain joins GPUs)",
         num(Count{n.nvlink_domain_nodes}));
  }
  if (spec.nodes % n.nvlink_domain_nodes != 0) {
    fail("node.nvlink_domain_nodes",
         "a divisor of nodes = " + num(Count{spec.nodes}) + " (every NVLink domain is whole)",
         num(Count{n.nvlink_domain_nodes}));
  }
  if (n.gpus > 0) {
    require_rate("node.nvlink_bytes_per_s", n.nvlink_bytes_per_s);
    require_latency("node.nvlink_latency_ns", n.nvlink_latency_ns);
    // 0: the GPUs are a switchless full mesh (AMD Infinity Fabric), still modelled as one plane;
    // the count feeds the switch census and cost only.
    if (n.nvswitches < 0) {
      fail("node.nvswitches", "a count of NVSwitch chips per NVLink domain (0 for a switchless full mesh)",
           num(Count{n.nvswitches}));
    }
  }
  if (n.gpus > 0 && n.nics > 0) {
    require_rate("node.pcie_bytes_per_s", n.pcie_bytes_per_s);
    require_latency("node.pcie_latency_ns", n.pcie_latency_ns);
  }
  if (n.nics > 0) require_rate("node.nic_bytes_per_s", n.nic_bytes_per_s);
  if (n.nics == 0 && spec.nodes > n.nvlink_domain_nodes) {
    fail("node.nics",
         "at least 1 to join the " + num(Count{spec.nodes / n.nvlink_domain_nodes}) + " NVLink domains of this cluster",
         "0", "give the nodes NICs or set node.nvlink_domain_nodes = nodes");
  }
  if (node_vertices(spec) > kMaxElements) {
    fail("nodes",
         "at most " + num(kMaxElements) + " vertices in all (" + num(Count{n.gpus} + n.nics) + " endpoints per node)",
         num(Count{spec.nodes}) + " nodes, " + num(node_vertices(spec)) + " vertices");
  }
}

// The fields every fabric shares; then the tier-1 port split.
void validate_fabric_fields(const FabricSpec& f) {
  if (f.tiers != 2 && f.tiers != 3) fail("fabric.tiers", "2 or 3", num(Count{f.tiers}));
  const char* tier_names[] = {"NIC-leaf", "leaf-spine", "spine-core"};
  if (f.tier.size() != static_cast<std::size_t>(f.tiers)) {
    std::string need;
    for (int t = 0; t < f.tiers; ++t) need += std::string(t == 0 ? "" : ", ") + tier_names[t];
    fail("fabric.tier",
         num(Count{f.tiers}) + " link speeds for a " + num(Count{f.tiers}) + "-tier fabric (" + need + ")",
         num(static_cast<Count>(f.tier.size())));
  }
  for (int t = 0; t < f.tiers; ++t) {
    const std::string field = "fabric.tier[" + std::to_string(t) + "]";
    require_rate(field + ".link_bytes_per_s", f.tier[static_cast<std::size_t>(t)].link_bytes_per_s, tier_names[t]);
    require_latency(field + ".link_latency_ns", f.tier[static_cast<std::size_t>(t)].link_latency_ns, tier_names[t]);
  }
  require_non_negative("fabric.radix", f.radix, "means explicit counts");
  if (f.radix % 2 != 0) {
    fail("fabric.radix", "an even count (a fat-tree switch's ports are split evenly into pairs)", num(Count{f.radix}));
  }
  if (!std::isfinite(f.oversubscription) || f.oversubscription <= 0) {
    fail("fabric.oversubscription", "a positive ratio (3 means 3:1)", num(f.oversubscription));
  }
  require_non_negative("fabric.hosts_per_leaf", f.hosts_per_leaf, "derives it from radix");
  require_non_negative("fabric.leaves", f.leaves, "means as many as the NICs need");
  require_non_negative("fabric.spines", f.spines, "derives it from radix");
  require_non_negative("fabric.leaves_per_pod", f.leaves_per_pod, "derives it from radix");
  require_non_negative("fabric.cores", f.cores, "derives it from radix");
  require_non_negative("fabric.links_per_leaf_spine", f.links_per_leaf_spine, "derives it");
  require_non_negative("fabric.links_per_spine_core", f.links_per_spine_core, "derives it");
  if (f.tiers == 2 && f.leaves_per_pod > 0) {
    fail("fabric.leaves_per_pod", "no value with fabric.tiers: 2 (only a 3-tier fabric has pods)",
         num(Count{f.leaves_per_pod}));
  }
  if (f.tiers == 2 && f.cores > 0) {
    fail("fabric.cores", "no value with fabric.tiers: 2 (only a 3-tier fabric has cores)", num(Count{f.cores}));
  }
  if (f.tiers == 2 && f.links_per_spine_core > 0) {
    fail("fabric.links_per_spine_core", "no value with fabric.tiers: 2 (only a 3-tier fabric has cores)",
         num(Count{f.links_per_spine_core}));
  }
}

// NIC ports down per leaf.
Count derive_hosts_per_leaf(const FabricSpec& f) {
  const Count radix = f.radix;
  if (f.hosts_per_leaf > 0) {
    if (radix > 0 && f.hosts_per_leaf >= radix) {
      fail("fabric.hosts_per_leaf", "fewer than the radix " + num(radix) + " (a leaf needs a port up)",
           num(Count{f.hosts_per_leaf}));
    }
    return f.hosts_per_leaf;
  }
  if (radix == 0) fail("fabric.hosts_per_leaf", "hosts_per_leaf, or a radix to derive it from", "neither");
  // The epsilon keeps 64 * 3 / 4 from landing on 47.999...
  const auto down = static_cast<Count>(
      std::floor(static_cast<double>(radix) * f.oversubscription / (1.0 + f.oversubscription) + 1e-9));
  if (down < 1) {
    fail("fabric.oversubscription",
         "a ratio that leaves a radix-" + num(radix) +
             " leaf a NIC port down (hosts_per_leaf = floor(radix * o / (1 + o)) >= 1)",
         num(f.oversubscription));
  }
  if (down >= radix) {
    fail("fabric.oversubscription",
         "a ratio that leaves a radix-" + num(radix) + " leaf a port up (hosts_per_leaf = floor(radix * o / (1 + o)))",
         num(f.oversubscription) + " (hosts_per_leaf " + num(down) + ")");
  }
  return down;
}

// Spines per leaf group (2-tier: all spines; 3-tier: per pod) when they are given, or when the
// cables per pair `m` are: each leaf has m cables to every one of them.
Count derive_spines(const FabricSpec& f, Count hosts_per_leaf, Count m) {
  const Count radix = f.radix;
  const std::string which = f.tiers == 3 ? " spines per pod" : " spines";
  if (f.spines > 0) {
    if (radix > 0 && f.spines * m > radix - hosts_per_leaf) {
      fail("fabric.spines",
           "at most " + num((radix - hosts_per_leaf) / m) + which + " (a radix-" + num(radix) +
               " leaf with hosts_per_leaf " + num(hosts_per_leaf) + " has " + num(radix - hosts_per_leaf) +
               " ports up, " + num(m) + " links_per_leaf_spine to each spine)",
           num(Count{f.spines}));
    }
    return f.spines;
  }
  if (radix == 0) fail("fabric.spines", "spines, or a radix to derive them from", "neither");
  const Count up = radix - hosts_per_leaf;
  if (up % m != 0) {
    fail("fabric.links_per_leaf_spine",
         "a divisor of the " + num(up) + " up ports per leaf (radix " + num(radix) + " - hosts_per_leaf " +
             num(hosts_per_leaf) + ")",
         num(m));
  }
  return up / m;
}

// The fewest switches that take `up` cables from each of `below` switches, every one of them
// cabled equally to each (a divisor of `up`) and none past its `radix` ports:
// the smallest divisor s of up with below * (up / s) <= radix, and at least `at_least` of them
// where up allows. 0 when even up switches of one cable each are too few (the caller's port
// check then names the limit).
Count fewest_switches(Count up, Count below, Count radix, Count at_least) {
  for (Count s = 1; s <= up; ++s) {
    if (up % s != 0 || s < std::min(at_least, up)) continue;
    if (below * (up / s) <= radix) return s;
  }
  return 0;
}

}  // namespace

FabricLayout layout_fabric(const ClusterSpec& spec) {
  validate_node(spec);
  FabricLayout out;
  if (spec.node.nics == 0) return out;  // an NVLink island (or one NVLink domain) on its own

  const FabricSpec& f = spec.fabric;
  validate_fabric_fields(f);
  const Count radix = f.radix;
  const Count nodes = spec.nodes;
  const Count nics = spec.node.nics;
  const Count ports = nodes * nics;
  const Count hosts = derive_hosts_per_leaf(f);
  // Cables per leaf-spine pair: as given; else one, except where a 2-tier fabric's spine count is
  // derived too (the fewest spines, below).
  Count m = f.links_per_leaf_spine > 0 ? f.links_per_leaf_spine : 1;
  Count spines = 0;
  Count leaves = 0;
  Count leaves_per_rail = 0;
  Count pods = 0;
  Count leaves_per_pod = 0;
  Count cores = 0;
  Count cores_per_spine = 0;
  Count k = 1;  // cables per spine-core pair

  const bool rail = f.kind == FabricKind::kRailOptimized;
  // What the NIC ports need, in words, for the messages below.
  const std::string cluster_ports = num(ports) + " NIC ports (nodes " + num(nodes) + " x node.nics " + num(nics) + ")";
  if (f.tiers == 2) {
    if (rail) {
      // Each rail holds one NIC of every node, on leaves of its own.
      const Count need = ceil_div(nodes, hosts);
      if (f.leaves > 0) {
        if (f.leaves % nics != 0) {
          fail("fabric.leaves",
               "a multiple of the " + num(nics) + " rails (node.nics: every rail has leaves of its own)",
               num(Count{f.leaves}));
        }
        if (f.leaves / nics < need) {
          fail("fabric.leaves",
               "at least " + num(need * nics) + " leaves (" + num(nics) + " rails x " + num(need) + " leaves of " +
                   num(hosts) + " hosts_per_leaf, for one NIC of each of " + num(nodes) + " nodes per rail)",
               num(Count{f.leaves}) + " (" + num(f.leaves / nics) + " per rail, " + num(f.leaves / nics * hosts) +
                   " NIC ports per rail)");
        }
        leaves_per_rail = f.leaves / nics;
      } else {
        leaves_per_rail = need;
      }
      leaves = leaves_per_rail * nics;
    } else {
      const Count need = ceil_div(ports, hosts);
      if (f.leaves > 0 && f.leaves < need) {
        fail("fabric.leaves",
             "at least " + num(need) + " leaves (" + num(hosts) + " hosts_per_leaf each, for " + cluster_ports + ")",
             num(Count{f.leaves}) + " (" + num(f.leaves * hosts) + " NIC ports)");
      }
      leaves = f.leaves > 0 ? f.leaves : need;
    }
    if (f.spines == 0 && f.links_per_leaf_spine == 0 && radix > 0) {
      // Deployed fabrics fill their spines: the fewest that take every leaf's up ports, equal
      // cables to each (NVIDIA's 4-SU SuperPOD: 16 spines, two cables from each of 32 leaves),
      // and at least two, so that no single spine's failure cuts the leaves apart.
      const Count up = radix - hosts;
      spines = fewest_switches(up, leaves, radix, 2);
      if (spines == 0) spines = up;  // one cable each; the port check below fails
      m = up / spines;
    } else {
      spines = derive_spines(f, hosts, m);
    }
    if (radix > 0 && leaves * m > radix) {
      fail("fabric.radix",
           "at least " + num(leaves * m) + " ports on every spine (" +
               (rail ? num(nics) + " rails x " + num(leaves_per_rail) + " leaves" : num(leaves) + " leaves") + " x " +
               num(m) + " links_per_leaf_spine)",
           "radix " + num(radix), "use fabric.tiers: 3 or a larger radix");
    }
  } else {
    spines = derive_spines(f, hosts, m);
    if (f.leaves_per_pod > 0) {
      leaves_per_pod = f.leaves_per_pod;
    } else if (radix > 0) {
      leaves_per_pod = radix / 2;
    } else {
      fail("fabric.leaves_per_pod", "leaves_per_pod, or a radix to derive it from (radix / 2)", "neither");
    }
    if (rail && leaves_per_pod % nics != 0) {
      fail("fabric.leaves_per_pod",
           "a multiple of the " + num(nics) + " rails (node.nics: every rail has leaves of its own in every pod)",
           num(leaves_per_pod) + (f.leaves_per_pod > 0 ? "" : " (radix / 2)"));
    }
    const Count spine_down = leaves_per_pod * m;
    if (radix > 0 && spine_down >= radix) {
      fail("fabric.leaves_per_pod",
           "fewer leaves x links_per_leaf_spine (" + num(m) + ") than the radix " + num(radix) +
               " (every spine needs a port up to the cores)",
           num(leaves_per_pod) + " (" + num(spine_down) + " ports down on every spine)");
    }
    // A fat-tree pod holds leaves_per_pod x hosts_per_leaf NIC ports in node order; a rail-optimised
    // pod holds the nodes whose NICs fill its rails' leaves: leaves_per_pod / rails leaves per rail.
    const Count pod_nodes = rail ? leaves_per_pod / nics * hosts : 0;
    const Count need_pods = rail ? ceil_div(nodes, pod_nodes) : ceil_div(ceil_div(ports, hosts), leaves_per_pod);
    const std::string pod_holds =
        rail ? "a pod holds " + num(leaves_per_pod / nics) + (leaves_per_pod / nics == 1 ? " leaf" : " leaves") +
                   " per rail x " + num(hosts) + " hosts_per_leaf = " + num(pod_nodes) + " of the " + num(nodes) +
                   " nodes"
             : "a pod holds " + num(leaves_per_pod) + " leaves x " + num(hosts) +
                   " hosts_per_leaf = " + num(leaves_per_pod * hosts) + " of the " + cluster_ports;
    if (f.leaves > 0) {
      if (f.leaves % leaves_per_pod != 0) {
        fail("fabric.leaves", "a multiple of leaves_per_pod " + num(leaves_per_pod) + " (pods are whole)",
             num(Count{f.leaves}));
      }
      if (f.leaves / leaves_per_pod < need_pods) {
        fail("fabric.leaves",
             "at least " + num(need_pods * leaves_per_pod) + " leaves (" + num(need_pods) + " pods: " + pod_holds + ")",
             num(Count{f.leaves}));
      }
      leaves = f.leaves;
    } else {
      leaves = need_pods * leaves_per_pod;
    }
    if (rail) leaves_per_rail = leaves_per_pod / nics;
    pods = leaves / leaves_per_pod;
    // Spine s of every pod cables to the same c cores, k cables to each.
    if (f.cores > 0) {
      if (f.cores % spines != 0) {
        fail("fabric.cores",
             "a multiple of the " + num(spines) +
                 " spines per pod (spine s of every pod cables to cores [s*c, (s+1)*c), c = cores / spines)",
             num(Count{f.cores}));
      }
      cores = f.cores;
      cores_per_spine = cores / spines;
      k = f.links_per_spine_core > 0 ? f.links_per_spine_core : 1;
      if (radix > 0 && spine_down + cores_per_spine * k > radix) {
        fail("fabric.cores",
             "at most " + num((radix - spine_down) / k * spines) + " cores (a radix-" + num(radix) + " spine with " +
                 num(spine_down) + " ports down has " + num(radix - spine_down) + " up, " + num(k) +
                 " links_per_spine_core to each core)",
             num(cores) + " (" + num(cores_per_spine * k) + " up ports on every spine)");
      }
    } else if (radix > 0) {
      const Count up = radix - spine_down;
      if (f.links_per_spine_core > 0) {
        k = f.links_per_spine_core;
        if (up % k != 0) {
          fail("fabric.links_per_spine_core",
               "a divisor of the " + num(up) + " up ports per spine (radix " + num(radix) + " - " + num(spine_down) +
                   " down)",
               num(k));
        }
        cores_per_spine = up / k;
      } else {
        // The fewest cores that take every spine's up ports (NVIDIA's 16-SU SuperPOD: 64 cores,
        // 16 cables from each of 4 pods); with as many pods as ports, one cable each (k-ary).
        cores_per_spine = fewest_switches(up, pods, radix, 1);
        if (cores_per_spine == 0) cores_per_spine = up;  // one cable each; the port check below fails
        k = up / cores_per_spine;
      }
      cores = spines * cores_per_spine;
    } else {
      fail("fabric.cores", "cores, or a radix to derive them from", "neither");
    }
    if (radix > 0 && pods * k > radix) {
      fail("fabric.radix",
           "at least " + num(pods * k) + " ports on every core (" + num(k) + " links_per_spine_core x " + num(pods) +
               " pods: " + pod_holds + ")",
           "radix " + num(radix), "the largest 3-tier fabric of this radix has " + num(radix / k) + " pods");
    }
  }
  const Count spine_count = sat_mul(f.tiers == 3 ? pods : 1, spines);
  const Count switches = leaves + spine_count + cores;
  const Count cables = ports + sat_mul(sat_mul(leaves, spines), m) + sat_mul(sat_mul(spine_count, cores_per_spine), k);
  if (node_vertices(spec) + switches > kMaxElements || cables > kMaxElements) {
    fail("fabric", "at most " + num(kMaxElements) + " vertices and as many cables",
         num(node_vertices(spec) + switches) + " vertices and " + num(cables) + " cables");
  }

  out.tiers = f.tiers;
  out.nic_ports = static_cast<int>(ports);
  out.hosts_per_leaf = static_cast<int>(hosts);
  out.leaves = static_cast<int>(leaves);
  out.spines = static_cast<int>(spines);
  out.links_per_leaf_spine = static_cast<int>(m);
  out.rails = f.kind == FabricKind::kRailOptimized ? static_cast<int>(nics) : 0;
  out.leaves_per_rail = static_cast<int>(leaves_per_rail);
  out.pods = static_cast<int>(pods);
  out.leaves_per_pod = static_cast<int>(leaves_per_pod);
  out.cores = static_cast<int>(cores);
  out.cores_per_spine = static_cast<int>(cores_per_spine);
  out.links_per_spine_core = static_cast<int>(k);
  return out;
}

namespace {

// prefix + decimal index, appended rather than `"n" + std::to_string(i)`, which GCC 12 at -O3
// flags with a false -Wrestrict (GCC bug 105329).
std::string indexed(std::string_view prefix, Count i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

// A line rate in bits per second, as network people write it: "400 Gb/s", "3.2 Tb/s".
std::string rate_text(double bytes_per_s) {
  const double bits = bytes_per_s * 8;
  char buf[32];
  if (bits >= 1e12) {
    std::snprintf(buf, sizeof buf, "%.4g Tb/s", bits / 1e12);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g Gb/s", bits / 1e9);
  }
  return buf;
}

std::string plural(Count n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Per node: GPUs on the NVSwitch plane of their node or domain, NICs on PCIe.
// Returns the NIC vertices node-major (n0.nic0, n0.nic1, ..., n1.nic0, ...).
std::vector<VertexId> build_nodes(Topology& t, const ClusterSpec& spec) {
  const NodeSpec& n = spec.node;
  std::vector<VertexId> nic_ids;
  nic_ids.reserve(static_cast<std::size_t>(spec.nodes) * static_cast<std::size_t>(n.nics));
  std::vector<VertexId> gpu_ids(static_cast<std::size_t>(n.gpus));
  std::vector<VertexId> node_nics(static_cast<std::size_t>(n.nics));
  VertexId plane = 0;
  for (int i = 0; i < spec.nodes; ++i) {
    const std::string prefix = indexed("n", i) + ".";
    for (int j = 0; j < n.gpus; ++j) {
      gpu_ids[static_cast<std::size_t>(j)] = t.add_vertex(prefix + "gpu" + std::to_string(j), VertexKind::kGpu, 0, i);
    }
    if (n.gpus > 0 && i % n.nvlink_domain_nodes == 0) {
      const std::string name =
          n.nvlink_domain_nodes == 1 ? prefix + "nvswitch" : indexed("nvl", i / n.nvlink_domain_nodes) + ".nvswitch";
      plane = t.add_vertex(name, VertexKind::kNvSwitch, 0, i);
      t.mutable_vertex(plane).in_switch_reduction = n.nvls;
    }
    for (int k = 0; k < n.nics; ++k) {
      node_nics[static_cast<std::size_t>(k)] = t.add_vertex(prefix + "nic" + std::to_string(k), VertexKind::kNic, 0, i);
      nic_ids.push_back(node_nics[static_cast<std::size_t>(k)]);
    }
    for (VertexId g : gpu_ids) t.add_cable(g, plane, n.nvlink_bytes_per_s, n.nvlink_latency_ns, LinkClass::kNvLink);
    if (n.gpus > 0 && n.nics > 0) {
      if (n.nics <= n.gpus) {
        for (int j = 0; j < n.gpus; ++j) {
          const auto k = static_cast<std::size_t>(Count{j} * n.nics / n.gpus);
          t.add_cable(gpu_ids[static_cast<std::size_t>(j)], node_nics[k], n.pcie_bytes_per_s, n.pcie_latency_ns,
                      LinkClass::kPcie);
        }
      } else {
        for (int k = 0; k < n.nics; ++k) {
          const auto j = static_cast<std::size_t>(Count{k} * n.gpus / n.nics);
          t.add_cable(gpu_ids[j], node_nics[static_cast<std::size_t>(k)], n.pcie_bytes_per_s, n.pcie_latency_ns,
                      LinkClass::kPcie);
        }
      }
    }
  }
  return nic_ids;
}

std::vector<VertexId> add_switches(Topology& t, int count, const std::string& prefix, int tier) {
  std::vector<VertexId> ids;
  ids.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) ids.push_back(t.add_vertex(indexed(prefix, i), VertexKind::kSwitch, tier));
  return ids;
}

void build_fabric(Topology& t, const ClusterSpec& spec, const FabricLayout& L, const std::vector<VertexId>& nics) {
  const FabricSpec& f = spec.fabric;
  const double host_bytes_per_s = std::min(spec.node.nic_bytes_per_s, f.tier[0].link_bytes_per_s);
  const std::vector<VertexId> leaves = add_switches(t, L.leaves, "leaf", 1);

  // NIC -> leaf. Rail-optimised: a pod's nodes (all nodes with 2 tiers) put NIC r on the rail-r
  // leaves of their pod, leaves_per_rail of them, hosts_per_leaf nodes each.
  const std::size_t hosts = static_cast<std::size_t>(L.hosts_per_leaf);
  const std::size_t per_rail = static_cast<std::size_t>(L.leaves_per_rail);
  const std::size_t pod_nodes = per_rail * hosts;
  const std::size_t pod_leaves = static_cast<std::size_t>(L.pods > 0 ? L.leaves_per_pod : L.leaves);
  for (std::size_t g = 0; g < nics.size(); ++g) {
    std::size_t leaf = g / hosts;
    if (L.rails > 0) {
      const std::size_t node = g / static_cast<std::size_t>(L.rails);
      const std::size_t rail = g % static_cast<std::size_t>(L.rails);
      leaf = node / pod_nodes * pod_leaves + rail * per_rail + node % pod_nodes / hosts;
    }
    t.add_cable(nics[g], leaves[leaf], host_bytes_per_s, f.tier[0].link_latency_ns, LinkClass::kHostLeaf);
  }

  const TierSpec& up1 = f.tier[1];
  if (L.tiers == 2) {
    const std::vector<VertexId> spines = add_switches(t, L.spines, "spine", 2);
    for (VertexId leaf : leaves) {
      for (VertexId spine : spines) {
        for (int c = 0; c < L.links_per_leaf_spine; ++c) {
          t.add_cable(leaf, spine, up1.link_bytes_per_s, up1.link_latency_ns, LinkClass::kLeafSpine);
        }
      }
    }
    return;
  }

  std::vector<VertexId> spines;  // pod-major
  spines.reserve(static_cast<std::size_t>(L.pods) * static_cast<std::size_t>(L.spines));
  for (int p = 0; p < L.pods; ++p) {
    for (int s = 0; s < L.spines; ++s) {
      spines.push_back(t.add_vertex(indexed("spine", p) + "." + std::to_string(s), VertexKind::kSwitch, 2));
    }
  }
  const std::vector<VertexId> cores = add_switches(t, L.cores, "core", 3);
  for (std::size_t l = 0; l < leaves.size(); ++l) {
    const std::size_t pod = l / static_cast<std::size_t>(L.leaves_per_pod);
    for (int s = 0; s < L.spines; ++s) {
      const VertexId spine = spines[pod * static_cast<std::size_t>(L.spines) + static_cast<std::size_t>(s)];
      for (int c = 0; c < L.links_per_leaf_spine; ++c) {
        t.add_cable(leaves[l], spine, up1.link_bytes_per_s, up1.link_latency_ns, LinkClass::kLeafSpine);
      }
    }
  }
  const TierSpec& up2 = f.tier[2];
  for (int p = 0; p < L.pods; ++p) {
    for (int s = 0; s < L.spines; ++s) {
      const VertexId spine =
          spines[static_cast<std::size_t>(p) * static_cast<std::size_t>(L.spines) + static_cast<std::size_t>(s)];
      for (int c = 0; c < L.cores_per_spine; ++c) {
        const auto core =
            static_cast<std::size_t>(s) * static_cast<std::size_t>(L.cores_per_spine) + static_cast<std::size_t>(c);
        for (int k = 0; k < L.links_per_spine_core; ++k) {
          t.add_cable(spine, cores[core], up2.link_bytes_per_s, up2.link_latency_ns, LinkClass::kSpineCore);
        }
      }
    }
  }
}

int tier_of(LinkClass cls) {
  switch (cls) {
    case LinkClass::kNvLink:
      return 0;
    case LinkClass::kHostLeaf:
      return 1;
    case LinkClass::kLeafSpine:
      return 2;
    case LinkClass::kSpineCore:
      return 3;
    case LinkClass::kPcie:
    case LinkClass::kStorage:
      return -1;
  }
  return -1;
}

std::string describe(const ClusterSpec& spec, const FabricLayout& L) {
  const NodeSpec& n = spec.node;
  std::string d = plural(spec.nodes, "node", "nodes");
  if (n.gpus > 0) {
    d += " x " + plural(n.gpus, "GPU", "GPUs");
    d += n.nvlink_domain_nodes == 1 ? " (NVSwitch per node"
                                    : " (NVLink domains of " + std::to_string(n.nvlink_domain_nodes) + " nodes";
    d += n.nvls ? ", NVLS)" : ")";
    d += ", " + plural(n.nics, "NIC", "NICs") + " each";
  } else {
    d += ", " + plural(n.nics, "NIC", "NICs") + " each";
  }
  if (L.tiers == 0) return d + "; no scale-out fabric";
  d += "; ";
  if (L.rails > 0 && L.tiers == 2) {
    d += "rail-optimised, " + plural(L.rails, "rail", "rails") + " x " + plural(L.leaves_per_rail, "leaf", "leaves") +
         " x " + std::to_string(L.hosts_per_leaf) + " host ports, " + plural(L.spines, "spine", "spines");
  } else if (L.rails > 0) {
    d += "3-tier rail-optimised, " + plural(L.pods, "pod", "pods") + " x (" + plural(L.rails, "rail", "rails") + " x " +
         plural(L.leaves_per_rail, "leaf", "leaves") + " x " + std::to_string(L.hosts_per_leaf) + " host ports, " +
         plural(L.spines, "spine", "spines") + "), " + plural(L.cores, "core", "cores");
  } else if (L.tiers == 2) {
    d += "2-tier fat-tree, " + plural(L.leaves, "leaf", "leaves") + " x " + std::to_string(L.hosts_per_leaf) +
         " host ports, " + plural(L.spines, "spine", "spines");
  } else {
    d += "3-tier fat-tree, " + plural(L.pods, "pod", "pods") + " x (" + plural(L.leaves_per_pod, "leaf", "leaves") +
         " x " + std::to_string(L.hosts_per_leaf) + " host ports, " + plural(L.spines, "spine", "spines") + "), " +
         plural(L.cores, "core", "cores");
  }
  if (L.links_per_leaf_spine > 1) d += ", " + std::to_string(L.links_per_leaf_spine) + " cables per leaf-spine pair";
  if (L.links_per_spine_core > 1) d += ", " + std::to_string(L.links_per_spine_core) + " cables per spine-core pair";
  return d;
}

// Everything in the summary except the description and the NVSwitch chip count is read back
// from the built graph, so it cannot disagree with what the network model will see.
void summarise(Topology& t, const ClusterSpec& spec, const FabricLayout& L) {
  TopologySummary s;
  s.description = describe(spec, L);
  const std::size_t tiers = static_cast<std::size_t>(L.tiers);
  s.switches_per_tier.assign(tiers + 1, 0);
  s.cables_per_tier.assign(tiers + 1, 0);
  s.oversubscription_per_tier.assign(tiers + 1, 1.0);
  if (spec.node.gpus > 0) {
    s.switches_per_tier[0] = static_cast<std::size_t>(spec.nodes / spec.node.nvlink_domain_nodes) *
                             static_cast<std::size_t>(spec.node.nvswitches);
  }

  std::vector<double> down_bytes_per_s(t.vertices().size(), 0.0);
  std::vector<double> up_bytes_per_s(t.vertices().size(), 0.0);
  std::vector<double> into_tier_bytes_per_s(tiers + 1, 0.0);
  double nvlink_bytes_per_s = 0;
  for (const Vertex& v : t.vertices()) {
    if (v.kind == VertexKind::kSwitch) ++s.switches_per_tier.at(static_cast<std::size_t>(v.tier));
    if (v.kind == VertexKind::kGpu || v.kind == VertexKind::kNic || v.kind == VertexKind::kCpu ||
        v.kind == VertexKind::kStorage) {
      ++s.endpoints;
    }
  }
  for (const Link& l : t.links()) {
    const int tier = tier_of(l.cls);
    const Vertex& from = t.vertex(l.from);
    const Vertex& to = t.vertex(l.to);
    if (l.cls == LinkClass::kNvLink && from.kind == VertexKind::kGpu) nvlink_bytes_per_s += l.bytes_per_s;
    if (tier < 0) continue;
    const bool upward = l.cls == LinkClass::kNvLink ? from.kind == VertexKind::kGpu : from.tier < to.tier;
    if (!upward) continue;
    ++s.cables_per_tier.at(static_cast<std::size_t>(tier));  // one of the cable's two links
    if (tier >= 1) {
      into_tier_bytes_per_s[static_cast<std::size_t>(tier)] += l.bytes_per_s;
      up_bytes_per_s[l.from] += l.bytes_per_s;
      down_bytes_per_s[l.to] += l.bytes_per_s;
    }
  }
  // Worst switch per tier; a tier with no switch that has both down and up links (the top one,
  // tier 0) stays at 1.0.
  std::vector<double> worst(tiers + 1, 0.0);
  std::vector<VertexId> worst_switch(tiers + 1, 0);
  // Leaves with NICs under them, and pods with such a leaf (leaves and pods in build order).
  std::size_t loaded_leaves = 0;
  std::vector<char> loaded_pods(static_cast<std::size_t>(std::max(L.pods, 1)), 0);
  std::size_t leaf_index = 0;
  for (VertexId v = 0; v < t.vertices().size(); ++v) {
    const Vertex& x = t.vertex(v);
    if (x.kind != VertexKind::kSwitch) continue;
    if (x.tier == 1) {
      if (down_bytes_per_s[v] > 0) {
        ++loaded_leaves;
        if (L.pods > 0) loaded_pods[leaf_index / static_cast<std::size_t>(L.leaves_per_pod)] = 1;
      }
      ++leaf_index;
    }
    if (up_bytes_per_s[v] <= 0 || down_bytes_per_s[v] <= 0) continue;
    const auto tier = static_cast<std::size_t>(x.tier);
    if (down_bytes_per_s[v] / up_bytes_per_s[v] > worst.at(tier)) {
      worst[tier] = down_bytes_per_s[v] / up_bytes_per_s[v];
      worst_switch[tier] = v;
    }
  }
  for (std::size_t tier = 0; tier <= tiers; ++tier) {
    if (worst[tier] > 0) s.oversubscription_per_tier[tier] = worst[tier];
  }

  // Warnings. One wire, one rate: the NIC and the NIC-leaf link describe the same cable.
  if (L.tiers > 0) {
    const double nic = spec.node.nic_bytes_per_s;
    const double cable = spec.fabric.tier[0].link_bytes_per_s;
    if (std::abs(nic - cable) > 1e-9 * std::max(nic, cable)) {
      s.warnings.push_back({TopologyWarning::Kind::kNicLinkMismatch, 1, nic / cable,
                            "NIC line rate " + rate_text(nic) + " and NIC-leaf link " + rate_text(cable) +
                                " differ: the NIC-leaf cables run at " + rate_text(std::min(nic, cable)) +
                                ", the slower end's rate"});
    }
  }
  // Oversubscription, for tiers that traffic actually leaves upwards: NICs under two leaves or
  // more (a lone leaf's uplinks carry nothing), for the spines NICs in two pods or more.
  const std::size_t loaded_pod_count =
      static_cast<std::size_t>(std::count(loaded_pods.begin(), loaded_pods.end(), char{1}));
  for (std::size_t tier = 1; tier < tiers; ++tier) {
    if (worst[tier] <= 1 + 1e-9) continue;
    if ((tier == 1 ? loaded_leaves : loaded_pod_count) < 2) continue;
    const VertexId v = worst_switch[tier];
    const bool leaf = tier == 1;
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3g:1", worst[tier]);
    s.warnings.push_back({TopologyWarning::Kind::kOversubscribed, static_cast<int>(tier), worst[tier],
                          std::string(leaf ? "leaves" : "spines") + " are oversubscribed " + ratio + " (" +
                              t.vertex(v).name + ": " + rate_text(down_bytes_per_s[v]) + " down to its " +
                              (leaf ? "NICs" : "leaves") + ", " + rate_text(up_bytes_per_s[v]) + " up to its " +
                              (leaf ? "spines" : "cores") + ")"});
  }

  if (L.tiers == 0) {
    s.bisection_bytes_per_s = nvlink_bytes_per_s / 2;
  } else {
    s.bisection_bytes_per_s = std::numeric_limits<double>::infinity();
    for (std::size_t tier = 1; tier <= tiers; ++tier) {
      s.bisection_bytes_per_s = std::min(s.bisection_bytes_per_s, into_tier_bytes_per_s[tier] / 2);
    }
  }
  t.summary = std::move(s);
}

}  // namespace

Topology build_cluster(const ClusterSpec& spec) {
  const FabricLayout layout = layout_fabric(spec);
  Topology t;
  const std::vector<VertexId> nics = build_nodes(t, spec);
  if (layout.tiers > 0) build_fabric(t, spec, layout, nics);
  summarise(t, spec, layout);
  t.routing = spec.fabric.routing;
  return t;
}

ClusterSpec resized_cluster(ClusterSpec spec, int nodes) {
  if (nodes < 1) fail("nodes", "at least 1", std::to_string(nodes));
  const int domain = std::max(1, spec.node.nvlink_domain_nodes);
  nodes = (nodes + domain - 1) / domain * domain;
  spec.nodes = nodes;
  FabricSpec& f = spec.fabric;
  if (f.radix <= 0) f.radix = kDefaultResizeRadix;
  f.hosts_per_leaf = f.leaves = f.spines = f.leaves_per_pod = f.cores = 0;
  f.links_per_leaf_spine = f.links_per_spine_core = 0;
  // Two tiers hold hosts_per_leaf x R leaves' worth of NIC ports (a spine has R down ports).
  const int hosts_per_leaf = static_cast<int>(f.radix * f.oversubscription / (1 + f.oversubscription));
  const long long two_tier_ports = static_cast<long long>(hosts_per_leaf) * f.radix;
  if (static_cast<long long>(nodes) * spec.node.nics > two_tier_ports) f.tiers = 3;
  if (f.tiers == 3 && f.tier.size() < 3 && !f.tier.empty()) f.tier.push_back(f.tier.back());
  return spec;
}

}  // namespace fathom::topo
