#include "scenarios/scenario.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "scenarios/hardware_catalog.hpp"
#include "scenarios/yaml_reader.hpp"
#include "topologies/cluster.hpp"

namespace fathom::scenario {

namespace {

// Remembers where a value sits, under its key path.
void note(Scenario& s, const ValueReader& v) {
  s.locations[v.path()] = v.location();
  if (v.is_scalar()) s.written[v.path()] = v.node().Scalar();
}
void note(Scenario& s, const MapReader& m) { s.locations[m.path()] = m.location(); }

// `cluster.node`: a catalog name (`node: dgx-h100`), a mapping over a catalog entry
// (`node: {base: dgx-h100, nics: 4}`), or a mapping over NodeSpec's defaults.
void read_node(Scenario& s, MapReader& cluster) {
  if (auto v = cluster.find("node"); v && v->is_scalar() && !v->is_null()) {
    note(s, *v);
    s.cluster.node = catalog_node(*v).node;
    return;
  }
  MapReader node = cluster.optional_child("node");
  note(s, node);
  topo::NodeSpec base;
  if (auto b = node.find("base")) {
    note(s, *b);
    base = catalog_node(*b).node;
  }
  for (auto key : kNodeKeys) {
    if (auto v = node.find(key)) note(s, *v);
  }
  s.cluster.node = read_node_fields(node, base);
  node.finish();
}

void read_fabric(Scenario& s, MapReader fabric) {
  note(s, fabric);
  topo::FabricSpec& f = s.cluster.fabric;
  for (auto key : {"kind", "tiers", "radix", "oversubscription", "hosts_per_leaf", "leaves", "spines", "leaves_per_pod",
                   "cores", "links_per_leaf_spine"}) {
    if (auto v = fabric.find(key)) note(s, *v);
  }
  f.kind = fabric.one_of("kind", {"fat-tree", "rail-optimised"}, "fat-tree") == "fat-tree"
               ? topo::FabricKind::kFatTree
               : topo::FabricKind::kRailOptimized;
  f.tiers = fabric.positive_int("tiers", f.tiers);
  f.radix = fabric.non_negative_int("radix", f.radix);
  f.oversubscription = fabric.optional<double>("oversubscription", f.oversubscription, "a ratio such as 1 or 3");
  f.hosts_per_leaf = fabric.non_negative_int("hosts_per_leaf", f.hosts_per_leaf);
  f.leaves = fabric.non_negative_int("leaves", f.leaves);
  f.spines = fabric.non_negative_int("spines", f.spines);
  f.leaves_per_pod = fabric.non_negative_int("leaves_per_pod", f.leaves_per_pod);
  f.cores = fabric.non_negative_int("cores", f.cores);
  f.links_per_leaf_spine = fabric.positive_int("links_per_leaf_spine", f.links_per_leaf_spine);
  ListReader links = fabric.list("links");
  s.locations[links.path()] = links.location();
  f.tier.clear();
  for (std::size_t i = 0; i < links.size(); ++i) {
    MapReader link = links.at(i).map();
    note(s, link);
    if (auto v = link.find("bandwidth")) note(s, *v);
    if (auto v = link.find("latency")) note(s, *v);
    topo::TierSpec t;
    t.link_bytes_per_s = link.bandwidth("bandwidth", Sign::kPositive);
    t.link_latency_ns = link.duration("latency").ns();
    link.finish();
    f.tier.push_back(t);
  }
  fabric.finish();
}

// "fabric.tier[1].link_bytes_per_s (leaf-spine): ..." from the topology builder becomes the
// scenario's key path "cluster.fabric.links[1].bandwidth".
std::string scenario_key(std::string field) {
  auto replace = [&](std::string_view from, std::string_view to) {
    if (auto pos = field.find(from); pos != std::string::npos) field.replace(pos, from.size(), to);
  };
  replace("fabric.tier", "fabric.links");
  replace(".link_bytes_per_s", ".bandwidth");
  replace(".link_latency_ns", ".latency");
  replace("_bytes_per_s", "_bandwidth");
  replace("_latency_ns", "_latency");
  return "cluster." + field;
}

// The builder checks relations between fields (ports per radix, counts that divide); its
// errors are mapped back onto the key they name.
void check_cluster(const Scenario& s) {
  try {
    topo::layout_fabric(s.cluster);
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    const auto colon = message.find(": ");
    std::string field = message.substr(0, colon);
    if (auto paren = field.find(" ("); paren != std::string::npos) field.resize(paren);
    std::string key = scenario_key(field);
    // Point at the key if it was written, else at the nearest enclosing mapping.
    std::string at = key;
    while (!at.empty() && !s.locations.count(at)) {
      const auto cut = at.find_last_of(".[");
      at = cut == std::string::npos ? std::string() : at.substr(0, cut);
    }
    const Location where = at.empty() ? Location{s.file, 0, 0} : s.locations.at(at);
    const std::string why = colon == std::string::npos ? message : message.substr(colon + 2);
    const auto written = s.written.find(key);
    throw ScenarioError(where, key, "a value that fits the rest of the cluster (" + why + ")",
                        written != s.written.end() ? quote_found(written->second)
                        : at == key                ? "this value"
                                                   : "no value (the default applies)");
  }
}

std::vector<FlowRow> read_flows_csv(const std::string& path, const Location& named_at) {
  std::ifstream in(path);
  if (!in) throw ScenarioError(named_at, "workload.flows_file", "a readable CSV file", quote_found(path));
  std::vector<FlowRow> rows;
  std::set<std::uint64_t> ids;
  std::string line;
  int number = 0;
  auto fail = [&](int column, const std::string& key, const std::string& expected, const std::string& found) {
    throw ScenarioError(Location{path, number, column}, key, expected, found);
  };
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1) {
      if (line != "id,src,dst,bytes,start_s") {
        fail(1, "header", "the header id,src,dst,bytes,start_s", quote_found(line));
      }
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::vector<int> columns;
    std::size_t begin = 0;
    while (true) {
      const auto comma = line.find(',', begin);
      cells.push_back(line.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
      columns.push_back(static_cast<int>(begin) + 1);
      if (comma == std::string::npos) break;
      begin = comma + 1;
    }
    if (cells.size() != 5) {
      fail(1, "row", "5 comma-separated fields (id,src,dst,bytes,start_s)",
           std::to_string(cells.size()) + " fields in " + quote_found(line));
    }
    FlowRow row;
    row.where = Location{path, number, 1};
    const auto& id = cells[0];
    auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), row.id);
    if (ec != std::errc() || p != id.data() + id.size()) fail(columns[0], "id", "a whole number", quote_found(id));
    if (!ids.insert(row.id).second) fail(columns[0], "id", "an id not used by an earlier row", quote_found(id));
    row.src = cells[1];
    row.dst = cells[2];
    auto number_in = [&](int i, const char* key, double& out) {
      const auto& text = cells[static_cast<std::size_t>(i)];
      auto [q, ec2] = std::from_chars(text.data(), text.data() + text.size(), out);
      if (ec2 != std::errc() || q != text.data() + text.size() || !(out >= 0) || out > 1e18) {
        fail(columns[static_cast<std::size_t>(i)], key, "a non-negative number", quote_found(text));
      }
    };
    number_in(3, "bytes", row.bytes);
    double start_s = 0;
    number_in(4, "start_s", start_s);
    if (start_s > 9e9) fail(columns[4], "start_s", "a start within 285 years", quote_found(cells[4]));
    row.start = sim::SimTime::from_seconds(start_s);
    rows.push_back(std::move(row));
  }
  return rows;
}

