// A calibrated profile (`fathom calibrate -o PROFILE`, docs/calibration.md "The profile"): the
// hardware parameters fitted to one system's microbenchmarks, which a scenario applies with
// `calibration: FILE` over the catalog's defaults. Read as strictly as a scenario.
//
//   profile: 1                       # schema version
//   system: azure-nd-h100-v5         # free text: what was measured
//   node: dgx-h100                   # hardware catalog node the measurements ran on (optional)
//   created: 2026-11-30T15:04:05Z    # provenance: when, with what, from which files
//   tool: fathom calibrate 0.1 (git 7adc9a7)
//   sources: [{file: ..., sha256: ..., kind: nccl-tests, rows: 24, used: fit}]
//   accelerator: {base: h100-sxm, efficiency: {...}}   # as a scenario's hardware.accelerator
//   collectives: {alpha: 12345ns, step: 15000ns, efficiency: {nvls: 0.77}}  # as a scenario's
//   local_nvme: {read_bandwidth: 55.3GB/s, write_bandwidth: 33.9GB/s, iops: 1.2e6}  # from fio
//   fits: {...}                      # fit quality and uncertainties: a report, not read back
//
// `accelerator` applies over its `base` (a catalog accelerator); `collectives` over the
// defaults the accelerator gives; `local_nvme` is the node's own drives, which a scenario's
// local_nvme tier without bandwidths takes. All are optional: a profile fitted only on GEMMs
// leaves the collectives alone.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "models/collectives/collective_params.hpp"
#include "models/hardware/accelerator.hpp"
#include "models/storage/storage_tier.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

inline constexpr int kProfileVersion = 1;

struct CalibrationProfile {
  std::string file;
  std::string system;
  std::string node;         // catalog node name, or empty
  std::string accelerator;  // the accelerator section's base, or empty when there is none
  std::shared_ptr<Document> document;
  // The node's drives as fio measured them (read_bandwidth, write_bandwidth, iops), when fitted.
  std::optional<storage::TierSpec> local_nvme;

  bool has_accelerator() const { return !accelerator.empty(); }
};

// Reads and checks `file`: every section is read once over its defaults, so a bad value is an
// error here (FILE:LINE:COL: key: expected, found), not when a scenario applies it.
CalibrationProfile load_calibration_profile(const std::string& file);

// `accelerator` with the profile's accelerator section applied. The accelerator must be the
// profile's base (by name); otherwise a ScenarioError at `where` says which the profile is for.
hw::AcceleratorSpec apply_profile_accelerator(const CalibrationProfile& profile, hw::AcceleratorSpec accelerator,
                                              const Location& where);

// `params` with the profile's collectives section applied.
coll::CollectiveParams apply_profile_collectives(const CalibrationProfile& profile, coll::CollectiveParams params);

// The collectives' defaults for `accelerator` (its NVLink and NIC efficiencies for the ring, tree
// and NIC fractions), as a scenario derives them.
coll::CollectiveParams collective_defaults(const hw::AcceleratorSpec& accelerator);

}  // namespace fathom::scenario
