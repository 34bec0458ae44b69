#include "scenarios/scenario.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "models/hardware/node_parameters.hpp"
#include "models/network/fabric_parameters.hpp"
#include "models/workloads/training/model_parameters.hpp"
#include "models/workloads/training/parallel_parameters.hpp"
#include "models/workloads/training/training_parameters.hpp"
#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/calibration_profile.hpp"
#include "scenarios/collectives_reader.hpp"
#include "scenarios/cost_reader.hpp"
#include "scenarios/declared_reader.hpp"
#include "scenarios/hardware_catalog.hpp"
#include "scenarios/model_catalog.hpp"
#include "scenarios/run_reader.hpp"
#include "scenarios/scenario_reading.hpp"
#include "scenarios/user_catalogs.hpp"
#include "scenarios/yaml_reader.hpp"
#include "sim/errors.hpp"
#include "sim/input/text_file.hpp"
#include "topologies/cluster.hpp"

namespace fathom::scenario {

using namespace detail;

namespace detail {

// Remembers where a value sits, under its key path.
void note(Scenario& s, const ValueReader& v) {
  s.locations[v.path()] = v.location();
  if (v.is_scalar()) s.written[v.path()] = v.node().Scalar();
}
void note(Scenario& s, const MapReader& m) { s.locations[m.path()] = m.location(); }

}  // namespace detail

namespace {

// Every scalar under `node` with its key path (Scenario::document).
void flatten(const YAML::Node& node, const std::string& path, std::vector<std::pair<std::string, std::string>>& out) {
  if (node.IsMap()) {
    for (const auto& item : node) flatten(item.second, (path.empty() ? "" : path + ".") + item.first.Scalar(), out);
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) flatten(node[i], path + "[" + std::to_string(i) + "]", out);
  } else {
    out.emplace_back(path, node.IsScalar() ? node.Scalar() : std::string());
  }
}

}  // namespace

namespace detail {

// Records which catalog file the entry `name` of `kind` came from (Scenario::catalog_entries).
void used(Scenario& s, std::string_view kind, const std::string& name) {
  s.catalog_entries.push_back({std::string(kind), name, catalog_origin(kind, name)});
}

}  // namespace detail

