#include "models/workloads/jobs/trace_job.hpp"

namespace fathom::jobs {

std::string_view status_name(JobStatus status) {
  switch (status) {
    case JobStatus::kCompleted:
      return "completed";
    case JobStatus::kFailed:
      return "failed";
    case JobStatus::kCancelled:
      return "cancelled";
    case JobStatus::kPartial:
      return "partial";
    case JobStatus::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace fathom::jobs
