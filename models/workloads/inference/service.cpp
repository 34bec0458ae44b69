#include "models/workloads/inference/service.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "models/workloads/inference/replica_engine.hpp"
#include "sim/context.hpp"
#include "sim/errors.hpp"

namespace fathom::infer {

namespace {

enum Kind : sim::EventKind { kArrive, kAdmit, kIterationEnd, kDone, kBusy, kIdle, kTick, kReady, kPrefilled, kLoaded };

// At one instant, the replicas' reports before the autoscaler reads them.
constexpr std::uint8_t kAfterReports = 1;

// What a replica tells the router when a request ends: which replica, which request.
struct DoneOf {
  std::uint32_t replica;
  std::uint32_t request;
};

// A request for a replica; `preloaded`: its KV cache came from a prefill replica.
struct AdmitOf {
  std::uint32_t request;
  std::uint32_t preloaded;
};

// kAwaiting: on a shared cluster, asked for its GPUs and not yet given them.
enum class State : std::uint8_t { kOff, kAwaiting, kStarting, kReady, kDraining };

class RouterLp final : public sim::LogicalProcess {
 public:
  RouterLp(std::span<const Request> requests, const ServiceSpec& spec, std::optional<ClaimLink> claims)
      : requests_(requests), spec_(spec), claims_(claims) {
    const std::size_t n = lp_replicas(spec) + static_cast<std::size_t>(spec.disaggregation.prefill_replicas);
    decode_ = lp_replicas(spec);
    sender_free_.assign(n, 0);
    outstanding_.assign(n, 0);
    held_tokens_.assign(n, 0);
    state_.assign(n, State::kOff);
    busy_since_.assign(n, -1);
    busy_ns_.assign(n, 0);
    for (int r = 0; r < spec.serving.replicas; ++r) state_[static_cast<std::size_t>(r)] = State::kReady;
    for (std::size_t r = decode_; r < n; ++r) state_[r] = State::kReady;
    load_of_.assign(n, sim::SimTime::zero());
  }

  // Replica r is LP first + r.
  void set_first_replica(sim::LpId first) { first_replica_ = first; }

  // The replicas that generate tokens: serving.replicas, or the autoscaler's max_replicas.
  static std::size_t lp_replicas(const ServiceSpec& spec) {
    return static_cast<std::size_t>(spec.autoscaler.enabled ? spec.autoscaler.max_replicas : spec.serving.replicas);
  }

  void on_start(sim::Context& ctx) override {
    record(ctx.now());
    if (!requests_.empty()) ctx.send(ctx.self(), requests_[0].arrival, kArrive, sim::Payload::of(std::uint32_t{0}));
    if (spec_.autoscaler.enabled) ctx.send(ctx.self(), spec_.autoscaler.interval, kTick, {}, kAfterReports);
  }

  // Where the KV transfers go with a fabric: the fabric's LP and the least delay of a post.
  void use_fabric(sim::LpId fabric, sim::SimTime lookahead, net::ConnectionId first) {
    fabric_ = fabric;
    fabric_lookahead_ = lookahead;
    first_connection_ = first;
  }

