// A job as a trace records it: who submitted it and when, what it asked for, how long it ran
// where it was logged. Every trace format (SWF, the Microsoft ITP CSVs, the Alibaba pod list,
// generic CSVs) is read into this one record by its reader in scenarios/; the schedulers and the
// cluster model read nothing else. Times are integer nanoseconds from the trace's own origin.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/time.hpp"

namespace fathom::jobs {

// How the job ended in the system that logged it.
enum class JobStatus : std::uint8_t {
  kCompleted,
  kFailed,     // SWF lumps failed and killed jobs together
  kCancelled,  // cancelled, possibly after it started
  kPartial,    // one part of a job checkpointed and restarted (SWF status 2, 3 and 4)
  kUnknown,
};

std::string_view status_name(JobStatus status);

struct TraceJob {
  std::int64_t id = 0;     // the trace's job number (a CSV's row number where its ids are text)
  std::int32_t user = -1;  // -1: not in the trace
  std::int32_t group = -1;
  sim::SimTime submit;
  sim::SimTime run;                         // its run time where it was logged
  std::optional<sim::SimTime> estimate;     // the user's requested time, when the trace has it
  std::optional<sim::SimTime> logged_wait;  // its wait where it was logged, when the trace has it
  std::int32_t gpus = 0;                    // whole devices asked for (SWF: processors)
  std::int32_t milli_per_gpu = 1000;        // below 1000: a share of one GPU (GPU sharing)
  JobStatus status = JobStatus::kUnknown;
  std::int32_t line = 0;  // 1-based line of the trace file, so that a later check can point at it
};

}  // namespace fathom::jobs
