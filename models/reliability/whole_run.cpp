#include "models/reliability/whole_run.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>

#include "sim/random.hpp"
#include "sim/stats/histogram.hpp"
#include "sim/time.hpp"

namespace fathom::rel {

namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
// Replication 0's timeline keeps at most this many events: a run of centuries checkpointed every
// few minutes would otherwise hold hundreds of millions. The rest is simulated, not drawn.
constexpr std::size_t kMaxTimelineEvents = 1'000'000;

// a + b, held at kNever rather than overflowing.
std::int64_t plus(std::int64_t a, std::int64_t b) {
  std::int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? kNever : sum;
}

std::int64_t to_ns(double seconds) {
  const double ns = std::round(seconds * 1e9);
  return ns >= 9e18 ? kNever : static_cast<std::int64_t>(ns);
}

// Steps, valid checkpoints and blocked time after `elapsed` ns of training from a checkpoint.
struct Progress {
  std::int64_t steps = 0;
  std::int64_t valid_checkpoints = 0;
  std::int64_t block_ns = 0;
};

class Replicator {
 public:
  Replicator(const RunInputs& in, std::uint64_t replication)
      : in_(in), random_(in.seed, replication), record_(in.timeline && replication == 0) {
    const int k = in_.checkpoint_interval;
    block_ = k > 0 ? in_.checkpoint_block_ns + std::max<std::int64_t>(0, in_.checkpoint_drain_ns - k * in_.step_ns) : 0;
    period_ = k > 0 ? k * in_.step_ns + block_ : 0;
    horizon_ = in_.duration_ns > 0 ? in_.duration_ns : kNever;
    free_spares_ = in_.spares;
    for (int c = 0; c < kComponents; ++c) next_[c] = draw_after(0, static_cast<Component>(c));
  }

  Replication run() {
    std::int64_t now = 0;
    std::int64_t at_checkpoint = 0;  // steps held by the last valid checkpoint
    while (true) {
      const auto [failure, component] = earliest();
      const std::int64_t left = in_.steps > 0 ? in_.steps - at_checkpoint : 0;
      const std::int64_t finish = in_.steps > 0 ? plus(now, to_finish(left)) : kNever;
      const std::int64_t end = std::min(finish, horizon_);
      if (failure >= end) {
        record_training(now, end);
        const Progress p = progress(end - now);
        out_.time.kept_ns += end - now - p.block_ns;
        out_.time.checkpoint_ns += p.block_ns;
        out_.steps_kept = at_checkpoint + p.steps;
        out_.finished = end == finish;
        now = end;
        break;
      }
      record_training(now, failure);
      record(RunEvent::Kind::kFailure, failure, failure, component);
      const Progress p = progress(failure - now);
      const ComponentRate& rate = in_.failures.rate(component);
      next_[static_cast<int>(component)] = draw_after(failure, component);
      std::int64_t resume = failure;
      if (rate.planned) {  // checkpoint first: every finished step is kept
        const std::int64_t kept = p.steps * in_.step_ns;
        out_.time.kept_ns += kept;
        out_.time.lost_ns += failure - now - p.block_ns - kept;
        out_.time.checkpoint_ns += p.block_ns;
        at_checkpoint += p.steps;
        resume = spend(out_.time.checkpoint_ns, failure, in_.checkpoint_write_ns);
        record(RunEvent::Kind::kCheckpoint, failure, resume);
      } else {
        const std::int64_t kept = p.valid_checkpoints * in_.checkpoint_interval * in_.step_ns;
        out_.time.kept_ns += kept;
        out_.time.lost_ns += failure - now - p.block_ns - kept;
        out_.time.checkpoint_ns += p.block_ns;
        at_checkpoint += p.valid_checkpoints * in_.checkpoint_interval;
      }
      if (resume >= horizon_) {
        now = horizon_;
        out_.steps_kept = at_checkpoint;
        break;
      }
      now = recover(resume, component);
      if (now >= horizon_) {
        out_.steps_kept = at_checkpoint;
        break;
      }
    }
    out_.time.wall_ns = now;
    if (in_.data_stall_ns > 0) {  // the kept steps' share spent waiting for data, without overflow
      const std::int64_t whole = out_.time.kept_ns / in_.step_ns, part = out_.time.kept_ns % in_.step_ns;
      out_.time.data_ns =
          whole * in_.data_stall_ns + std::llround(static_cast<double>(part) * static_cast<double>(in_.data_stall_ns) /
                                                   static_cast<double>(in_.step_ns));
      out_.time.kept_ns -= out_.time.data_ns;
    }
    return std::move(out_);
  }