  void on_event(const sim::Event& event, sim::Context& ctx) override {
    if (fabric_ && event.src == *fabric_ && event.kind == net::FabricLp::kDelivered) {
      // A KV cache has arrived at its decode replica: it may start decoding.
      const auto i = event.payload.as<std::uint32_t>();
      ctx.send(first_replica_ + kv_destination_[i], spec_.dispatch_delay, kAdmit, sim::Payload::of(AdmitOf{i, 1}));
      return;
    }
    if (claims_ && event.src == claims_->cluster && event.kind == jobs::kGranted) {
      granted(event.payload.as<jobs::ClaimOf>().replica, ctx);
      return;
    }
    switch (event.kind) {
      case kArrive:
        arrive(event.payload.as<std::uint32_t>(), ctx);
        return;
      case kDone: {
        const auto d = event.payload.as<DoneOf>();
        --outstanding_[d.replica];
        held_tokens_[d.replica] -= requests_[d.request].prompt;
        ++finished_;
        if (state_[d.replica] == State::kDraining && outstanding_[d.replica] == 0) {
          stop(d.replica, ctx);
          record(ctx.now());
        }
        if (claims_ && finished_ == requests_.size()) leave(ctx);
        return;
      }
      case kBusy:
        busy_since_[event.payload.as<std::uint32_t>()] = ctx.now().ns();
        return;
      case kIdle: {
        const auto r = event.payload.as<std::uint32_t>();
        if (busy_since_[r] >= 0) busy_ns_[r] += ctx.now().ns() - busy_since_[r];
        busy_since_[r] = -1;
        return;
      }
      case kPrefilled: {
        // A prefill replica's request has its first token: its KV cache goes to a decode replica.
        const auto d = event.payload.as<DoneOf>();
        --outstanding_[d.replica];
        held_tokens_[d.replica] -= requests_[d.request].prompt;
        hand_over(d.replica, d.request, ctx);
        return;
      }
      case kReady: {
        const auto r = event.payload.as<std::uint32_t>();
        // One stopped while it started (its service left a shared cluster) stays off.
        if (state_[r] != State::kStarting) return;
        state_[r] = State::kReady;
        record(ctx.now());
        return;
      }
      case kTick:
        tick(ctx);
        return;
      default:
        throw sim::ModelError("inference router: an event of unknown kind " + std::to_string(event.kind));
    }
  }

  std::vector<ReplicaCount>& counts() { return counts_; }
  // On a shared cluster, when the service handed its GPUs back (its last request's end).
  std::optional<sim::SimTime> left() const { return left_; }
  double replica_seconds(sim::SimTime end) const {
    double total = up_seconds_;
    if (!counts_.empty()) {
      const ReplicaCount& c = counts_.back();
      total += static_cast<double>(c.ready + c.starting + c.draining) * (end - c.time).to_seconds();
    }
    return total;
  }

 private:
  void arrive(std::uint32_t i, sim::Context& ctx) {
    const bool split = spec_.disaggregation.enabled();
    const std::uint32_t replica = split ? pick(decode_, state_.size()) : pick(0, decode_);
    ++outstanding_[replica];
    held_tokens_[replica] += requests_[i].prompt;
    ctx.send(first_replica_ + replica, spec_.dispatch_delay, kAdmit, sim::Payload::of(AdmitOf{i, 0}));
    if (i + 1 < requests_.size()) {
      ctx.send(ctx.self(), requests_[i + 1].arrival - requests_[i].arrival, kArrive, sim::Payload::of(i + 1));
    }
  }

  // The prefill replica's KV cache sent to the decode replica the routing policy picks: after the
  // prefill replica's earlier transfers, a latency and the bytes at its link's rate.
  void hand_over(std::uint32_t from, std::uint32_t i, sim::Context& ctx) {
    const DisaggregationSpec& d = spec_.disaggregation;
    if (requests_[i].output == 1) {  // nothing left to generate: the first token was the last
      ++finished_;
      return;
    }
    const std::uint32_t to = pick(0, decode_);
    ++outstanding_[to];
    held_tokens_[to] += requests_[i].prompt;
    const double bytes = d.kv_bytes_per_token * requests_[i].prompt;
    if (fabric_) {
      if (kv_destination_.empty()) kv_destination_.assign(requests_.size(), 0);
      kv_destination_[i] = to;
      const std::size_t p = from - decode_;
      const auto connection = static_cast<net::ConnectionId>(first_connection_ + p * decode_ + to);
      net::FabricLp::post(ctx, *fabric_, fabric_lookahead_, net::PostedTransfer{connection, i, bytes});
      return;
    }
    const bool same_node = d.node_of[from] == d.node_of[to];
    const double rate = same_node ? d.same_node_bytes_per_s : d.cross_node_bytes_per_s;
    const double seconds = bytes / rate;
    const std::int64_t start = std::max(ctx.now().ns(), sender_free_[from]);
    const std::int64_t end = start + d.transfer_latency.ns() + std::llround(seconds * 1e9);
    sender_free_[from] = end;
    ctx.send(to + 1, sim::SimTime::from_ns(end - ctx.now().ns()), kAdmit, sim::Payload::of(AdmitOf{i, 1}));
  }

