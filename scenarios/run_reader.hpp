// The keys of a whole run (docs/run.md): `storage:` (the tiers), `failures:` (what fails and
// how the cluster recovers), under a training workload `run:` (how long, how many
// replications), `checkpoint:` (how often, where, how) and `data:` (what each step reads), and
// `availability:` (a service).
#pragma once

#include <functional>
#include <vector>

#include "models/reliability/availability.hpp"
#include "models/reliability/failure_spec.hpp"
#include "models/reliability/run_setup.hpp"
#include "models/storage/storage_tier.hpp"
#include "models/workloads/training/checkpoint.hpp"
#include "models/workloads/training/data_loading.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

using Note = std::function<void(const ValueReader&)>;

// `storage:` a mapping of tier names to tiers. `calibrated`: the node's drives from the
// scenario's calibration profile (null without one), which a local_nvme tier without bandwidths
// takes. `catalog`: the storage catalog's entries, each with its `source` (or the `entry:` it
// starts from).
std::vector<storage::TierSpec> read_storage_section(MapReader& section, const Note& note,
                                                    const storage::TierSpec* calibrated = nullptr,
                                                    bool catalog = false);
// One entry of a storage catalog file (a user catalog's storage.yaml): a tier with its `source`,
// or one that starts from another entry with `entry:`.
storage::TierSpec read_storage_entry(MapReader& entry, const std::string& name);
// `failures:` `none`, or a mapping over the default table.
rel::FailureSpec read_failures_section(const ValueReader& value, const Note& note);
// `workload.run`.
rel::RunSpec read_run_section(MapReader& section, const Note& note);
// `workload.checkpoint`; its `tier` must name one of `tiers`.
train::CheckpointSpec read_checkpoint_section(MapReader& section, const std::vector<storage::TierSpec>& tiers,
                                              const Note& note);
// `workload.data`: the tier the samples are read from (one of `tiers`), an optional local_nvme
// cache tier, and the samples' size.
train::DataSpec read_data_section(MapReader& section, const std::vector<storage::TierSpec>& tiers, const Note& note);

// `availability:` a service's replicas, repairs, failover and dependencies.
rel::ServiceSpec read_availability_section(MapReader& section, const Note& note);

}  // namespace fathom::scenario