 private:
  void record(RunEvent::Kind kind, std::int64_t start, std::int64_t end, Component c = Component::kGpu) {
    if (record_ && out_.timeline.size() < kMaxTimelineEvents) out_.timeline.push_back({kind, start, end, c});
  }

  // A training segment from a checkpoint, with the checkpoint blocks inside it.
  void record_training(std::int64_t from, std::int64_t to) {
    if (!record_ || to <= from || out_.timeline.size() >= kMaxTimelineEvents) return;
    record(RunEvent::Kind::kTraining, from, to);
    if (in_.checkpoint_interval <= 0 || block_ <= 0) return;
    const std::int64_t steps_part = in_.checkpoint_interval * in_.step_ns;
    for (std::int64_t cycle = from; plus(cycle, steps_part) < to && out_.timeline.size() < kMaxTimelineEvents;
         cycle = plus(cycle, period_)) {
      record(RunEvent::Kind::kCheckpoint, cycle + steps_part, std::min(to, plus(cycle, period_)));
    }
  }

  // Training time for `steps` from a checkpoint, with the checkpoints taken on the way (none
  // after the last step).
  std::int64_t to_finish(std::int64_t steps) const {
    if (steps <= 0) return 0;
    const std::int64_t checkpoints = in_.checkpoint_interval > 0 ? (steps - 1) / in_.checkpoint_interval : 0;
    return steps * in_.step_ns + checkpoints * block_;
  }

  Progress progress(std::int64_t elapsed) const {
    Progress p;
    if (in_.checkpoint_interval <= 0) {
      p.steps = elapsed / in_.step_ns;
      return p;
    }
    const std::int64_t k = in_.checkpoint_interval;
    const std::int64_t cycles = elapsed / period_, into = elapsed % period_;
    p.steps = cycles * k + std::min<std::int64_t>(k, into / in_.step_ns);
    p.block_ns = cycles * block_ + std::max<std::int64_t>(0, into - k * in_.step_ns);
    p.valid_checkpoints = elapsed >= in_.checkpoint_drain_ns ? (elapsed - in_.checkpoint_drain_ns) / period_ : 0;
    return p;
  }

  // The next instant class `c` interrupts the run after `from`.
  std::int64_t draw_after(std::int64_t from, Component c) {
    const ComponentRate& rate = in_.failures.rate(c);
    const std::int64_t units = in_.units[static_cast<std::size_t>(rate.unit)];
    if (!(rate.mtbf_s > 0) || units <= 0) return kNever;
    const double mean = rate.mtbf_s / static_cast<double>(units);
    double gap;
    if (rate.calendar) {  // the first window at a uniform phase, then one every period
      gap = started_[static_cast<std::size_t>(c)] ? mean : random_.uniform01() * mean;
      started_[static_cast<std::size_t>(c)] = true;
    } else if (rate.weibull_shape == 1.0) {
      gap = random_.exponential(mean);
    } else {
      const double scale = mean / std::tgamma(1.0 + 1.0 / rate.weibull_shape);
      gap = scale * std::pow(-std::log(random_.uniform01_open_below()), 1.0 / rate.weibull_shape);
    }
    return plus(from, to_ns(gap));
  }

  std::pair<std::int64_t, Component> earliest() const {
    int best = 0;
    for (int c = 1; c < kComponents; ++c) {
      if (next_[c] < next_[best]) best = c;
    }
    return {next_[best], static_cast<Component>(best)};
  }

  // Adds `duration` from `from` to `field`, cut at the horizon; returns where it ends.
  std::int64_t spend(std::int64_t& field, std::int64_t from, std::int64_t duration) const {
    const std::int64_t end = std::min(horizon_, plus(from, duration));
    field += std::max<std::int64_t>(0, end - from);
    return end;
  }