  // The ready replica of [begin, end) the routing policy picks; ties to the lowest index.
  std::uint32_t pick(std::size_t begin, std::size_t end) {
    const auto n = static_cast<std::uint32_t>(end - begin);
    if (spec_.serving.routing == Routing::kRoundRobin) {
      std::uint32_t& next = begin == 0 ? next_ : next_prefill_;
      for (std::uint32_t k = 0; k < n; ++k) {
        const auto r = static_cast<std::uint32_t>(begin + next++ % n);
        if (state_[r] == State::kReady) return r;
      }
    }
    const std::vector<std::int64_t>& load = spec_.serving.routing == Routing::kKvAware ? held_tokens_ : outstanding_;
    auto best = static_cast<std::uint32_t>(end);
    for (auto r = static_cast<std::uint32_t>(begin); r < end; ++r) {
      if (state_[r] != State::kReady) continue;
      if (best == end || load[r] < load[best]) best = r;
    }
    if (best == end) throw sim::ModelError("inference router: no replica is ready");
    return best;
  }

  void record(sim::SimTime now) {
    ReplicaCount c;
    c.time = now;
    for (std::size_t r = 0; r < decode_; ++r) {  // the decode pool: the prefill pool does not scale
      const State x = state_[r];
      c.waiting += x == State::kAwaiting ? 1 : 0;
      c.ready += x == State::kReady ? 1 : 0;
      c.starting += x == State::kStarting ? 1 : 0;
      c.draining += x == State::kDraining ? 1 : 0;
    }
    if (!counts_.empty()) {
      const ReplicaCount& p = counts_.back();
      up_seconds_ += static_cast<double>(p.ready + p.starting + p.draining) * (now - p.time).to_seconds();
      if (p.time == now) counts_.pop_back();
    }
    counts_.push_back(c);
  }

  // One HPA sync: the metric over the ready replicas, the recommendation, the stabilization windows.
  void tick(sim::Context& ctx) {
    const AutoscalerSpec& a = spec_.autoscaler;
    const std::int64_t now = ctx.now().ns();
    int ready = 0, active = 0;
    double metric = 0;
    for (std::size_t r = 0; r < decode_; ++r) {
      std::int64_t busy = busy_ns_[r];
      if (busy_since_[r] >= 0) {
        busy += now - busy_since_[r];
        busy_since_[r] = now;
      }
      busy_ns_[r] = 0;
      if (state_[r] == State::kReady || state_[r] == State::kStarting || state_[r] == State::kAwaiting) ++active;
      if (state_[r] != State::kReady) continue;
      ++ready;
      metric += a.metric == ScaleMetric::kUtilization ? static_cast<double>(busy) / static_cast<double>(a.interval.ns())
                                                      : static_cast<double>(outstanding_[r]);
    }
    if (ready > 0) {
      metric /= ready;
      const double ratio = metric / a.target;
      int desired = active;
      if (std::abs(ratio - 1) > a.tolerance) desired = static_cast<int>(std::ceil(active * ratio - 1e-9));
      desired = std::clamp(desired, a.min_replicas, a.max_replicas);
      history_.push_back({now, desired});
      const auto window_extreme = [&](std::int64_t window, bool highest) {
        int x = desired;
        for (const auto& [t, d] : history_) {
          if (t >= now - window) x = highest ? std::max(x, d) : std::min(x, d);
        }
        return x;
      };
      int target = active;
      if (desired > active) target = std::max(active, window_extreme(a.up_window.ns(), false));
      if (desired < active) target = std::min(active, window_extreme(a.down_window.ns(), true));
      const std::int64_t keep = std::max(a.up_window.ns(), a.down_window.ns());
      while (!history_.empty() && history_.front().first < now - keep) history_.pop_front();
      scale(target - active, ctx);
    }
    // Keep syncing while requests remain to arrive or to finish.
    if (finished_ < requests_.size()) ctx.send(ctx.self(), a.interval, kTick, {}, kAfterReports);
  }