namespace {

// `cluster.node`: a catalog name (`node: dgx-h100`), a mapping over a catalog entry
// (`node: {base: dgx-h100, nics: 4}`), or a mapping over NodeSpec's defaults.
void read_node(Scenario& s, MapReader& cluster, std::string& node_accelerator) {
  if (auto v = cluster.find("node"); v && v->is_scalar() && !v->is_null()) {
    note(s, *v);
    const CatalogNode& entry = catalog_node(*v);
    s.cluster.node = entry.node;
    node_accelerator = entry.accelerator;
    used(s, "node", entry.name);
    return;
  }
  MapReader node = cluster.optional_child("node");
  note(s, node);
  topo::NodeSpec base;
  if (auto b = node.find("base")) {
    note(s, *b);
    const CatalogNode& entry = catalog_node(*b);
    base = entry.node;
    node_accelerator = entry.accelerator;
    used(s, "node", entry.name);
  }
  for (const auto& p : hw::node_parameters()) {
    if (auto v = node.find(p.key)) note(s, *v);
  }
  s.cluster.node = read_node_fields(node, base);
  node.finish();
}

void read_fabric(Scenario& s, MapReader fabric) {
  note(s, fabric);
  topo::FabricSpec& f = s.cluster.fabric;
  read_declared(fabric, net::fabric_parameters(), f, [&](const ValueReader& v) { note(s, v); });
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

// The key path itself if the file wrote it, else its nearest enclosing mapping that it wrote
// ("" when none): where an error about `key` points.
std::string nearest_written(const Scenario& s, std::string key) {
  while (!key.empty() && !s.locations.count(key)) {
    const auto cut = key.find_last_of(".[");
    key = cut == std::string::npos ? std::string() : key.substr(0, cut);
  }
  return key;
}

// A field of the cluster spec as the topology builder names it ("fabric.tier[1].link_bytes_per_s")
// becomes the scenario's key path ("cluster.fabric.links[1].bandwidth").
std::string scenario_key(std::string field) {
  auto replace = [&](std::string_view from, std::string_view to) {
    if (auto pos = field.find(from); pos != std::string::npos) field.replace(pos, from.size(), to);
  };
  // fabric.tier and fabric.tier[i] (the link speeds), not fabric.tiers.
  if (field == "fabric.tier" || field.rfind("fabric.tier[", 0) == 0) replace("fabric.tier", "fabric.links");
  replace(".link_bytes_per_s", ".bandwidth");
  replace(".link_latency_ns", ".latency");
  replace("_bytes_per_s", "_bandwidth");
  replace("_latency_ns", "_latency");
  return "cluster." + field;
}

// A violation's `found`, or what the scenario wrote at `key` where the rule names no value.
std::string found_text(const Scenario& s, const sim::SpecViolation& v, const std::string& key, const std::string& at) {
  if (!v.found.empty()) return v.found;
  const auto written = s.written.find(key);
  return written != s.written.end() ? quote_found(written->second)
         : at == key                ? "this value"
                                    : "no value (the default applies)";
}

}  // namespace

namespace detail {

// A violation of `field` (a path in the spec under `section`), located at the key that set it
// (or the nearest written one above it).
[[noreturn]] void reject(const Scenario& s, const sim::SpecViolation& v, const std::string& key) {
  const std::string at = nearest_written(s, key);
  const Location where = at.empty() ? Location{s.file, 0, 0} : s.locations.at(at);
  throw ScenarioError(where, key, v.expected, found_text(s, v, key, at), v.hint);
}

}  // namespace detail

void refuse_beyond_clock(const Scenario& s, const sim::TimeOutOfRange& e) {
  // A time that long comes from a rate far too slow for the sizes (a unit slip: 1 bit/s for
  // 1 Gb/s): locate the slowest rate the cluster has.
  std::vector<std::pair<std::string, double>> rates{{"node.nic_bytes_per_s", s.cluster.node.nic_bytes_per_s},
                                                    {"node.nvlink_bytes_per_s", s.cluster.node.nvlink_bytes_per_s}};
  for (std::size_t i = 0; i < s.cluster.fabric.tier.size(); ++i) {
    rates.emplace_back("fabric.tier[" + std::to_string(i) + "].link_bytes_per_s",
                       s.cluster.fabric.tier[i].link_bytes_per_s);
  }
  std::erase_if(rates, [](const auto& r) { return !(r.second > 0); });
  const auto slowest =
      std::min_element(rates.begin(), rates.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  char years[64];
  std::snprintf(years, sizeof years, "%.4g years", e.seconds() / (365.25 * 86400));
  sim::SpecViolation v{"", "times within the 292.3 years (2^63 ns) of simulated time fathom's clock holds",
                       std::string("a time of ") + years};
  v.hint = "check the units of rates and sizes (bits or bytes per second, bytes)";
  if (slowest == rates.end()) {
    throw ScenarioError(Location{s.file, 0, 0}, "cluster", v.expected, v.found, v.hint);
  }
  v.field = slowest->first;
  v.found += " with the slowest rate " + format_bytes_per_s(slowest->second);
  reject(s, v, scenario_key(v.field));
}

void refuse_serving_beyond_clock(const Scenario& s, const sim::TimeOutOfRange& e) {
  char years[64];
  std::snprintf(years, sizeof years, "%.4g years", e.seconds() / (365.25 * 86400));
  sim::SpecViolation v{
      "", "serving iterations that end within the 292.3 years (2^63 ns) of simulated time fathom's clock holds",
      std::string("a time of ") + years};
  v.hint =
      "check workload.serving.iteration_overhead and sequence_overhead, and the accelerator's FLOP and memory rates";
  reject(s, v, "workload.serving");
}

namespace {

// The builder checks relations between fields (ports per radix, counts that divide); each
// violation names its field, which is located at the key that set it.
void check_cluster(const Scenario& s) {
  try {
    topo::layout_fabric(s.cluster);
  } catch (const sim::SpecError& e) {
    reject(s, e.violation(), scenario_key(e.violation().field));
  }
}

std::vector<FlowRow> read_flows_csv(const std::string& path, const Location& named_at) {
  std::string text;
  try {
    text = sim::read_text_file(path, sim::kMaxTableBytes);
  } catch (const sim::InputFileError& e) {
    throw ScenarioError(named_at, "workload.flows_file", "a CSV file of flows (" + e.expected() + ")",
                        quote_found(path) + ": " + e.found());
  }
  std::vector<FlowRow> rows;
  std::set<std::uint64_t> ids;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  auto fail = [&](int column, const std::string& key, const std::string& expected, const std::string& found) {
    throw ScenarioError(Location{path, number, column}, key, expected, found);
  };
  if (text.empty()) {
    throw ScenarioError(Location{path, 1, 1}, "header", "the header id,src,dst,bytes,start_s", "an empty file");
  }
  while (std::getline(in, line)) {
    ++number;
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
  if (rows.empty()) {
    throw ScenarioError(Location{path, number, 1}, "row", "at least one flow after the header", "none");
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

// `cost:` over the price list's figures for the cluster's catalog node.
void read_cost(Scenario& s, MapReader c) {
  note(s, c);
  std::string node;
  for (const auto& e : s.catalog_entries) {
    if (e.kind == "node") node = e.name;
  }
  s.cost = read_cost_section(c, node, [&](const ValueReader& v) { note(s, v); });
  c.finish();
}

// An inference service's `plan:` (docs/plan.md, "Planning a service"): its constraint is the
// workload's SLO, its objectives what a service is judged by.
template <typename At>
void check_service_plan(const Scenario& s, const At& at) {
  const PlanSpec& plan = *s.plan;
  if (plan.deadline_s) {
    throw ScenarioError(at("deadline"), "plan.deadline",
                        "a training run's deadline; a service's is its slo:", "deadline in an inference service's plan",
                        "set workload.slo (ttft, tpot, e2e)");
  }
  if (plan.has(PlanObjective::kMfu)) {
    throw ScenarioError(at("objective"), "plan.objective", "time, cost, nodes or gpus for an inference service", "mfu",
                        "a service is held to its SLO, not to its MFU");
  }
  if ((plan.budget_usd || plan.power_w || plan.has(PlanObjective::kCost)) && !s.cost) {
    throw ScenarioError(plan.where, "plan",
                        "a cost: section to price the candidates with (budget, power, objective: cost)",
                        "no cost section", "add cost: {} to use the price list's defaults");
  }
  if (plan.searches_replicas()) {
    if (!s.inference.slo.any()) {
      throw ScenarioError(at("fewest_replicas"), "plan.fewest_replicas", "an SLO to meet (workload.slo)", "no slo",
                          "add slo: {ttft: 2s, tpot: 50ms} under workload");
    }
    if (s.inference.autoscaler.enabled) {
      throw ScenarioError(at("fewest_replicas"), "plan.fewest_replicas",
                          "a service of fixed replicas (the autoscaler sets its own)", "an autoscaler");
    }
    for (const PlanAxis& axis : plan.vary) {
      if (axis.key == "workload.serving.replicas") {
        throw ScenarioError(axis.where, "plan.vary." + axis.name,
                            "no replicas axis: fewest_replicas searches each candidate's count", axis.name);
      }
    }
  }
}

// `report:`, for a training workload: the go-live report evaluates a training run.
void read_report(Scenario& s, MapReader r) {
  note(s, r);
  s.report = read_report_section(r, s.file, [&](const ValueReader& v) { note(s, v); });
  r.finish();
  if (s.workload != WorkloadKind::kTraining) {
    throw ScenarioError(s.report.where, "report", "a training workload to report on", "another workload kind");
  }
}

void read_collectives(Scenario& s, MapReader c) {
  note(s, c);
  read_collectives_section(c, s.collectives, [&](const ValueReader& v) { note(s, v); });
}

// `hardware:`: the accelerator (a catalog name, or a mapping over one with overridden fields).
// Without it, the cluster node's catalog entry names the accelerator.
void read_hardware(Scenario& s, MapReader& root, const std::string& node_accelerator,
                   const std::optional<CalibrationProfile>& profile) {
  // The profile applies over the catalog entry, the scenario's own keys over both.
  const auto calibrated = [&](hw::AcceleratorSpec a) {
    return profile ? apply_profile_accelerator(*profile, std::move(a), s.locations.at("calibration")) : a;
  };
  if (!root.has("hardware")) {
    if (!node_accelerator.empty()) {
      s.accelerator = calibrated(*find_catalog_accelerator(node_accelerator));
      used(s, "accelerator", node_accelerator);
    }
    return;
  }
  MapReader hw = root.child("hardware");
  note(s, hw);
  if (auto v = hw.find("accelerator"); v && v->is_scalar()) {
    note(s, *v);
    s.accelerator = calibrated(catalog_accelerator(*v));
    used(s, "accelerator", s.accelerator.name);
  } else {
    MapReader a = hw.child("accelerator");
    note(s, a);
    hw::AcceleratorSpec base;
    if (auto b = a.find("base")) {
      note(s, *b);
      base = catalog_accelerator(*b);
      used(s, "accelerator", base.name);
    } else if (!node_accelerator.empty()) {
      base = *find_catalog_accelerator(node_accelerator);
      used(s, "accelerator", base.name);
    } else {
      a.fail(
          "base", "an accelerator of the catalog to start from (" + [] {
            std::string names;
            for (const auto& n : catalog_accelerator_names()) names += (names.empty() ? "" : ", ") + n;
            return names;
          }() + ")");
    }
    for (auto key : kAcceleratorKeys) {
      if (auto v = a.find(key); v && v->is_scalar()) note(s, *v);
    }
    s.accelerator = read_accelerator_fields(a, calibrated(std::move(base)));
    if (s.accelerator.name.empty()) s.accelerator.name = "custom";
    a.finish();
  }
  hw.finish();
}

void read_parallel(Scenario& s, MapReader p) {
  note(s, p);
  train::ParallelSpec& par = s.training.parallel;
  const bool sequence_parallel_given = p.has("sequence_parallel");
  const bool schedule_given = p.has("schedule");
  read_declared(p, train::parallel_parameters(), par, [&](const ValueReader& v) { note(s, v); });
  // Sequence parallelism goes with tensor parallelism unless the scenario says otherwise.
  if (!sequence_parallel_given) par.sequence_parallel = par.tp > 1;
  // Model chunks per GPU mean the interleaved schedule unless the scenario names one: a plan can
  // then vary virtual_stages over 1, 2, 4 without a schedule axis whose pairings are half invalid.
  if (!schedule_given && par.virtual_stages > 1) par.schedule = train::Schedule::kInterleaved;
  if (par.schedule == train::Schedule::kOneFOneB && par.virtual_stages != 1) {
    p.fail("virtual_stages", "1 with schedule: 1f1b (virtual stages need schedule: interleaved)");
  }
  if (par.schedule == train::Schedule::kInterleaved && par.virtual_stages < 2) {
    // One chunk per stage is the plain 1F1B schedule: an interleaved run without virtual_stages
    // would silently be simulated with 1F1B's larger bubble.
    p.fail("virtual_stages", "at least 2 with schedule: interleaved (1 chunk per stage is schedule: 1f1b)");
  }
  for (const char* key : {"stage_layers", "chunk_layers"}) {
    ListReader layers = p.optional_list(key);
    if (!layers.empty()) s.locations[layers.path()] = layers.location();
    std::vector<int>& into = std::string_view(key) == "stage_layers" ? par.stage_layers : par.chunk_layers;
    for (std::size_t i = 0; i < layers.size(); ++i) into.push_back(layers.at(i).non_negative_int());
  }
  ListReader order = p.optional_list("order");
  if (!order.empty()) {
    s.locations[order.path()] = order.location();
    if (order.size() != train::kDims) p.fail("order", "a list of the five dimensions tp, cp, ep, pp, dp");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::string d = order.at(i).one_of({"tp", "cp", "ep", "pp", "dp"});
      if (!seen.insert(d).second) order.at(i).fail("each of tp, cp, ep, pp, dp once");
      par.order[i] = d == "tp"   ? train::Dim::kTp
                     : d == "cp" ? train::Dim::kCp
                     : d == "ep" ? train::Dim::kEp
                     : d == "pp" ? train::Dim::kPp
                                 : train::Dim::kDp;
    }
  }
  p.finish();
}

}  // namespace

namespace detail {

// The model: a zoo name, or a mapping over a zoo entry (`base`) or over nothing.
train::TransformerSpec read_model(Scenario& s, MapReader& w) {
  train::TransformerSpec model;
  if (auto v = w.find("model"); v && v->is_scalar()) {
    note(s, *v);
    model = catalog_model(*v);
    used(s, "model", model.name);
  } else {
    MapReader m = w.child("model");
    note(s, m);
    train::TransformerSpec base;
    if (auto b = m.find("base")) {
      note(s, *b);
      base = catalog_model(*b);
      used(s, "model", base.name);
    }
    for (const auto& p : train::model_parameters()) {
      if (auto k = m.find(p.key)) note(s, *k);
    }
    model = read_model_fields(m, base);
    if (model.name.empty()) model.name = "custom";
    m.finish();
  }
  return model;
}

}  // namespace detail

namespace {

void read_training(Scenario& s, MapReader& w) {
  train::TrainingSpec& t = s.training;
  t.model = read_model(s, w);
  // In 64 bits: the cluster's own checks (check_cluster, after the workload) refuse one this
  // large; here it must only not overflow.
  const int cluster_gpus = static_cast<int>(
      std::min<std::int64_t>(std::int64_t{s.cluster.nodes} * s.cluster.node.gpus, std::numeric_limits<int>::max()));
  t.gpus = cluster_gpus;
  read_declared(
      w, train::training_parameters(), t, [&](const ValueReader& v) { note(s, v); }, true);
  if (t.gpus > cluster_gpus) {
    w.fail("gpus", "at most the cluster's " + std::to_string(cluster_gpus) + " GPUs");
  }
  if (t.precision == hw::Precision::kFp8 && !(s.accelerator.peak(hw::Precision::kFp8) > 0)) {
    w.fail("precision", "bf16: the accelerator " + s.accelerator.name + " has no FP8 peak");
  }
  read_parallel(s, w.optional_child("parallel"));
  const train::ParallelSpec& p = t.parallel;
  const long long model_ranks = static_cast<long long>(p.tp) * p.pp * p.cp;
  t.parallel.dp = t.gpus % model_ranks == 0 ? static_cast<int>(t.gpus / model_ranks) : 1;
  if (s.accelerator.name.empty()) {
    w.fail("kind", "a cluster whose node names its accelerator, or a hardware.accelerator section",
           "name a catalog node (cluster.node: dgx-h100) or add hardware: {accelerator: h100-sxm}");
  }
}

// The training spec's consistency rules, each violation located at the `workload` key that set it.
void check_training(const Scenario& s) {
  try {
    train::check(s.training);
  } catch (const sim::SpecError& e) {
    reject(s, e.violation(), "workload." + e.violation().field);
  }
}

// `workload.training_jobs` (kind: jobs): a list of training jobs, each a training workload's
// keys (model, gpus, parallel, batch, ...) with its submit time and length in steps or tokens.
void read_training_jobs(Scenario& s, MapReader& w) {
  ListReader list = w.list("training_jobs");
  s.locations[list.path()] = list.location();
  if (list.empty()) list.fail("a list of training jobs (model, gpus, steps, ...)");
  JobsWorkload& jw = s.jobs;
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader job = list.at(i).map();
    note(s, job);
    for (auto key : {"name", "submit", "steps", "team", "priority", "min_gpus"}) {
      if (auto v = job.find(key)) note(s, *v);
    }
    const std::string name = job.optional<std::string>("name", "job" + std::to_string(i + 1), "a job name");
    const sim::SimTime submit = job.duration("submit", sim::SimTime::zero());
    const auto team = job.optional<std::int32_t>("team", -1, "the team's number (scheduler.teams)");
    const int priority =
        job.optional<int>("priority", 0, "an integer: services of a higher priority may preempt the job");
    const std::int64_t min_gpus = job.has("min_gpus") ? job.count("min_gpus", Sign::kPositive) : 0;
    if (!jw.training_submit.empty() && submit < jw.training_submit.back()) {
      job.fail("submit", "a time no earlier than the job above's (list the jobs in submit order)");
    }
    if (!job.has("gpus")) job.fail("gpus", "the GPUs the job asks for");
    const bool steps_given = job.has("steps");
    const std::int64_t steps = steps_given ? job.count("steps", Sign::kPositive) : 0;
    s.training = train::TrainingSpec{};
    read_training(s, job);
    train::TrainingSpec spec = s.training;
    if (steps_given == (spec.tokens > 0)) {
      job.fail("steps", "either steps or tokens, for the job's length");
    }
    try {
      train::check(spec);
    } catch (const sim::SpecError& e) {
      reject(s, e.violation(), job.path() + "." + e.violation().field);
    }
    const double tokens_per_step = static_cast<double>(spec.global_batch) * spec.sequence;
    if (min_gpus > spec.gpus) {
      job.fail("min_gpus", "at most the job's " + std::to_string(spec.gpus) + " GPUs (the fewest it may shrink to)");
    }
    jobs::TrainingJob t{name, spec,
                        steps_given ? steps : static_cast<std::int64_t>(std::ceil(spec.tokens / tokens_per_step))};
    job.finish();
    jw.training.push_back(std::move(t));
    jw.training_submit.push_back(submit);
    jw.training_team.push_back(team);
    jw.training_priority.push_back(priority);
    jw.training_min_gpus.push_back(static_cast<std::int32_t>(min_gpus));
    jw.training_at.push_back(job.location());
  }
  s.training = train::TrainingSpec{};
}

// `workload.services` (kind: jobs): inference services beside the jobs, each an inference
// workload's keys (model, serving, requests, autoscaler, slo) with its name and priority. Each
// draws its requests from the scenario's seed plus its place in the list.
void read_services(Scenario& s, MapReader& w) {
  ListReader list = w.list("services");
  s.locations[list.path()] = list.location();
  if (list.empty()) list.fail("a list of inference services (model, serving, requests, ...)");
  if (s.accelerator.name.empty()) {
    w.fail("services", "a cluster whose node names its accelerator, or a hardware.accelerator section",
           "name a catalog node (cluster.node: dgx-h100) or add hardware: {accelerator: h100-sxm}");
  }
  std::vector<std::string> tiers;
  for (const storage::TierSpec& t : s.storage) tiers.push_back(t.name);
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader m = list.at(i).map();
    note(s, m);
    for (auto key : {"name", "priority"}) {
      if (auto v = m.find(key)) note(s, *v);
    }
    JobsWorkload::Service service;
    service.name = m.optional<std::string>("name", "service" + std::to_string(i + 1), "a service name");
    service.priority =
        m.optional<int>("priority", 1, "an integer: the service preempts jobs of a lower priority (0 unless set)");
    service.at = m.location();
    service.workload.model = read_model(s, m);
    read_inference_workload(service.workload, m, s.file, s.accelerator, s.cluster.node.gpus, s.cluster.nodes,
                            s.seed + i, s.locations, tiers);
    if (service.workload.prefill_replicas > 0) {
      m.fail("disaggregation", "none: a service on a shared cluster runs every phase on its replicas",
             "disaggregated pools are simulated by an inference scenario of their own");
    }
    m.finish();
    s.jobs.services.push_back(std::move(service));
  }
}

// The jobs' keys that only services give a meaning to, checked once the workload is read: an
// elastic job's min_gpus, and the tier its checkpoints are timed on.
void check_beside_services(const Scenario& s) {
  for (std::size_t i = 0; i < s.jobs.training_min_gpus.size() && s.jobs.services.empty(); ++i) {
    if (s.jobs.training_min_gpus[i] == 0) continue;
    const std::string key = "workload.training_jobs[" + std::to_string(i) + "].min_gpus";
    throw ScenarioError(s.locations.count(key) ? s.locations.at(key) : s.jobs.training_at[i], key,
                        "no min_gpus without services: only a service's claim shrinks a job",
                        std::to_string(s.jobs.training_min_gpus[i]));
  }
  if (!s.jobs.checkpoint_tier.empty()) {
    const std::string key = "workload.scheduler.checkpoint_tier";
    const Location at = s.locations.count(key) ? s.locations.at(key) : s.locations.at("workload");
    if (s.jobs.training.empty()) {
      throw ScenarioError(at, key, "training_jobs: only a modelled job's checkpoint has a size to time",
                          quote_found(s.jobs.checkpoint_tier), "give the trace's jobs checkpoint_save instead");
    }
    std::string names;
    bool found = false;
    for (const storage::TierSpec& t : s.storage) {
      found = found || t.name == s.jobs.checkpoint_tier;
      names += (names.empty() ? " " : ", ") + t.name;
    }
    if (!found) {
      throw ScenarioError(at, key, "a tier under storage:" + names, quote_found(s.jobs.checkpoint_tier));
    }
  }
}

}  // namespace

namespace detail {

void read_expect(Scenario& s, MapReader e) {
  note(s, e);
  for (auto key : kExpectKeys) {
    auto v = e.find(key);
    if (!v) continue;
    note(s, *v);
    const std::string text = v->as<std::string>("a criterion such as \">= 0.40\" or \"<= 10s\"");
    Expectation x;
    x.key = std::string(key);
    x.text = text;
    x.where = v->location();
    std::size_t i = 0;
    while (i < text.size() && text[i] == ' ') ++i;
    for (const char* op : {">=", "<=", "==", ">", "<"}) {
      if (text.compare(i, std::strlen(op), op) == 0) {
        x.op = op;
        break;
      }
    }
    const std::string what = "a comparison (>=, <=, >, <, ==) and a value";
    if (x.op.empty()) v->fail(what + ", such as \">= 0.40\"");
    std::string rest = text.substr(i + x.op.size());
    while (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
    try {
      if (key == "step_time" || key == "time_to_train" || key == "recovery_time" || key == "data_load_per_sample" ||
          key == "p99_ttft" || key == "p99_tpot" || key == "p99_e2e") {
        x.value = parse_duration(rest).to_seconds();
      } else if (key == "capex" || key == "tco" || key == "run_cost") {
        x.value = parse_usd(rest);
      } else if (key == "it_power" || key == "facility_power") {
        x.value = parse_watts(rest);
      } else if (key == "peak_memory_per_rank") {
        x.value = static_cast<double>(parse_bytes(rest));
      } else if (key == "storage_iops") {  // "500K", "1.2M"
        const char suffix = rest.empty() ? ' ' : rest.back();
        const double scale = suffix == 'K' ? 1e3 : suffix == 'M' ? 1e6 : 1;
        x.value = scale * parse_number(scale > 1 ? rest.substr(0, rest.size() - 1) : rest, Sign::kNonNegative);
      } else {
        const bool percent = (key == "mfu" || key == "effective_training_time" || key == "availability") &&
                             !rest.empty() && rest.back() == '%';
        x.value = parse_number(percent ? rest.substr(0, rest.size() - 1) : rest, Sign::kNonNegative);
        if (percent) x.value /= 100;
      }
    } catch (const std::invalid_argument& err) {
      v->fail(what + " (" + err.what() + ")");
    }
    s.expectations.push_back(std::move(x));
  }
  e.finish();
}

void read_output(Scenario& s, MapReader o) {
  note(s, o);
  auto path = [&](std::string_view key, std::string& out) {
    if (auto v = o.find(key)) {
      note(s, *v);
      std::filesystem::path p = v->as<std::string>("a file path");
      if (p.is_relative()) p = std::filesystem::path(s.file).parent_path() / p;
      out = p.string();
    }
  };
  path("json", s.output_json);
  path("trace", s.output_trace);
  o.finish();
}

}  // namespace detail

namespace {

void read_workload(Scenario& s, MapReader w) {
  note(s, w);
  if (auto v = w.find("kind")) note(s, *v);
  const std::string kind = w.one_of("kind", {"traffic", "nccl-tests", "training", "jobs", "inference"});
  if (kind == "inference") {
    s.workload = WorkloadKind::kInference;
    if (s.accelerator.name.empty()) {
      w.fail("kind", "a cluster whose node names its accelerator, or a hardware.accelerator section",
             "name a catalog node (cluster.node: dgx-h100) or add hardware: {accelerator: h100-sxm}");
    }
    s.inference.model = read_model(s, w);
    std::vector<std::string> tiers;
    for (const storage::TierSpec& t : s.storage) tiers.push_back(t.name);
    read_inference_workload(s.inference, w, s.file, s.accelerator, s.cluster.node.gpus, s.cluster.nodes, s.seed,
                            s.locations, tiers);
    w.finish();
    return;
  }
  if (kind == "nccl-tests") {
    s.workload = WorkloadKind::kNcclTests;
    read_nccl_tests(s, w);
    w.finish();
    return;
  }
  if (kind == "jobs") {
    s.workload = WorkloadKind::kJobs;
    if (w.has("training_jobs")) read_training_jobs(s, w);
    if (w.has("services")) read_services(s, w);
    read_jobs_workload(s.jobs, w, s.file, s.cluster.nodes, std::int64_t{s.cluster.nodes} * s.cluster.node.gpus, s.seed,
                       s.locations);
    check_beside_services(s);
    w.finish();
    return;
  }
  if (kind == "training") {
    s.workload = WorkloadKind::kTraining;
    read_training(s, w);
    const auto noted = [&](const ValueReader& v) { note(s, v); };
    if (w.has("run")) {
      MapReader r = w.child("run");
      note(s, r);
      s.run = read_run_section(r, noted);
      if (!(s.run->duration_s > 0) && !(s.run->tokens > 0) && !(s.training.tokens > 0)) {
        throw ScenarioError(s.locations.at(r.path()), r.path(), "a length: run.tokens, run.duration or workload.tokens",
                            "none", "add tokens: 15e12 under workload, or duration: 54d under run");
      }
    }
    if (w.has("checkpoint")) {
      MapReader c = w.child("checkpoint");
      note(s, c);
      s.checkpoint = read_checkpoint_section(c, s.storage, noted);
    }
    if (w.has("data")) {
      MapReader d = w.child("data");
      note(s, d);
      s.data = read_data_section(d, s.storage, noted);
    }
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
    for (auto key : {"bytes", "endpoints", "start", "start_window", "incast_target", "flows", "within"}) {
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
    for (auto key : {"bytes", "endpoints", "start", "start_window", "incast_target", "flows", "within"}) {
      if (auto v = w.find(key)) note(s, *v);
    }
    g.within_node = w.one_of("within", {"cluster", "node"}, "cluster") == "node";
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

namespace detail {

// `plan:`, checked against what its constraints and objective need.
void read_plan(Scenario& s, MapReader p) {
  note(s, p);
  const bool service = s.workload == WorkloadKind::kInference;
  s.plan = read_plan_section(
      p, [&](const ValueReader& v) { note(s, v); }, service);
  p.finish();
  const auto at = [&](const char* key) {
    const auto it = s.locations.find(std::string("plan.") + key);
    return it != s.locations.end() ? it->second : s.plan->where;
  };
  if (service) {
    check_service_plan(s, at);
    return;
  }
  if (s.workload != WorkloadKind::kTraining && s.workload != WorkloadKind::kWaferTraining) {
    throw ScenarioError(s.plan->where, "plan", "a training workload or an inference service to plan for",
                        "another workload kind");
  }
  const bool tokens = (s.workload == WorkloadKind::kWaferTraining ? s.wafer_training.tokens : s.training.tokens) > 0;
  if (s.plan->deadline_s && !tokens) {
    throw ScenarioError(at("deadline"), "plan.deadline", "a token budget to train for (workload.tokens)",
                        "no workload.tokens", "add tokens: (e.g. 15e12) under workload");
  }
  if ((s.plan->budget_usd || s.plan->power_w || s.plan->has(PlanObjective::kCost)) && !s.cost) {
    throw ScenarioError(s.plan->where, "plan",
                        "a cost: section to price the candidates with (budget, power, "
                        "objective: cost)",
                        "no cost section", "add cost: {} to use the price list's defaults");
  }
  if (s.plan->has(PlanObjective::kCost) && !tokens) {
    throw ScenarioError(at("objective"), "plan.objective", "a token budget to cost the run of (workload.tokens)",
                        "objective: cost without workload.tokens");
  }
}

}  // namespace detail

namespace {
Scenario load_document(const std::string& file, Document doc, const std::vector<std::string>& overrides);
}  // namespace

Scenario load_scenario(const std::string& file, const std::vector<std::string>& overrides) {
  return load_document(file, Document::load_file(file), overrides);
}

Scenario load_scenario_text(const std::string& file, std::string_view text, const std::vector<std::string>& overrides) {
  return load_document(file, Document::parse(text, file), overrides);
}

namespace {

Scenario load_document(const std::string& file, Document doc, const std::vector<std::string>& overrides) {
  doc.apply_overrides(overrides);
  Scenario s;
  s.file = file;
  s.overrides = overrides;
  flatten(doc.tree(), "", s.document);
  MapReader root = doc.root();
  // `catalogs:` user catalog folders, relative to the scenario's folder, searched before the
  // built-in catalog (and before any --catalog folder) while the scenario loads.
  std::optional<ScopedCatalogs> catalogs;
  if (auto v = root.find("catalogs")) {
    note(s, *v);
    constexpr std::string_view kFolders = "a list of catalog folders, relative to the scenario's folder";
    if (!v->is_list()) v->fail(std::string(kFolders));
    const ListReader list = v->list();
    std::vector<std::string> folders;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const ValueReader item = list.at(i);
      folders.push_back((std::filesystem::path(file).parent_path() / item.as<std::string>(kFolders)).string());
      s.catalog_folders.push_back(folders.back());
    }
    const Location where = v->location();
    catalogs.emplace(folders, &where);
  }
  s.seed = root.optional<std::uint64_t>("seed", 1, "a whole number");
  MapReader cluster = root.child("cluster");
  note(s, cluster);
  if (auto v = cluster.find("kind")) {
    note(s, *v);
    if (v->one_of({"gpu", "wafer-scale"}) == "wafer-scale") {
      read_wafer_scenario(s, root, cluster);
      return s;
    }
  }
  if (auto v = cluster.find("nodes")) note(s, *v);
  s.cluster.nodes = cluster.positive_int("nodes");
  std::string node_accelerator;
  read_node(s, cluster, node_accelerator);
  read_fabric(s, cluster.child("fabric"));
  cluster.finish();
  // `calibration:` a profile fitted by `fathom calibrate`, relative to the scenario's folder.
  std::optional<CalibrationProfile> profile;
  if (auto v = root.find("calibration")) {
    note(s, *v);
    const std::filesystem::path path = std::filesystem::path(file).parent_path() / v->as<std::string>("a profile file");
    if (!std::filesystem::is_regular_file(path)) {
      v->fail("a calibrated profile file (fathom calibrate -o FILE), relative to the scenario's folder");
    }
    profile = load_calibration_profile(path.string());
  }
  read_hardware(s, root, node_accelerator, profile);
  if (root.has("storage")) {
    MapReader storage = root.child("storage");
    note(s, storage);
    const storage::TierSpec* drives = profile && profile->local_nvme ? &*profile->local_nvme : nullptr;
    s.storage = read_storage_section(
        storage, [&](const ValueReader& v) { note(s, v); }, drives);
    for (const storage::TierSpec& t : s.storage) {
      if (!t.on_fabric() || s.cluster.node.nics > 0) continue;
      const std::string key = "storage." + t.name + ".attach";
      const auto at = s.locations.find(key);
      throw ScenarioError(at != s.locations.end() ? at->second : storage.location(), key,
                          "a cluster with a scale-out fabric to attach the tier to", "nodes without NICs");
    }
  }
  read_workload(s, root.child("workload"));
  if (root.has("availability")) {
    MapReader a = root.child("availability");
    note(s, a);
    if (s.workload != WorkloadKind::kTraining) {
      throw ScenarioError(a.location(), "availability", "a training scenario's service (workload kind: training)",
                          "another workload kind");
    }
    s.availability = read_availability_section(a, [&](const ValueReader& v) { note(s, v); });
  }
  if (auto v = root.find("failures")) {
    if (!s.run) v->fail("failures only with a whole run (workload.run)", "add run: {replications: 100} under workload");
    s.failures = read_failures_section(*v, [&](const ValueReader& r) { note(s, r); });
  }
  // The accelerator's NVLink and NIC efficiencies are the collectives' defaults; the
  // collectives section overrides them key by key.
  if (!s.accelerator.name.empty()) s.collectives = collective_defaults(s.accelerator);
  if (profile) s.collectives = apply_profile_collectives(*profile, s.collectives);
  if (root.has("collectives")) read_collectives(s, root.child("collectives"));
  if (root.has("cost")) read_cost(s, root.child("cost"));
  if (root.has("plan")) read_plan(s, root.child("plan"));
  s.report.where = {s.file, 1, 1};
  if (root.has("report")) read_report(s, root.child("report"));
  if (root.has("expect")) read_expect(s, root.child("expect"));
  if (root.has("output")) read_output(s, root.child("output"));
  root.finish();
  check_cluster(s);
  if (s.workload == WorkloadKind::kTraining) check_training(s);
  for (const auto& e : s.expectations) {
    const bool inference = is_inference_expectation(e.key);
    if (inference && s.workload != WorkloadKind::kInference) {
      throw ScenarioError(e.where, "expect." + e.key,
                          "an inference service's criterion only with workload kind: inference", quote_found(e.text));
    }
    // A service's cost is priced as a training run's is (report::inference_usage).
    const bool service_cost = s.workload == WorkloadKind::kInference && is_cost_expectation(e.key);
    if (!inference && !service_cost && s.workload != WorkloadKind::kTraining) {
      throw ScenarioError(e.where, "expect." + e.key,
                          s.workload == WorkloadKind::kInference
                              ? "an inference service's criterion (p99_ttft, p99_tpot, p99_e2e, throughput) or, "
                                "with cost:, capex, tco, run_cost, it_power or facility_power"
                              : "criteria only with workload kind: training or inference",
                          quote_found(e.text));
    }
  }
  for (const auto& e : s.expectations) {
    if (is_cost_expectation(e.key) && !s.cost) {
      throw ScenarioError(e.where, "expect." + e.key, "a cost: section to price the cluster with", "no cost section",
                          "add cost: {} to use the price list's defaults (docs/cost.md)");
    }
    if (e.key == "availability" && !s.availability) {
      throw ScenarioError(e.where, "expect.availability", "a service to measure it on (availability:)",
                          "no availability section", "add availability: {replicas: 2, mtbf: 2000h, repair: 8h}");
    }
    if ((e.key == "effective_training_time" || e.key == "recovery_time") && !s.run) {
      throw ScenarioError(e.where, "expect." + e.key, "a whole run to measure it on (workload.run)", "no workload.run",
                          "add run: {replications: 100} under workload (docs/run.md)");
    }
    if ((e.key == "data_load_per_sample" || e.key == "storage_iops") && !s.data) {
      throw ScenarioError(e.where, "expect." + e.key, "the step's data loading to measure it on (workload.data)",
                          "no workload.data", "add data: {tier: <a storage tier>, bytes_per_token: 2} under workload");
    }
    if (e.key == "run_cost" && !(s.training.tokens > 0)) {
      throw ScenarioError(e.where, "expect.run_cost", "a token budget to train for (workload.tokens)",
                          "no workload.tokens", "add tokens: (e.g. 15e12) under workload");
    }
    if (e.key == "time_to_train" && !(s.training.tokens > 0)) {
      throw ScenarioError(e.where, "expect.time_to_train", "a token budget to train for (workload.tokens)",
                          "no workload.tokens", "add tokens: (e.g. 15e12) under workload");
    }
  }
  if (!s.output_trace.empty() && s.workload == WorkloadKind::kJobs) {
    throw ScenarioError(s.locations.at("output.trace"), "output.trace", "output.json only, for a jobs workload",
                        "output.trace", "write the jobs and the cluster's timeline with --jobs-out and --timeline-out");
  }
  if ((!s.output_json.empty() || !s.output_trace.empty()) && s.workload != WorkloadKind::kTraining &&
      s.workload != WorkloadKind::kJobs && s.workload != WorkloadKind::kInference) {
    const auto it = s.locations.find("output");
    throw ScenarioError(it != s.locations.end() ? it->second : Location{s.file, 0, 0}, "output",
                        "output files only with workload kind: training, jobs or inference", "an output section",
                        "traffic scenarios write CSVs with --flows-out and --links-out");
  }
  return s;
}

}  // namespace

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
      const auto endpoints = traffic_endpoints(topology, t.endpoints);
      if (!t.generated.within_node) return workload::generate_traffic(t.generated, endpoints, s.seed);
      std::vector<std::vector<topo::VertexId>> by_node;
      for (topo::VertexId v : endpoints) {
        const auto node = static_cast<std::size_t>(std::max(0, topology.vertex(v).node));
        if (node >= by_node.size()) by_node.resize(node + 1);
        by_node[node].push_back(v);
      }
      return workload::generate_traffic_in_groups(t.generated, by_node, s.seed);
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