  // From an interruption by `component` at `from` until training runs again; interruptions
  // during recovery start it again. Returns the instant training resumes (or the horizon).
  std::int64_t recover(std::int64_t from, Component component) {
    const FailureSpec& f = in_.failures;
    const bool unplanned_start = !f.rate(component).planned;
    std::int64_t now = from;
    while (true) {
      ++out_.interruptions[static_cast<int>(component)];
      const ComponentRate& rate = f.rate(component);
      // The phases, in order, each with the field it is counted under.
      std::int64_t detection = rate.planned ? 0 : rate.detection_ns >= 0 ? rate.detection_ns : f.detection_ns;
      std::int64_t waiting = 0, resubmit = 0;
      if (rate.takes_node) waiting = take_node(now + detection, now);
      if (restarts_ >= f.max_restarts) {
        resubmit = f.resubmit_ns;
        restarts_ = 0;
        ++out_.resubmissions;
      } else {
        ++restarts_;
      }
      struct Phase {
        std::int64_t* field;
        std::int64_t ns;
        RunEvent::Kind kind;
      };
      const Phase phases[] = {{&out_.time.detection_ns, detection, RunEvent::Kind::kDetection},
                              {&out_.time.waiting_ns, waiting, RunEvent::Kind::kWaiting},
                              {&out_.time.resubmit_ns, resubmit, RunEvent::Kind::kResubmit},
                              {&out_.time.restart_ns, f.restart_ns, RunEvent::Kind::kRestart},
                              {&out_.time.restore_ns, in_.restore_ns, RunEvent::Kind::kRestore}};
      std::int64_t end = now;
      for (const auto& phase : phases) {
        end = plus(end, phase.ns);
      }
      const auto [failure, next_component] = earliest();
      const std::int64_t cut = std::min({failure, end, horizon_});
      std::int64_t at = now;
      for (const auto& phase : phases) {
        const std::int64_t until = std::min(cut, plus(at, phase.ns));
        *phase.field += std::max<std::int64_t>(0, until - at);
        if (until > at) record(phase.kind, at, until);
        at = until;
      }
      if (cut == end || cut == horizon_) {
        if (unplanned_start) out_.recovery_s.push_back(static_cast<double>(cut - from) / 1e9);
        return cut;
      }
      now = failure;  // interrupted again while recovering
      component = next_component;
      record(RunEvent::Kind::kFailure, failure, failure, component);
      next_[static_cast<int>(component)] = draw_after(failure, component);
    }
  }

  // A node for the run from `needed` on, the failed one going to repair at `failed`: a spare,
  // or the first one back from repair. Returns the wait, swap included.
  std::int64_t take_node(std::int64_t needed, std::int64_t failed) {
    while (!repairs_.empty() && repairs_.top() <= needed) {
      repairs_.pop();
      ++free_spares_;
    }
    const double repair = in_.failures.repair_s > 0 ? random_.exponential(in_.failures.repair_s) : 0.0;
    repairs_.push(plus(failed, to_ns(repair)));
    if (free_spares_ > 0) {
      --free_spares_;
      return in_.failures.replace_ns;
    }
    // None free: the first node back from repair (perhaps the failed one itself).
    ++out_.spares_short;
    const std::int64_t back = repairs_.top();
    repairs_.pop();
    return std::max<std::int64_t>(0, back - needed) + in_.failures.replace_ns;
  }

  const RunInputs& in_;
  sim::RandomStream random_;
  bool record_ = false;
  std::int64_t block_ = 0, period_ = 0, horizon_ = 0;
  std::int64_t next_[kComponents]{};
  bool started_[kComponents]{};  // a calendar class has drawn its phase
  int free_spares_ = 0;
  int restarts_ = 0;
  std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<>> repairs_;
  Replication out_;
};

void check(const RunInputs& in) {
  if (in.step_ns <= 0) throw std::invalid_argument("simulate_run: the step time must be positive");
  if ((in.steps > 0) == (in.duration_ns > 0)) {
    throw std::invalid_argument("simulate_run: give either the steps to train or a duration");
  }
  if (in.replications < 1) throw std::invalid_argument("simulate_run: at least one replication");
  if (in.data_stall_ns < 0 || in.data_stall_ns >= in.step_ns) {
    throw std::invalid_argument("simulate_run: the data stall is a part of the step");
  }
  if (in.checkpoint_interval < 0 || in.checkpoint_block_ns < 0 || in.checkpoint_drain_ns < 0 || in.restore_ns < 0) {
    throw std::invalid_argument("simulate_run: negative checkpoint figures");
  }
  if (static_cast<int>(in.failures.components.size()) != kComponents) {
    throw std::invalid_argument("simulate_run: one rate per component class");
  }
}

}  // namespace