  void scale(int change, sim::Context& ctx) {
    if (change > 0) {
      std::vector<std::uint32_t> started;
      for (std::uint32_t r = 0; r < decode_ && static_cast<int>(started.size()) < change; ++r) {
        if (state_[r] == State::kOff) started.push_back(r);
      }
      const AutoscalerSpec& a = spec_.autoscaler;
      const sim::SimTime load =
          a.load.empty() ? sim::SimTime::zero() : a.load[std::min(started.size(), a.load.size()) - 1];
      for (std::uint32_t r : started) {
        if (claims_) {
          // On a shared cluster it starts when the cluster gives it GPUs (granted()).
          state_[r] = State::kAwaiting;
          load_of_[r] = load;
          ctx.send(claims_->cluster, sim::SimTime::zero(), jobs::kClaim, claim_of(r));
          continue;
        }
        state_[r] = State::kStarting;
        ctx.send(ctx.self(), sim::SimTime::saturating_add(a.startup, load), kReady, sim::Payload::of(r));
      }
    }
    for (int k = 0; k < -change; ++k) {
      // A replica still waiting for GPUs is withdrawn first (as Kubernetes deletes unscheduled
      // pods first); else the highest ready replica drains, and stops at once when it holds nothing.
      const auto highest = [&](State x) {
        for (std::size_t r = decode_; r-- > 0;) {
          if (state_[r] == x) return static_cast<std::int64_t>(r);
        }
        return std::int64_t{-1};
      };
      if (const std::int64_t r = highest(State::kAwaiting); r >= 0) {
        state_[static_cast<std::size_t>(r)] = State::kOff;
        ctx.send(claims_->cluster, sim::SimTime::zero(), jobs::kCancelClaim, claim_of(static_cast<std::uint32_t>(r)));
      } else if (const std::int64_t q = highest(State::kReady); q >= 0) {
        const auto r2 = static_cast<std::uint32_t>(q);
        if (outstanding_[r2] == 0) {
          stop(r2, ctx);
        } else {
          state_[r2] = State::kDraining;
        }
      }
    }
    if (change != 0) record(ctx.now());
  }

  sim::Payload claim_of(std::uint32_t r) const { return sim::Payload::of(jobs::ClaimOf{claims_->service, r}); }

  // A replica stops: on a shared cluster its GPUs go back.
  void stop(std::uint32_t r, sim::Context& ctx) {
    state_[r] = State::kOff;
    if (claims_) ctx.send(claims_->cluster, sim::SimTime::zero(), jobs::kRelease, claim_of(r));
  }

  // The cluster gave replica r its GPUs: it starts, and is ready after its start-up and the
  // model's load. One withdrawn meanwhile hands them back at once.
  void granted(std::uint32_t r, sim::Context& ctx) {
    if (state_[r] != State::kAwaiting) {
      ctx.send(claims_->cluster, sim::SimTime::zero(), jobs::kRelease, claim_of(r));
      return;
    }
    state_[r] = State::kStarting;
    ctx.send(ctx.self(), sim::SimTime::saturating_add(spec_.autoscaler.startup, load_of_[r]), kReady,
             sim::Payload::of(r));
    record(ctx.now());
  }

  // Every request has ended: the service leaves the shared cluster, its GPUs back to the jobs.
  void leave(sim::Context& ctx) {
    for (std::uint32_t r = 0; r < decode_; ++r) {
      if (state_[r] == State::kAwaiting) {
        state_[r] = State::kOff;
        ctx.send(claims_->cluster, sim::SimTime::zero(), jobs::kCancelClaim, claim_of(r));
      } else if (state_[r] != State::kOff) {
        stop(r, ctx);
      }
    }
    left_ = ctx.now();
    record(ctx.now());
  }

