#include "models/workloads/inference/service_metrics.hpp"

#include <algorithm>

#include "sim/stats/histogram.hpp"

namespace fathom::infer {

namespace {

Percentiles percentiles(const sim::ExactQuantiles& q) {
  Percentiles p;
  p.count = static_cast<std::int64_t>(q.count());
  if (p.count == 0) return p;
  p.mean = q.mean();
  p.p50 = q.p50();
  p.p90 = q.p90();
  p.p99 = q.p99();
  p.max = q.max();
  return p;
}

double tpot(const Request& r, const RequestOutcome& o) { return (o.end - o.first_token).to_seconds() / (r.output - 1); }

}  // namespace

bool meets(const Request& r, const RequestOutcome& o, const Slo& slo) {
  if (slo.ttft_s > 0 && (o.first_token - r.arrival).to_seconds() > slo.ttft_s) return false;
  if (slo.tpot_s > 0 && r.output > 1 && tpot(r, o) > slo.tpot_s) return false;
  if (slo.e2e_s > 0 && (o.end - r.arrival).to_seconds() > slo.e2e_s) return false;
  return true;
}

ServiceMetrics summarize(std::span<const Request> requests, const ServiceRun& run, const Slo& slo) {
  ServiceMetrics m;
  m.requests = static_cast<std::int64_t>(requests.size());
  sim::ExactQuantiles ttft, tp, e2e, transfer;
  ttft.reserve(requests.size());
  e2e.reserve(requests.size());
  sim::SimTime last_end = requests.empty() ? sim::SimTime::zero() : requests.front().arrival;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const Request& r = requests[i];
    const RequestOutcome& o = run.requests[i];
    if (!o.finished()) continue;
    ++m.finished;
    ttft.add((o.first_token - r.arrival).to_seconds());
    e2e.add((o.end - r.arrival).to_seconds());
    if (r.output > 1) tp.add(tpot(r, o));
    if (o.kv_arrival.ns() >= 0) transfer.add((o.kv_arrival - o.first_token).to_seconds());
    m.input_tokens += r.prompt;
    m.output_tokens += r.output;
    last_end = std::max(last_end, o.end);
    if (meets(r, o, slo)) ++m.good_requests;
  }
  m.ttft_s = percentiles(ttft);
  m.tpot_s = percentiles(tp);
  m.e2e_s = percentiles(e2e);
  m.kv_transfer_s = percentiles(transfer);
  if (!requests.empty()) m.duration_s = (last_end - requests.front().arrival).to_seconds();
  if (m.duration_s > 0) {
    m.throughput_tokens_per_s = static_cast<double>(m.output_tokens) / m.duration_s;
    m.total_tokens_per_s = static_cast<double>(m.input_tokens + m.output_tokens) / m.duration_s;
    m.requests_per_s = static_cast<double>(m.finished) / m.duration_s;
    m.goodput_requests_per_s = static_cast<double>(m.good_requests) / m.duration_s;
  }
  std::int64_t iterations = 0, sequences = 0;
  for (const ReplicaStats& s : run.replicas) {
    m.preemptions += s.preemptions;
    m.swapped_blocks += s.swapped_blocks;
    iterations += s.iterations;
    sequences += s.sequences;
    if (s.kv_blocks > 0) {
      if (m.duration_s > 0)
        m.kv_cache_utilization += s.block_seconds / (static_cast<double>(s.kv_blocks) * m.duration_s);
      m.peak_kv_cache_utilization =
          std::max(m.peak_kv_cache_utilization, static_cast<double>(s.peak_blocks) / static_cast<double>(s.kv_blocks));
    }
    if (m.duration_s > 0) m.busy_fraction += s.busy_s / m.duration_s;
  }
  if (!run.replicas.empty()) {
    m.kv_cache_utilization /= static_cast<double>(run.replicas.size());
    m.busy_fraction /= static_cast<double>(run.replicas.size());
  }
  if (iterations > 0) m.mean_batch = static_cast<double>(sequences) / static_cast<double>(iterations);
  return m;
}

}  // namespace fathom::infer
