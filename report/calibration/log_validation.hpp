// `fathom validate`: fathom's simulated nccl-tests against real nccl-tests output. For every log
// (printed output or the CSV form, calibrate/parsers/) it reads the node count, GPUs per node,
// operation and forced algorithm (NCCL_ALGO), simulates the same sizes on the system resized to
// the log's node count and compares busbw per size (in-place where the log has both
// placements). docs/calibration.md describes the command.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "models/collectives/collective_timer.hpp"
#include "report/calibration/measured_system.hpp"

namespace fathom::report {

// The sizes the summary counts: 1 MiB and more.
inline constexpr std::int64_t kValidationSummaryFromBytes = std::int64_t{1} << 20;

struct ValidationRequest {
  std::string scenario;                // the system: a scenario file, resized to each log's node count
  std::vector<std::string> overrides;  // --set for the scenario
  std::string profile;                 // a calibrated profile applied over the system (or its node alone)
  std::vector<std::string> logs;
  int nodes = 0, gpus_per_node = 0;                         // 0: read from each log
  std::string op, algo;                                     // "": from each log
  double max_memory_bytes = scenario::kDefaultMemoryLimit;  // --max-memory
};

struct ValidatedPoint {
  std::int64_t bytes = 0;
  double measured_gbps = 0, simulated_gbps = 0;
  double error = 0;  // (simulated - measured) / measured
  coll::Algorithm algorithm = coll::Algorithm::kRing;
  coll::Protocol protocol = coll::Protocol::kSimple;
};

struct ValidatedLog {
  std::string file, op_name, algo_name;
  int nodes = 0, gpus_per_node = 0;
  std::vector<std::string> assumed;  // what the log does not say and was assumed
  std::vector<ValidatedPoint> points;
};

struct LogValidation {
  std::vector<ValidatedLog> logs;
  std::size_t repeated = 0;  // files that repeated another's measurement (a .log and its .csv)
  std::size_t summary_points = 0;
  double median_rel_error = 0, max_rel_error = 0;  // |error| of the sizes from kValidationSummaryFromBytes
};

// The system the request names (std::invalid_argument when it names none).
MeasuredSystem validation_system(const ValidationRequest& request);

LogValidation validate_logs(const MeasuredSystem& system, const ValidationRequest& request);

// One table per log, then the summary line:
//   files=<n> points=<n> median_rel_error=<x> max_rel_error=<x>
void write_log_validation(std::FILE* out, const LogValidation& validation);

}  // namespace fathom::report