  std::span<const Request> requests_;
  const ServiceSpec& spec_;
  std::vector<std::int64_t> outstanding_;
  std::vector<std::int64_t> held_tokens_;  // prompt tokens of the unfinished requests, by replica
  std::vector<State> state_;
  std::vector<std::int64_t> busy_since_;   // ns, or -1 while idle
  std::vector<std::int64_t> busy_ns_;      // busy time in the current interval
  std::size_t decode_ = 0;                 // replicas [0, decode_) generate; the rest prefill
  std::vector<std::int64_t> sender_free_;  // ns: when a prefill replica's last transfer ends
  std::uint32_t next_ = 0;
  std::uint32_t next_prefill_ = 0;
  std::size_t finished_ = 0;
  std::deque<std::pair<std::int64_t, int>> history_;  // (time ns, recommendation)
  std::optional<sim::LpId> fabric_;                   // with KV transfers on the network model
  sim::SimTime fabric_lookahead_;
  net::ConnectionId first_connection_ = 0;
  std::vector<std::uint32_t> kv_destination_;  // by request: the decode replica its KV cache goes to
  std::vector<ReplicaCount> counts_;
  double up_seconds_ = 0;
  std::optional<ClaimLink> claims_;    // on a shared cluster: where GPUs come from
  sim::LpId first_replica_ = 1;        // the LP of replica 0
  std::vector<sim::SimTime> load_of_;  // by replica waiting for GPUs: its model load once they come
  std::optional<sim::SimTime> left_;
};

class ReplicaLp final : public sim::LogicalProcess {
 public:
  // A replica of the decode (or only) pool, or with `prefill` one of the prefill pool, which runs
  // each request to its first token only. A replica of pp pipeline stages runs pp virtual engines
  // (vLLM V0's pipeline parallelism), each with its own batch and 1/pp of the cache; a request
  // goes to the one with the fewest unfinished requests (ties: the lowest).
  ReplicaLp(std::int32_t index, std::span<const Request> requests, const ServiceSpec& spec, const IterationModel& model,
            std::vector<RequestOutcome>& outcomes, bool prefill, sim::LpId router)
      : index_(index), prefill_(prefill), router_(router), requests_(requests), spec_(spec), outcomes_(outcomes) {
    const ServingSpec& serving = prefill ? spec.disaggregation.prefill : spec.serving;
    const std::int64_t blocks = prefill ? spec.disaggregation.prefill_kv_blocks : spec.kv_blocks;
    const int engines = std::max(1, serving.pp);
    engines_.reserve(static_cast<std::size_t>(engines));
    for (int e = 0; e < engines; ++e) engines_.emplace_back(serving, blocks / engines, model, spec.swap);
    busy_.assign(engines_.size(), false);
    stats_.kv_blocks = blocks / engines * engines;
  }

  void on_event(const sim::Event& event, sim::Context& ctx) override {
    if (event.kind == kAdmit) {
      const auto a = event.payload.as<AdmitOf>();
      const Request& q = requests_[a.request];
      std::size_t e = 0;
      for (std::size_t k = 1; k < engines_.size(); ++k) {
        if (engines_[k].unfinished() < engines_[e].unfinished()) e = k;
      }
      ReplicaEngine& engine = engines_[e];
      if (prefill_) {
        engine.admit(a.request, q.prompt, 1);
        outcomes_[a.request].prefill_replica = index_;
      } else if (a.preloaded != 0) {
        engine.admit_preloaded(a.request, q.prompt, q.output);
        outcomes_[a.request].kv_arrival = ctx.now();
        outcomes_[a.request].replica = index_;
      } else {
        engine.admit(a.request, q.prompt, q.output);
        outcomes_[a.request].replica = index_;
      }
      if (!busy_[e]) begin(e, ctx);
      return;
    }
    // kIterationEnd
    const auto e = static_cast<std::size_t>(event.payload.as<std::uint32_t>());
    engines_[e].end_iteration(produced_);
    for (std::uint32_t r : produced_.first_tokens) outcomes_[r].first_token = ctx.now();
    for (std::uint32_t r : produced_.finished) {
      const DoneOf done{static_cast<std::uint32_t>(index_), r};
      if (prefill_) {
        if (requests_[r].output == 1) outcomes_[r].end = ctx.now();
        ctx.send(router_, spec_.dispatch_delay, kPrefilled, sim::Payload::of(done));
        continue;
      }
      outcomes_[r].end = ctx.now();
      ctx.send(router_, spec_.dispatch_delay, kDone, sim::Payload::of(done));
    }
    busy_[e] = false;
    begin(e, ctx);
  }

  const ReplicaStats& stats() const { return stats_; }
  std::vector<IterationRecord>& records() { return records_; }

 private:
  std::int64_t used_blocks() const {
    std::int64_t used = 0;
    for (const ReplicaEngine& engine : engines_) used += engine.used_blocks();
    return used;
  }