void read_nccl_tests(Scenario& s, MapReader& w) {
  NcclTestsWorkload& n = s.nccl_tests;
  for (auto key : {"op", "min_bytes", "max_bytes", "step_factor"}) {
    if (auto v = w.find(key)) note(s, *v);
  }
  // The op names are nccl-tests' binaries without "_perf".
  n.op = w.one_of("op", {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv"},
                  n.op);
  n.min_bytes = w.bytes("min_bytes", n.min_bytes);
  n.max_bytes = w.bytes("max_bytes", n.max_bytes);
  n.step_factor = w.positive_int("step_factor", n.step_factor);
  if (n.max_bytes < n.min_bytes) w.fail("max_bytes", "a size >= min_bytes");
  if (n.step_factor < 2 && n.max_bytes > n.min_bytes) w.fail("step_factor", "a factor >= 2 (or max_bytes = min_bytes)");
}

void read_collectives(Scenario& s, MapReader c) {
  note(s, c);
  coll::CollectiveParams& p = s.collectives;
  for (auto key : {"alpha", "launch", "chunks"}) {
    if (auto v = c.find(key)) note(s, *v);
  }
  p.alpha_ns = c.duration("alpha", sim::SimTime::from_ns(p.alpha_ns)).ns();
  p.launch_ns = c.duration("launch", sim::SimTime::from_ns(p.launch_ns)).ns();
  p.chunks = c.positive_int("chunks", p.chunks);
  MapReader e = c.optional_child("efficiency");
  note(s, e);
  e.declare({"ring", "tree", "nvls", "nic"});
  auto fraction = [&](std::string_view key, double& out) {
    if (auto v = e.find(key)) {
      note(s, *v);
      out = v->fraction();
      if (!(out > 0)) v->fail("a fraction above 0 (the share of link rate the algorithm reaches)");
    }
  };
  fraction("ring", p.efficiency.ring);
  fraction("tree", p.efficiency.tree);
  fraction("nvls", p.efficiency.nvls);
  fraction("nic", p.efficiency.nic);
  e.finish();
  c.finish();
}

void read_workload(Scenario& s, MapReader w) {
  note(s, w);
  if (auto v = w.find("kind")) note(s, *v);
  if (w.one_of("kind", {"traffic", "nccl-tests"}) == "nccl-tests") {
    s.workload = WorkloadKind::kNcclTests;
    read_nccl_tests(s, w);
    w.finish();
    return;
  }
  TrafficWorkload& t = s.traffic;
  if (auto v = w.find("endpoint")) note(s, *v);
  t.endpoints = w.one_of("endpoint", {"nic", "gpu"}, "nic") == "gpu" ? EndpointKind::kGpu : EndpointKind::kNic;
  const std::string pattern = w.one_of("pattern", {"permutation", "all-to-all", "incast", "ring", "random", "file"});
  if (pattern == "file") {
    auto file = w.value("flows_file", "a CSV file of flows (id,src,dst,bytes,start_s)");
    note(s, file);
    std::filesystem::path path = file.as<std::string>();
    if (path.is_relative()) path = std::filesystem::path(s.file).parent_path() / path;
    t.from_file = true;
    t.rows = read_flows_csv(path.string(), file.location());
    for (auto key : {"bytes", "endpoints", "start", "start_window", "incast_target", "flows"}) {
      w.forbid(key, "flows come from flows_file");
    }
  } else {
    w.forbid("flows_file", "only with pattern: file");
    workload::TrafficSpec& g = t.generated;
    g.pattern = pattern == "permutation"  ? workload::TrafficPattern::kPermutation
                : pattern == "all-to-all" ? workload::TrafficPattern::kAllToAll
                : pattern == "incast"     ? workload::TrafficPattern::kIncast
                : pattern == "ring"       ? workload::TrafficPattern::kRing
                                          : workload::TrafficPattern::kRandom;
    for (auto key : {"bytes", "endpoints", "start", "start_window", "incast_target", "flows"}) {
      if (auto v = w.find(key)) note(s, *v);
    }
    g.bytes_per_flow = static_cast<double>(w.bytes("bytes"));
    g.endpoints = static_cast<std::size_t>(w.count("endpoints", 0));
    g.start = w.duration("start", sim::SimTime::zero());
    g.start_window = w.duration("start_window", sim::SimTime::zero());
    if (pattern == "incast") {
      g.incast_target = static_cast<std::size_t>(w.count("incast_target", 0));
    } else {
      w.forbid("incast_target", "only with pattern: incast");
    }
    if (pattern == "random") {
      g.flows = static_cast<std::size_t>(w.count("flows", Sign::kPositive));
    } else {
      w.forbid("flows", "only with pattern: random");
    }
  }
  w.finish();
}

}  // namespace

