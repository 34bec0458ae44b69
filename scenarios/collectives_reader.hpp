// The `collectives:` mapping (docs/scenarios.md): read by a scenario and by a calibrated
// profile (calibration_profile.hpp), each over the values it starts from.
#pragma once

#include <functional>

#include "models/collectives/collective_params.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

// Reads the keys present in `c` over `params` and finishes `c` (an unknown key is an error).
// `note`, when set, is called with every value read (the scenario remembers where they sit).
void read_collectives_section(MapReader& c, coll::CollectiveParams& params,
                              const std::function<void(const ValueReader&)>& note = {});

}  // namespace fathom::scenario
