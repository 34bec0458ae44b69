// The first members every JSON report but the training step's opens with (the training report
// adds the scenario's keys and catalogs; docs/report.md).
#pragma once

#include "scenarios/scenario.hpp"

namespace fathom::sim {
class JsonWriter;
}

namespace fathom::report {

// Opens the report's JSON object and writes fathom's version and the scenario's file and seed.
void begin_report_json(sim::JsonWriter& j, const scenario::Scenario& s);

}  // namespace fathom::report
