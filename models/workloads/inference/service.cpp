#include "models/workloads/inference/service.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "models/workloads/inference/replica_engine.hpp"
#include "sim/context.hpp"
#include "sim/errors.hpp"

namespace fathom::infer {

namespace {

enum Kind : sim::EventKind { kArrive, kAdmit, kIterationEnd, kDone };

class RouterLp final : public sim::LogicalProcess {
 public:
  RouterLp(std::span<const Request> requests, const ServiceSpec& spec)
      : requests_(requests), spec_(spec), outstanding_(static_cast<std::size_t>(spec.serving.replicas), 0) {}

  void on_start(sim::Context& ctx) override {
    if (!requests_.empty()) ctx.send(ctx.self(), requests_[0].arrival, kArrive, sim::Payload::of(std::uint32_t{0}));
  }

  void on_event(const sim::Event& event, sim::Context& ctx) override {
    if (event.kind == kDone) {
      --outstanding_[event.payload.as<std::uint32_t>()];
      return;
    }
    const auto i = event.payload.as<std::uint32_t>();
    const std::uint32_t replica = pick();
    ++outstanding_[replica];
    // Replica r is LP r + 1.
    ctx.send(replica + 1, spec_.dispatch_delay, kAdmit, sim::Payload::of(i));
    if (i + 1 < requests_.size()) {
      ctx.send(ctx.self(), requests_[i + 1].arrival - requests_[i].arrival, kArrive, sim::Payload::of(i + 1));
    }
  }

 private:
  std::uint32_t pick() {
    const auto n = static_cast<std::uint32_t>(outstanding_.size());
    if (spec_.serving.routing == Routing::kRoundRobin) return next_++ % n;
    return static_cast<std::uint32_t>(std::min_element(outstanding_.begin(), outstanding_.end()) -
                                      outstanding_.begin());
  }

  std::span<const Request> requests_;
  const ServiceSpec& spec_;
  std::vector<std::int64_t> outstanding_;
  std::uint32_t next_ = 0;
};

class ReplicaLp final : public sim::LogicalProcess {
 public:
  ReplicaLp(std::int32_t index, std::span<const Request> requests, const ServiceSpec& spec, const IterationModel& model,
            std::vector<RequestOutcome>& outcomes)
      : index_(index),
        requests_(requests),
        spec_(spec),
        engine_(spec.serving, spec.kv_blocks, model),
        outcomes_(outcomes) {
    stats_.kv_blocks = spec.kv_blocks;
  }

  void on_event(const sim::Event& event, sim::Context& ctx) override {
    if (event.kind == kAdmit) {
      const auto i = event.payload.as<std::uint32_t>();
      engine_.admit(i, requests_[i].prompt, requests_[i].output);
      outcomes_[i].replica = index_;
      if (!busy_) begin(ctx);
      return;
    }
    // kIterationEnd
    engine_.end_iteration(produced_);
    for (std::uint32_t r : produced_.first_tokens) outcomes_[r].first_token = ctx.now();
    for (std::uint32_t r : produced_.finished) {
      outcomes_[r].end = ctx.now();
      ctx.send(0, spec_.dispatch_delay, kDone, sim::Payload::of(static_cast<std::uint32_t>(index_)));
    }
    busy_ = false;
    begin(ctx);
  }

  const ReplicaStats& stats() const { return stats_; }
  std::vector<IterationRecord>& records() { return records_; }

 private:
  void begin(sim::Context& ctx) {
    const double seconds = engine_.begin_iteration();
    for (std::uint32_t r : engine_.preempted()) ++outcomes_[r].preemptions;
    stats_.preemptions += static_cast<std::int64_t>(engine_.preempted().size());
    if (seconds < 0) {
      if (!engine_.idle()) {
        throw sim::ModelError("replica " + std::to_string(index_) + ": " + std::to_string(engine_.waiting()) +
                              " waiting requests that its KV cache cannot hold");
      }
      return;
    }
    const sim::SimTime d = sim::SimTime::from_ns(std::max<std::int64_t>(1, std::llround(seconds * 1e9)));
    const IterationWork& w = engine_.work();
    ++stats_.iterations;
    stats_.busy_s += d.to_seconds();
    stats_.block_seconds += static_cast<double>(engine_.used_blocks()) * d.to_seconds();
    stats_.peak_blocks = std::max(stats_.peak_blocks, engine_.used_blocks());
    stats_.tokens += w.tokens;
    stats_.sequences += w.sequences;
    const IterationTime& t = engine_.time();
    stats_.time.gemm += t.gemm;
    stats_.time.attention += t.attention;
    stats_.time.elementwise += t.elementwise;
    stats_.time.communication += t.communication;
    stats_.time.output += t.output;
    stats_.time.overhead += t.overhead;
    if (spec_.record_iterations) {
      records_.push_back({ctx.now(), d, index_, static_cast<std::int32_t>(w.sequences),
                          static_cast<std::int32_t>(w.tokens), engine_.used_blocks()});
    }
    busy_ = true;
    ctx.send(ctx.self(), d, kIterationEnd);
  }

  std::int32_t index_;
  std::span<const Request> requests_;
  const ServiceSpec& spec_;
  ReplicaEngine engine_;
  std::vector<RequestOutcome>& outcomes_;
  ReplicaEngine::Produced produced_;
  ReplicaStats stats_;
  std::vector<IterationRecord> records_;
  bool busy_ = false;
};

}  // namespace

ServiceRun run_service(std::span<const Request> requests, const ServiceSpec& spec, const IterationModel& model,
                       std::uint64_t seed, const sim::RunOptions& options) {
  for (std::size_t i = 1; i < requests.size(); ++i) {
    if (requests[i].arrival < requests[i - 1].arrival) {
      throw std::invalid_argument("requests: request " + std::to_string(i) + " arrives before the one above it");
    }
  }
  if (requests.size() >= std::size_t{0xffffffffu}) throw std::invalid_argument("requests: more than 2^32 - 1");
  ServiceRun run;
  run.requests.assign(requests.size(), RequestOutcome{});
  sim::Simulation simulation(seed);
  const bool apart = spec.dispatch_delay > sim::SimTime::zero();
  simulation.add(std::make_unique<RouterLp>(requests, spec), apart ? sim::Simulation::kOwnGroup : 0);
  std::vector<ReplicaLp*> replicas;
  for (std::int32_t r = 0; r < spec.serving.replicas; ++r) {
    auto lp = std::make_unique<ReplicaLp>(r, requests, spec, model, run.requests);
    replicas.push_back(lp.get());
    simulation.add(std::move(lp), apart ? sim::Simulation::kOwnGroup : 0);
  }
  if (apart) simulation.set_lookahead(spec.dispatch_delay);
  const sim::RunResult result = simulation.run(options);
  run.end = result.last_event_time;
  run.events = result.committed;
  run.fingerprint = result.fingerprint;
  for (ReplicaLp* r : replicas) {
    run.replicas.push_back(r->stats());
    auto& records = r->records();
    run.iterations.insert(run.iterations.end(), records.begin(), records.end());
  }
  return run;
}

}  // namespace fathom::infer
