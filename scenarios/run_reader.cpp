#include "scenarios/run_reader.hpp"

#include <utility>

#include "scenarios/declared_reader.hpp"
#include "scenarios/storage_catalog.hpp"

namespace fathom::scenario {

namespace {

// One tier under `storage:` (or one catalog entry, with its `source`): it starts from a catalog
// entry (`entry:`), the calibration profile's drives (a local_nvme tier without bandwidths), or
// nothing; a tier built from servers is derived from what it ends up with.
storage::TierSpec read_tier(MapReader& m, const std::string& name, const Note& note,
                            const storage::TierSpec* calibrated, bool catalog_entry) {
  storage::TierSpec t;
  bool based = false;
  m.declare({"entry"});
  if (auto entry = m.find("entry")) {
    note(*entry);
    t = catalog_tier(*entry);
    based = true;
  }
  // A catalog entry says where its figures come from; one that starts from another keeps its
  // sources unless it gives its own.
  if (catalog_entry && (!based || m.has("source"))) {
    t.source = m.required<std::string>("source", "a string naming the public documents the figures come from");
  }
  const auto kind = m.find("kind");
  const bool local = kind ? kind->is_scalar() && kind->node().Scalar() == "local_nvme" : based && t.per_node();
  const bool aggregate_given = m.has("read_bandwidth") || m.has("write_bandwidth");
  // A node's own drives without figures: the calibration profile's fio fit.
  if (!based && local && calibrated != nullptr && !aggregate_given) {
    t = *calibrated;
    based = true;
  }
  t.name = name;
  const bool from_servers = m.has("servers") || (t.servers > 0 && !aggregate_given);
  for (auto key : {"read_bandwidth", "write_bandwidth"}) {
    if (!from_servers && !based && !m.has(key)) {
      m.fail(key, "the tier's " + std::string(key) + " (such as 20GB/s), servers:, or entry: (a catalog tier)",
             local ? "or calibration: a profile fitted on fio (fathom calibrate; docs/calibration.md)" : "");
    }
    if (from_servers && m.has(key)) {
      m.fail(key, "either the servers' figures or the tier's aggregate, not both",
             "with servers: the bandwidths are derived from the drives and the network (docs/run.md)");
    }
  }
  if (from_servers && t.servers == 0) {
    for (auto key : {"drives", "drive_read", "drive_write", "network"}) {
      if (!m.has(key)) m.fail(key, "a tier built from servers needs its " + std::string(key));
    }
  }
  read_declared(m, storage::tier_parameters(), t, note);
  if (from_servers) {
    if (t.per_node()) m.fail("servers", "a shared tier (parallel_fs or object_store) to build from servers");
    if (t.servers < 1) m.fail("servers", "at least one server");
    for (auto [key, value] : {std::pair{"drives", static_cast<double>(t.drives_per_server)},
                              {"drive_read", t.drive_read_bytes_per_s},
                              {"drive_write", t.drive_write_bytes_per_s},
                              {"network", t.network_bytes_per_s}}) {
      if (!(value > 0)) m.fail(key, "a positive figure");
    }
    if (!m.has("iops")) t.iops = 0;  // derived again from the drives
    storage::derive_from_servers(t);
  }
  if (t.on_fabric()) {
    if (t.servers < 1) {
      m.fail("attach", "a tier built from its servers (servers:, drives:, network:) to place on the fabric",
             "its servers become endpoints of the fabric (docs/run.md#storage-on-the-fabric)");
    }
    if (t.client_network_bytes_per_s > 0) {
      m.fail("client_network", "no client_network for a tier on the fabric",
             "its clients reach it through their scale-out NICs");
    }
  }
  if (t.data_shards == 0 && t.parity_shards > 0) {
    m.fail("erasure", "data shards beside the parity ones (erasure: {data: 12, parity: 4})");
  }
  if (t.per_node() && (t.replicas > 1 || t.data_shards > 0)) {
    m.fail("kind", "a shared tier (parallel_fs or object_store) for replicas or erasure coding",
           "a node's own drives keep no copies elsewhere");
  }
  m.finish();
  return t;
}

}  // namespace

storage::TierSpec read_storage_entry(MapReader& entry, const std::string& name) {
  return read_tier(
      entry, name, [](const ValueReader&) {}, nullptr, true);
}

std::vector<storage::TierSpec> read_storage_section(MapReader& section, const Note& note,
                                                    const storage::TierSpec* calibrated, bool catalog) {
  std::vector<storage::TierSpec> tiers;
  for (const std::string& name : section.keys()) {
    MapReader m = section.child(name);
    tiers.push_back(read_tier(m, name, note, calibrated, catalog));
  }
  section.finish();
  return tiers;
}

rel::FailureSpec read_failures_section(const ValueReader& value, const Note& note) {
  note(value);
  if (value.is_scalar()) {
    value.one_of({"none"});
    return rel::no_failures();
  }
  MapReader m = value.map();
  rel::FailureSpec f = rel::default_failures();
  read_declared(m, rel::failure_parameters(), f, note);
  if (f.spares < -1 || f.spares != static_cast<int>(f.spares)) m.fail("spares", "a whole number of nodes, or -1");
  MapReader components = m.optional_child("components");
  for (const rel::ComponentRate& c : rel::default_failures().components) {
    components.declare({rel::component_name(c.component)});
  }
  for (rel::ComponentRate& c : f.components) {
    const std::string_view name = rel::component_name(c.component);
    if (!components.has(name)) continue;
    MapReader entry = components.child(name);
    entry.declare({"detection"});
    if (auto v = entry.find("detection")) {  // beside the declared keys: its default is failures.detection
      note(*v);
      c.detection_ns = v->duration().ns();
    }
    read_declared(entry, rel::component_parameters(), c, note);
    c.source = "the scenario (" + entry.path() + ")";
    entry.finish();
  }
  components.finish();
  m.finish();
  return f;
}

rel::RunSpec read_run_section(MapReader& section, const Note& note) {
  rel::RunSpec r;
  for (auto key : {"tokens", "duration", "replications"}) {
    if (auto v = section.find(key)) note(*v);
  }
  if (section.has("tokens") && section.has("duration")) {
    section.fail("duration", "either tokens or a duration, not both");
  }
  if (section.has("tokens")) r.tokens = static_cast<double>(section.count("tokens", Sign::kPositive));
  if (section.has("duration")) r.duration_s = section.duration("duration", Sign::kPositive).to_seconds();
  r.replications = section.positive_int("replications", r.replications);
  if (r.replications > 100'000) section.fail("replications", "at most 100000 replications");
  section.finish();
  return r;
}

namespace {

// `key`'s value, which must name one of `tiers` (of `kind`, when given).
const storage::TierSpec& tier_named(MapReader& section, std::string_view key,
                                    const std::vector<storage::TierSpec>& tiers, const std::string& what,
                                    const storage::TierKind* kind = nullptr) {
  const ValueReader value = section.value(key, what);
  const std::string name = value.as<std::string>("a storage tier's name");
  std::vector<std::string_view> names;
  for (const auto& t : tiers) {
    if (kind == nullptr || t.kind == *kind) names.push_back(t.name);
  }
  if (names.empty()) {
    value.fail(
        kind ? "a " + std::string(storage::tier_kind_name(*kind)) + " tier under storage:" : "a tier under storage:",
        "add a storage: section with the tier (docs/run.md)");
  }
  value.one_of(names);
  for (const auto& t : tiers) {
    if (t.name == name) return t;
  }
  value.fail("a tier under storage:");
}

}  // namespace

train::CheckpointSpec read_checkpoint_section(MapReader& section, const std::vector<storage::TierSpec>& tiers,
                                              const Note& note) {
  train::CheckpointSpec c;
  for (auto key : {"interval", "tier", "mode", "layout"}) {
    if (auto v = section.find(key)) note(*v);
  }
  if (auto v = section.find("interval")) {
    if (v->is_scalar() && v->node().Scalar() == "auto") {
      c.auto_interval = true;
    } else {
      c.interval = v->positive_int();
    }
  }
  c.tier = tier_named(section, "tier", tiers, "the storage tier written to (a name under storage:)").name;
  c.async = section.one_of("mode", {"sync", "async"}, "sync") == "async";
  c.sharded = section.one_of("layout", {"sharded", "gathered"}, "sharded") == "sharded";
  section.finish();
  return c;
}

train::DataSpec read_data_section(MapReader& section, const std::vector<storage::TierSpec>& tiers, const Note& note) {
  train::DataSpec d;
  for (auto key : {"tier", "cache"}) {
    if (auto v = section.find(key)) note(*v);
  }
  d.tier =
      tier_named(section, "tier", tiers, "the storage tier the samples are read from (a name under storage:)").name;
  if (section.has("cache")) {
    const storage::TierKind local = storage::TierKind::kLocalNvme;
    d.cache = tier_named(section, "cache", tiers, "a local_nvme tier caching what was read", &local).name;
  }
  read_declared(section, train::data_parameters(), d, note);
  if ((d.bytes_per_sample > 0) == (d.bytes_per_token > 0)) {
    section.fail(d.bytes_per_sample > 0 ? "bytes_per_token" : "bytes_per_sample",
                 "a sample's size: bytes_per_sample (such as 110KB) or bytes_per_token (such as 2), one of them");
  }
  section.finish();
  return d;
}

rel::ServiceSpec read_availability_section(MapReader& section, const Note& note) {
  rel::ServiceSpec spec;
  if (!section.has("mtbf") || !section.has("repair")) {
    section.fail(section.has("mtbf") ? "repair" : "mtbf", "a replica's mtbf and repair (such as 2000h and 8h)");
  }
  read_declared(section, rel::service_parameters(), spec, note);
  if (spec.needed > spec.replicas)
    section.fail("needed", "at most the replicas (" + std::to_string(spec.replicas) + ")");
  MapReader deps = section.optional_child("depends_on");
  for (const std::string& name : deps.keys()) {
    MapReader d = deps.child(name);
    rel::Dependency dep;
    dep.name = name;
    if (!d.has("mtbf") || !d.has("repair")) {
      d.fail(d.has("mtbf") ? "repair" : "mtbf", "the dependency's mtbf and repair (such as 8760h and 4h)");
    }
    read_declared(d, rel::dependency_parameters(), dep, note);
    d.finish();
    spec.depends_on.push_back(std::move(dep));
  }
  deps.finish();
  section.finish();
  return spec;
}

}  // namespace fathom::scenario