  void begin(std::size_t e, sim::Context& ctx) {
    ReplicaEngine& engine = engines_[e];
    const double seconds = engine.begin_iteration();
    for (std::uint32_t r : engine.preempted()) ++outcomes_[r].preemptions;
    stats_.preemptions += static_cast<std::int64_t>(engine.preempted().size());
    stats_.swapped_blocks += engine.swapped_out();
    if (seconds < 0) {
      if (reported_busy_ && std::none_of(busy_.begin(), busy_.end(), [](bool b) { return b; })) {
        ctx.send(router_, spec_.dispatch_delay, kIdle, sim::Payload::of(static_cast<std::uint32_t>(index_)));
        reported_busy_ = false;
      }
      if (!engine.idle()) {
        throw sim::ModelError("replica " + std::to_string(index_) + ": " + std::to_string(engine.waiting()) +
                              " waiting requests that its KV cache cannot hold");
      }
      return;
    }
    // Checked: an iteration, or its end, past the clock's range throws TimeOutOfRange (the report
    // locates it) instead of rounding to nonsense; at least 1 ns, so that time moves.
    const sim::SimTime d = std::max(sim::SimTime::from_ns(1), sim::SimTime::from_seconds(seconds));
    (void)(ctx.now() + d);  // its end must be on the clock too (throws TimeOutOfRange otherwise)
    const IterationWork& w = engine.work();
    ++stats_.iterations;
    // A virtual engine's iteration holds each of the pp stages for its share of the time.
    stats_.busy_s += d.to_seconds() / static_cast<double>(engines_.size());
    stats_.block_seconds += static_cast<double>(engine.used_blocks()) * d.to_seconds();
    stats_.peak_blocks = std::max(stats_.peak_blocks, used_blocks());
    stats_.tokens += w.tokens;
    stats_.sequences += w.sequences;
    stats_.time += engine.time();
    if (static_cast<std::int64_t>(records_.size()) < spec_.record_iterations) {
      records_.push_back({ctx.now(), d, index_, static_cast<std::int32_t>(w.sequences),
                          static_cast<std::int32_t>(w.tokens), used_blocks()});
    }
    busy_[e] = true;
    if (!reported_busy_) {
      ctx.send(router_, spec_.dispatch_delay, kBusy, sim::Payload::of(static_cast<std::uint32_t>(index_)));
      reported_busy_ = true;
    }
    ctx.send(ctx.self(), d, kIterationEnd, sim::Payload::of(static_cast<std::uint32_t>(e)));
  }

