#include "scenarios/calibration_profile.hpp"

#include <string_view>

#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/collectives_reader.hpp"
#include "scenarios/declared_reader.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/hardware_catalog.hpp"

namespace fathom::scenario {

namespace {

constexpr std::string_view kSourceKeys[] = {"file", "sha256", "kind", "rows", "used"};

// `sources:`: a list of mappings naming each input file, its hash and how it was used.
void check_sources(MapReader& root) {
  const auto v = root.find("sources");
  if (!v) return;
  const ListReader list = v->list();
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader source = list.at(i).map();
    for (auto key : kSourceKeys) {
      if (key == "file") {
        source.required<std::string>("file", "the measurement file's path");
      } else {
        source.find(key);
      }
    }
    source.finish();
  }
}

// The accelerator section's base: a catalog accelerator.
const hw::AcceleratorSpec& profile_base(MapReader& section) {
  return catalog_accelerator(section.value("base", "the catalog accelerator the profile was measured on"));
}

}  // namespace

coll::CollectiveParams collective_defaults(const hw::AcceleratorSpec& accelerator) {
  coll::CollectiveParams p;
  p.efficiency.ring = accelerator.efficiency.nvlink;
  p.efficiency.tree = accelerator.efficiency.nvlink;
  p.efficiency.nic = accelerator.efficiency.nic;
  return p;
}

CalibrationProfile load_calibration_profile(const std::string& file) {
  CalibrationProfile profile;
  profile.file = file;
  profile.document = std::make_shared<Document>(Document::load_file(file));
  MapReader root = profile.document->root();
  const auto version = root.value("profile", "the profile schema version, 1");
  if (version.as<int>("the profile schema version, 1") != kProfileVersion) {
    version.fail("profile: 1 (the only schema version this fathom reads)");
  }
  profile.system = root.optional<std::string>("system", "", "free text naming the measured system");
  if (auto node = root.find("node")) profile.node = catalog_node(*node).name;
  root.optional<std::string>("created", "", "the date the profile was made");
  root.optional<std::string>("tool", "", "the fathom that made it");
  check_sources(root);
  if (auto fits = root.find("fits"); fits && !fits->is_map()) fits->fail("a mapping (the fit report)");
  // Read each section once over its defaults, so that a bad value is reported now.
  hw::AcceleratorSpec accelerator;
  if (root.has("accelerator")) {
    MapReader section = root.child("accelerator");
    accelerator = profile_base(section);
    profile.accelerator = accelerator.name;
    accelerator = read_accelerator_fields(section, accelerator);
    section.finish();
  }
  if (root.has("collectives")) {
    MapReader section = root.child("collectives");
    coll::CollectiveParams p = collective_defaults(accelerator);
    read_collectives_section(section, p);
  }
  if (root.has("local_nvme")) {
    MapReader section = root.child("local_nvme");
    storage::TierSpec drives;
    drives.kind = storage::TierKind::kLocalNvme;
    read_declared(section, storage::tier_parameters(), drives);
    section.finish();
    profile.local_nvme = drives;
  }
  root.finish();
  return profile;
}

hw::AcceleratorSpec apply_profile_accelerator(const CalibrationProfile& profile, hw::AcceleratorSpec accelerator,
                                              const Location& where) {
  if (!profile.has_accelerator()) return accelerator;
  if (accelerator.name != profile.accelerator) {
    throw ScenarioError(where, "calibration",
                        "a profile of the scenario's accelerator, " +
                            (accelerator.name.empty() ? std::string("(none)") : accelerator.name),
                        "a profile of " + profile.accelerator + " (" + profile.file + ")",
                        "calibrate on measurements of this accelerator, or change the scenario's node");
  }
  MapReader root = profile.document->root();
  MapReader section = root.child("accelerator");
  section.find("base");
  hw::AcceleratorSpec out = read_accelerator_fields(section, std::move(accelerator));
  section.finish();
  return out;
}

coll::CollectiveParams apply_profile_collectives(const CalibrationProfile& profile, coll::CollectiveParams params) {
  MapReader root = profile.document->root();
  if (!root.has("collectives")) return params;
  MapReader section = root.child("collectives");
  read_collectives_section(section, params);
  return params;
}

}  // namespace fathom::scenario
