#include "models/workloads/inference/replica_engine.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace fathom::infer {

ReplicaEngine::ReplicaEngine(const ServingSpec& spec, std::int64_t kv_blocks, IterationModel model, SwapLink swap)
    : spec_(spec), model_(std::move(model)), total_blocks_(kv_blocks), free_blocks_(kv_blocks), swap_(swap) {
  if (spec_.preemption == Preemption::kSwap && !(swap_.bytes_per_s > 0 && swap_.block_bytes > 0)) {
    throw std::invalid_argument("preemption: swap needs the blocks' size and a PCIe rate");
  }
  running_.reserve(static_cast<std::size_t>(spec.max_seqs));
  seq_cap_ = static_cast<std::size_t>(spec.max_seqs);
}

void ReplicaEngine::note_length(const Sequence& s) {
  if (!spec_.batch_size_tuning) return;
  if (recent_lengths_.size() == kBatchTuningWindow) {
    recent_sum_ -= recent_lengths_.front();
    recent_lengths_.pop_front();
  }
  recent_lengths_.push_back(std::int64_t{s.prompt} + s.output);
  recent_sum_ += recent_lengths_.back();
}

std::size_t ReplicaEngine::tuned_cap() const {
  const auto most = static_cast<std::size_t>(spec_.max_seqs);
  if (!spec_.batch_size_tuning || recent_lengths_.empty()) return most;
  // The requests the whole cache holds at the mean length, in whole blocks each.
  const double mean = static_cast<double>(recent_sum_) / static_cast<double>(recent_lengths_.size());
  const auto per_request = static_cast<std::int64_t>(std::ceil(mean / spec_.block_tokens));
  const std::int64_t capacity = total_blocks_ / std::max<std::int64_t>(1, per_request);
  return std::min(most, static_cast<std::size_t>(batch_size_tuned(capacity)));
}

void ReplicaEngine::admit(std::uint32_t request, std::int32_t prompt, std::int32_t output) {
  Sequence s;
  s.request = request;
  s.prompt = prompt;
  s.output = output;
  note_length(s);
  waiting_.push_back(s);
}

void ReplicaEngine::admit_preloaded(std::uint32_t request, std::int32_t prompt, std::int32_t output) {
  Sequence s;
  s.request = request;
  s.prompt = prompt;
  s.output = output;
  s.generated = 1;
  s.processed = prompt;
  note_length(s);
  waiting_.push_back(s);
}

bool ReplicaEngine::allocate(Sequence& s, std::int32_t tokens) {
  const std::int64_t need = blocks_for(s.processed + tokens, spec_.block_tokens) - s.blocks;
  if (need > free_blocks_) return false;
  if (need > 0) {
    free_blocks_ -= need;
    s.blocks += need;
  }
  return true;
}

bool ReplicaEngine::admit_blocks(Sequence& s, std::int32_t tokens) {
  if (spec_.kv_reservation == KvReservation::kOnDemand) return allocate(s, tokens);
  // The most it will hold: its prompt and every output token but the last, which is never fed back.
  const std::int64_t need =
      blocks_for(static_cast<std::int64_t>(s.prompt) + s.output - 1, spec_.block_tokens) - s.blocks;
  if (need > free_blocks_) return false;
  free_blocks_ -= need;
  s.blocks += need;
  return true;
}

void ReplicaEngine::release(Sequence& s) {
  free_blocks_ += s.blocks;
  s.blocks = 0;
}

void ReplicaEngine::preempt_last() {
  Sequence s = running_.back();
  running_.pop_back();
  s.scheduled = 0;
  preempted_.push_back(s.request);
  if (spec_.preemption == Preemption::kSwap && host_blocks_ + s.blocks <= swap_.capacity_blocks) {
    // Its blocks go to host memory; it keeps its progress. Pushed to the front: the victims go
    // newest first, so the oldest ends up first.
    host_blocks_ += s.blocks;
    swap_out_ += s.blocks;
    s.host_blocks = s.blocks;
    free_blocks_ += s.blocks;
    s.blocks = 0;
    swapped_.push_front(s);
    return;
  }
  release(s);
  s.processed = 0;
  waiting_.push_front(s);
}

