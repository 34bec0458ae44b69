#include "scenarios/wafer_catalog.hpp"

#include "models/hardware/wafer_parameters.hpp"
#include "scenarios/declared_reader.hpp"
#include "scenarios/errors.hpp"

namespace fathom::scenario {

namespace {

// The entries of one section of the file, every declared key required.
template <class Spec>
std::vector<Spec> read_section(MapReader& root, std::string_view section,
                               const std::vector<params::Parameter<Spec>>& declared) {
  MapReader entries = root.child(section);
  std::vector<Spec> specs;
  for (const std::string& name : entries.keys()) {
    MapReader entry = entries.child(name);
    Spec spec;
    spec.name = name;
    spec.source = entry.template required<std::string>("source", "the documents each figure comes from");
    read_declared(entry, declared, spec, {}, true);
    entry.finish();
    specs.push_back(std::move(spec));
  }
  entries.finish();
  return specs;
}

WaferCatalog parse_catalog() {
  const Document doc = Document::parse(wafer_catalog_text(), std::string(kWaferCatalogFile));
  MapReader root = doc.root();
  WaferCatalog catalog;
  catalog.systems = read_section(root, "systems", hw::wafer_system_parameters());
  catalog.memoryx = read_section(root, "memoryx", hw::memoryx_parameters());
  catalog.swarmx = read_section(root, "swarmx", hw::swarmx_parameters());
  catalog.input_workers = read_section(root, "input_workers", hw::input_worker_parameters());
  root.finish();
  return catalog;
}

template <class Spec>
const Spec& named(const std::vector<Spec>& entries, const ValueReader& value, std::string_view what) {
  std::vector<std::string> names;
  std::string list;
  for (const Spec& e : entries) {
    names.push_back(e.name);
    list += (list.empty() ? "" : ", ") + e.name;
  }
  const std::string expected = std::string(what) + " of the catalog (" + list + ")";
  const auto name = value.as<std::string>(expected);
  for (const Spec& e : entries) {
    if (e.name == name) return e;
  }
  value.fail(expected, did_you_mean(name, names));
}

template <class Spec>
Spec read_part(const ValueReader& value, const std::vector<Spec>& entries,
               const std::vector<params::Parameter<Spec>>& declared, std::string_view what, const NoteValue& note) {
  if (note) note(value);
  if (value.is_scalar() && !value.is_null()) return named(entries, value, what);
  MapReader map = value.map();
  Spec spec;
  if (auto base = map.find("base")) {
    if (note) note(*base);
    spec = named(entries, *base, what);
  }
  read_declared(map, declared, spec, note);
  map.finish();
  if (spec.name.empty()) spec.name = "custom";
  return spec;
}

}  // namespace

const WaferCatalog& wafer_catalog() {
  static const WaferCatalog catalog = parse_catalog();
  return catalog;
}

hw::WaferSystemSpec read_wafer_system(const ValueReader& value, const NoteValue& note) {
  return read_part(value, wafer_catalog().systems, hw::wafer_system_parameters(), "a wafer-scale system", note);
}

hw::MemoryXSpec read_memoryx(const ValueReader& value, const NoteValue& note) {
  return read_part(value, wafer_catalog().memoryx, hw::memoryx_parameters(), "a MemoryX", note);
}

hw::SwarmXSpec read_swarmx(const ValueReader& value, const NoteValue& note) {
  return read_part(value, wafer_catalog().swarmx, hw::swarmx_parameters(), "a SwarmX fabric", note);
}

hw::InputWorkerSpec read_input_worker(const ValueReader& value, const NoteValue& note) {
  return read_part(value, wafer_catalog().input_workers, hw::input_worker_parameters(), "an input worker", note);
}

}  // namespace fathom::scenario