Scenario load_scenario(const std::string& file, const std::vector<std::string>& overrides) {
  Document doc = Document::load_file(file);
  doc.apply_overrides(overrides);
  Scenario s;
  s.file = file;
  MapReader root = doc.root();
  s.seed = root.optional<std::uint64_t>("seed", 1, "a whole number from 0 to 2^63");
  MapReader cluster = root.child("cluster");
  note(s, cluster);
  if (auto v = cluster.find("nodes")) note(s, *v);
  s.cluster.nodes = cluster.positive_int("nodes");
  read_node(s, cluster);
  read_fabric(s, cluster.child("fabric"));
  cluster.finish();
  read_workload(s, root.child("workload"));
  if (root.has("collectives")) read_collectives(s, root.child("collectives"));
  root.finish();
  check_cluster(s);
  return s;
}

std::vector<topo::VertexId> traffic_endpoints(const topo::Topology& topology, EndpointKind kind) {
  const auto wanted = kind == EndpointKind::kGpu ? topo::VertexKind::kGpu : topo::VertexKind::kNic;
  std::vector<topo::VertexId> endpoints;
  for (topo::VertexId v = 0; v < topology.vertices().size(); ++v) {
    if (topology.vertex(v).kind == wanted) endpoints.push_back(v);
  }
  return endpoints;
}

std::vector<net::FlowRequest> traffic_flows(const Scenario& s, const topo::Topology& topology) {
  if (s.workload != WorkloadKind::kTraffic) return {};
  const TrafficWorkload& t = s.traffic;
  if (!t.from_file) {
    try {
      return workload::generate_traffic(t.generated, traffic_endpoints(topology, t.endpoints), s.seed);
    } catch (const std::invalid_argument& e) {
      const auto it = s.locations.find("workload");
      throw ScenarioError(it == s.locations.end() ? Location{s.file, 0, 0} : it->second, "workload",
                          std::string(e.what()).substr(std::string("traffic: ").size()), "this workload");
    }
  }
  std::vector<std::string> names;
  auto resolve = [&](const FlowRow& row, const std::string& name, const char* key) {
    if (auto v = topology.find(name)) return *v;
    if (names.empty()) {
      for (const auto& v : topology.vertices()) names.push_back(v.name);
    }
    throw ScenarioError(row.where, key, "a host name of the topology (such as n0.nic0 or n3.gpu1)", quote_found(name),
                        did_you_mean(name, names));
  };
  std::vector<net::FlowRequest> flows;
  flows.reserve(t.rows.size());
  for (const FlowRow& row : t.rows) {
    flows.push_back({row.id, resolve(row, row.src, "src"), resolve(row, row.dst, "dst"), row.bytes, row.start});
  }
  return flows;
}

}  // namespace fathom::scenario