  std::int32_t index_;
  bool prefill_;
  sim::LpId router_;
  std::span<const Request> requests_;
  const ServiceSpec& spec_;
  std::vector<ReplicaEngine> engines_;  // pp virtual engines (one without a pipeline)
  std::vector<bool> busy_;              // by engine: an iteration in flight
  std::vector<RequestOutcome>& outcomes_;
  ReplicaEngine::Produced produced_;
  ReplicaStats stats_;
  std::vector<IterationRecord> records_;
  bool reported_busy_ = false;  // what the router last heard
};

}  // namespace

struct ServiceOnEngine::Parts {
  std::span<const Request> requests;
  const ServiceSpec& spec;
  const IterationModel& model;
  const IterationModel* prefill_model;
  std::optional<ClaimLink> claims;
  ServiceRun run;
  RouterLp* router = nullptr;
  std::vector<ReplicaLp*> replicas;
};

ServiceOnEngine::ServiceOnEngine(std::span<const Request> requests, const ServiceSpec& spec,
                                 const IterationModel& model, const IterationModel* prefill_model,
                                 std::optional<ClaimLink> claims)
    : parts_(std::make_unique<Parts>(Parts{requests, spec, model, prefill_model, claims, {}, nullptr, {}})) {
  for (std::size_t i = 1; i < requests.size(); ++i) {
    if (requests[i].arrival < requests[i - 1].arrival) {
      throw std::invalid_argument("requests: request " + std::to_string(i) + " arrives before the one above it");
    }
  }
  if (requests.size() >= std::size_t{0xffffffffu}) throw std::invalid_argument("requests: more than 2^32 - 1");
  const DisaggregationSpec& d = spec.disaggregation;
  const std::size_t decode = RouterLp::lp_replicas(spec);
  if (d.enabled()) {
    if (prefill_model == nullptr)
      throw std::invalid_argument("run_service: a disaggregated service needs a prefill model");
    if (claims) throw std::invalid_argument("run_service: a disaggregated service on a shared cluster");
    if (d.node_of.size() != decode + static_cast<std::size_t>(d.prefill_replicas)) {
      throw std::invalid_argument("run_service: node_of must give every replica's node");
    }
    if (d.fabric && d.kv_connections.size() != decode * static_cast<std::size_t>(d.prefill_replicas)) {
      throw std::invalid_argument("run_service: kv_connections must join every prefill replica to every decode one");
    }
    if (!d.fabric && !(d.same_node_bytes_per_s > 0 && d.cross_node_bytes_per_s > 0)) {
      throw std::invalid_argument("run_service: the KV transfer's rates must be positive");
    }
  }
  parts_->run.requests.assign(requests.size(), RequestOutcome{});
}

ServiceOnEngine::~ServiceOnEngine() = default;

sim::LpId ServiceOnEngine::add_to(sim::Simulation& simulation, std::uint32_t group) {
  Parts& p = *parts_;
  const ServiceSpec& spec = p.spec;
  const DisaggregationSpec& d = spec.disaggregation;
  const std::size_t decode = RouterLp::lp_replicas(spec);
  const bool apart = spec.dispatch_delay > sim::SimTime::zero();
  auto router_lp = std::make_unique<RouterLp>(p.requests, spec, p.claims);
  p.router = router_lp.get();
  // The router's group: the fabric joins it, so that a post may use the fabric's own lookahead.
  const sim::LpId router = simulation.add(std::move(router_lp), group);
  p.router->set_first_replica(router + 1);
  const std::size_t all = decode + static_cast<std::size_t>(d.prefill_replicas);
  for (std::size_t r = 0; r < all; ++r) {
    const bool prefill = r >= decode;
    auto lp = std::make_unique<ReplicaLp>(static_cast<std::int32_t>(r), p.requests, spec,
                                          prefill ? *p.prefill_model : p.model, p.run.requests, prefill, router);
    p.replicas.push_back(lp.get());
    simulation.add(std::move(lp), apart ? sim::Simulation::kOwnGroup : group);
  }
  if (d.enabled() && d.fabric) {
    auto fabric = std::make_unique<net::FabricLp>(*d.fabric);
    net::ConnectionId first = 0;
    for (std::size_t c = 0; c < d.kv_connections.size(); ++c) {
      const net::ConnectionId id = fabric->open(d.kv_connections[c]);
      if (c == 0) first = id;
    }
    const sim::SimTime lookahead = fabric->lookahead();
    p.router->use_fabric(simulation.add(std::move(fabric), group), lookahead, first);
  }
  if (apart) simulation.set_lookahead(spec.dispatch_delay);
  return router;
}

ServiceRun ServiceOnEngine::collect(const sim::RunResult& result) {
  Parts& p = *parts_;
  ServiceRun& run = p.run;
  // On a shared cluster the engine runs on after the service leaves: its span ends when it left.
  run.end = p.router->left().value_or(result.last_event_time);
  run.events = result.committed;
  run.fingerprint = result.fingerprint;
  run.replica_seconds = p.router->replica_seconds(run.end);  // before the counts are moved out
  run.replica_counts = std::move(p.router->counts());
  for (ReplicaLp* r : p.replicas) {
    run.replicas.push_back(r->stats());
    auto& records = r->records();
    run.iterations.insert(run.iterations.end(), records.begin(), records.end());
  }
  return std::move(run);
}

ServiceRun run_service(std::span<const Request> requests, const ServiceSpec& spec, const IterationModel& model,
                       std::uint64_t seed, const sim::RunOptions& options, const IterationModel* prefill_model) {
  ServiceOnEngine service(requests, spec, model, prefill_model);
  sim::Simulation simulation(seed);
  service.add_to(simulation, 0);
  return service.collect(simulation.run(options));
}

}  // namespace fathom::infer