double run_mtbf_s(const FailureSpec& failures, const std::array<std::int64_t, 3>& units) {
  double rate = 0;
  for (const ComponentRate& c : failures.components) {
    const std::int64_t n = units[static_cast<std::size_t>(c.unit)];
    if (!c.planned && c.mtbf_s > 0 && n > 0) rate += static_cast<double>(n) / c.mtbf_s;
  }
  return rate > 0 ? 1.0 / rate : std::numeric_limits<double>::infinity();
}

double young_interval_s(double delta_s, double mtbf_s) { return std::sqrt(2.0 * delta_s * mtbf_s); }

double daly_interval_s(double delta_s, double mtbf_s) {
  if (delta_s >= 2.0 * mtbf_s) return mtbf_s;
  const double x = delta_s / (2.0 * mtbf_s);
  return std::sqrt(2.0 * delta_s * mtbf_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

Replication simulate_replication(const RunInputs& inputs, std::uint64_t replication) {
  check(inputs);
  return Replicator(inputs, replication).run();
}

RunResult simulate_run(const RunInputs& inputs) {
  check(inputs);
  RunResult r;
  r.inputs = inputs;
  r.replications.resize(static_cast<std::size_t>(inputs.replications));
  tbb::parallel_for(0, inputs.replications, [&](int i) {
    r.replications[static_cast<std::size_t>(i)] = Replicator(inputs, static_cast<std::uint64_t>(i)).run();
  });
  std::vector<double> wall, ett, goodput, interruptions, lost;
  sim::ExactQuantiles recovery;
  const double n = static_cast<double>(r.replications.size());
  for (const Replication& rep : r.replications) {
    const double wall_s = static_cast<double>(rep.time.wall_ns) / 1e9;
    wall.push_back(wall_s);
    ett.push_back(wall_s > 0 ? static_cast<double>(rep.time.kept_ns) / 1e9 / wall_s : 0.0);
    goodput.push_back(wall_s > 0 ? static_cast<double>(rep.steps_kept) * inputs.tokens_per_step / wall_s : 0.0);
    int unplanned = 0;
    for (int c = 0; c < kComponents; ++c) {
      r.interruptions_by_component[static_cast<std::size_t>(c)] += rep.interruptions[static_cast<std::size_t>(c)] / n;
      if (!inputs.failures.components[static_cast<std::size_t>(c)].planned)
        unplanned += rep.interruptions[static_cast<std::size_t>(c)];
    }
    interruptions.push_back(unplanned);
    lost.push_back(inputs.gpus * static_cast<double>(rep.time.wall_ns - rep.time.kept_ns) / 1e9 / 3600.0);
    for (double s : rep.recovery_s) recovery.add(s);
    RunTime& m = r.mean_time;
    const RunTime& t = rep.time;
    for (auto [sum, part] : {std::pair{&m.kept_ns, t.kept_ns},
                             {&m.data_ns, t.data_ns},
                             {&m.lost_ns, t.lost_ns},
                             {&m.checkpoint_ns, t.checkpoint_ns},
                             {&m.detection_ns, t.detection_ns},
                             {&m.waiting_ns, t.waiting_ns},
                             {&m.restart_ns, t.restart_ns},
                             {&m.restore_ns, t.restore_ns},
                             {&m.resubmit_ns, t.resubmit_ns},
                             {&m.wall_ns, t.wall_ns}}) {
      *sum += part;
    }
  }
  for (std::int64_t* part :
       {&r.mean_time.kept_ns, &r.mean_time.data_ns, &r.mean_time.lost_ns, &r.mean_time.checkpoint_ns,
        &r.mean_time.detection_ns, &r.mean_time.waiting_ns, &r.mean_time.restart_ns, &r.mean_time.restore_ns,
        &r.mean_time.resubmit_ns, &r.mean_time.wall_ns}) {
    *part /= inputs.replications;
  }
  r.wall_s = sim::mean_interval(wall);
  r.effective_training_time = sim::mean_interval(ett);
  r.goodput_tokens_per_s = sim::mean_interval(goodput);
  r.interruptions = sim::mean_interval(interruptions);
  r.lost_gpu_hours = sim::mean_interval(lost);
  if (recovery.count() > 0) {
    r.recovery_p50_s = recovery.quantile(0.5);
    r.recovery_p99_s = recovery.quantile(0.99);
  }
  r.mtbf_s = run_mtbf_s(inputs.failures, inputs.units);
  return r;
}

}  // namespace fathom::rel