void ReplicaEngine::resume_swapped(std::int64_t& budget) {
  while (!swapped_.empty() && running_.size() < seq_cap_) {
    Sequence& s = swapped_.front();
    if (s.host_blocks > free_blocks_) break;
    free_blocks_ -= s.host_blocks;
    s.blocks = s.host_blocks;
    host_blocks_ -= s.host_blocks;
    swap_in_ += s.host_blocks;
    s.host_blocks = 0;
    const auto n = static_cast<std::int32_t>(std::min<std::int64_t>(s.known() - s.processed, budget));
    if (n > 0 && allocate(s, n)) {
      s.scheduled = n;
      budget -= n;
    }
    running_.push_back(s);
    swapped_.pop_front();
  }
}

bool ReplicaEngine::make_room(std::size_t i, std::int32_t tokens) {
  while (!allocate(running_[i], tokens)) {
    const bool last = running_.size() - 1 == i;
    preempt_last();
    if (last) return false;
  }
  return true;
}

void ReplicaEngine::count(const Sequence& s) {
  const double p = s.processed;
  const double n = s.scheduled;
  work_.tokens += s.scheduled;
  work_.sequences += 1;
  work_.attention_pairs += n * p + n * (n + 1) / 2;
  work_.kv_read_tokens += p + n;
  if (s.processed + s.scheduled == s.known()) work_.logits += 1;
}

void ReplicaEngine::schedule_chunked() {
  std::int64_t budget = spec_.max_batched_tokens;
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
    const Sequence& s = running_[i];
    const auto n = static_cast<std::int32_t>(std::min<std::int64_t>(s.known() - s.processed, budget));
    if (!make_room(i, n)) break;
    running_[i].scheduled = n;
    budget -= n;
  }
  if (!preempted_.empty()) return;
  resume_swapped(budget);
  if (!swapped_.empty()) return;
  admit_waiting(budget, false);
}

bool ReplicaEngine::admit_waiting(std::int64_t& budget, bool whole) {
  bool admitted = false;
  while (!waiting_.empty() && budget > 0 && running_.size() < seq_cap_) {
    Sequence& s = waiting_.front();
    const std::int64_t left = s.known() - s.processed;
    if (whole && left > budget) break;
    const auto n = static_cast<std::int32_t>(std::min(left, budget));
    if (!admit_blocks(s, n)) break;
    s.scheduled = n;
    budget -= n;
    running_.push_back(s);
    waiting_.pop_front();
    admitted = true;
  }
  return admitted;
}

void ReplicaEngine::schedule_whole_prompts() {
  std::int64_t budget = spec_.max_batched_tokens;
  if (swapped_.empty() && admit_waiting(budget, true)) return;
  for (std::size_t i = 0; i < running_.size(); ++i) {
    if (!make_room(i, 1)) break;
    running_[i].scheduled = 1;
    --budget;
  }
  if (preempted_.empty()) resume_swapped(budget);
}

void ReplicaEngine::schedule_mixed_whole_prompts() {
  std::int64_t budget = spec_.max_batched_tokens;
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
    if (!make_room(i, 1)) break;
    running_[i].scheduled = 1;
    --budget;
  }
  if (!preempted_.empty()) return;
  resume_swapped(budget);
  if (swapped_.empty()) admit_waiting(budget, true);
}

double ReplicaEngine::begin_iteration() {
  preempted_.clear();
  swap_out_ = 0;
  swap_in_ = 0;
  work_ = {};
  for (Sequence& s : running_) s.scheduled = 0;
  seq_cap_ = tuned_cap();
  if (spec_.chunked_prefill) {
    schedule_chunked();
  } else if (spec_.prefill_batching == PrefillBatching::kMixed) {
    schedule_mixed_whole_prompts();
  } else {
    schedule_whole_prompts();
  }
  for (const Sequence& s : running_) {
    if (s.scheduled > 0) count(s);
  }
  if (work_.tokens == 0) {
    time_ = {};
    return -1;
  }
  time_ = model_.time(work_);
  if (swap_out_ + swap_in_ > 0) {
    time_.swap = static_cast<double>(swap_out_ + swap_in_) * swap_.block_bytes / swap_.bytes_per_s;
  }
  return time_.total();
}

void ReplicaEngine::end_iteration(Produced& out) {
  out.first_tokens.clear();
  out.finished.clear();
  for (Sequence& s : running_) {
    if (s.scheduled == 0) continue;
    s.processed += s.scheduled;
    s.scheduled = 0;
    if (s.processed != s.known()) continue;
    s.generated += 1;
    if (s.generated == 1) out.first_tokens.push_back(s.request);
    if (s.generated == s.output) {
      out.finished.push_back(s.request);
      release(s);
    }
  }
  std::erase_if(running_, [](const Sequence& s) { return s.generated == s.output; });
}

}  // namespace fathom::infer
