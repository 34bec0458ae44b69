#include "report/json_header.hpp"

#include "sim/output/json_writer.hpp"

namespace fathom::report {

void begin_report_json(sim::JsonWriter& j, const scenario::Scenario& s) {
  j.begin_object();
  j.member("fathom_version", FATHOM_VERSION);
  j.key("scenario");
  j.begin_object();
  j.member("file", s.file);
  j.member("seed", s.seed);
  j.end_object();
}

}  // namespace fathom::report
