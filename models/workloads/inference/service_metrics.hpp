// The figures of a service run (docs/inference.md defines each): latency percentiles, throughput,
// goodput under the SLO, the KV cache's use and preemptions. As vLLM's and TensorRT-LLM's
// benchmark scripts count them:
//   - TTFT: arrival to the first token; TPOT: (end - first token) / (output - 1), for requests of
//     more than one output token; E2E: arrival to the last token;
//   - the run's duration: the first arrival to the last request's end; throughput: the finished
//     requests' output tokens over it;
//   - goodput: requests that meet every SLO bound given, per second of the duration.
#pragma once

#include <cstdint>
#include <span>

#include "models/workloads/inference/requests.hpp"
#include "models/workloads/inference/service.hpp"

namespace fathom::infer {

// Latency bounds a request must meet to count towards goodput; 0: no bound.
struct Slo {
  double ttft_s = 0;
  double tpot_s = 0;
  double e2e_s = 0;
  bool any() const { return ttft_s > 0 || tpot_s > 0 || e2e_s > 0; }
};

struct Percentiles {
  std::int64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;  // 0 when count is 0
};

struct ServiceMetrics {
  std::int64_t requests = 0;
  std::int64_t finished = 0;
  Percentiles ttft_s, tpot_s, e2e_s;
  Percentiles kv_transfer_s;  // disaggregated: first token to the KV cache's arrival on the decode replica
  double duration_s = 0;
  std::int64_t input_tokens = 0, output_tokens = 0;  // of finished requests
  double throughput_tokens_per_s = 0;                // output tokens
  double total_tokens_per_s = 0;                     // input and output tokens
  double requests_per_s = 0;                         // finished requests
  std::int64_t good_requests = 0;                    // meeting the SLO
  double goodput_requests_per_s = 0;
  double kv_cache_utilization = 0;       // blocks held over blocks, time-weighted over the duration, mean of replicas
  double peak_kv_cache_utilization = 0;  // the fullest replica's peak
  std::int64_t preemptions = 0;
  std::int64_t swapped_blocks = 0;  // blocks copied to host memory (preemption: swap)
  double mean_batch = 0;            // sequences per iteration
  double busy_fraction = 0;         // replicas' time in iterations over duration, mean
};

ServiceMetrics summarize(std::span<const Request> requests, const ServiceRun& run, const Slo& slo);

// Whether request `r`, which finished, meets `slo`.
bool meets(const Request& request, const RequestOutcome& outcome, const Slo& slo);

}  // namespace fathom::infer
