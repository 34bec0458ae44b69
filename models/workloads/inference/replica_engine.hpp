// ReplicaEngine: one replica's scheduler and KV cache, iteration by iteration (Orca's
// iteration-level scheduling as vLLM implements it). Each iteration:
//   - with chunked prefill (Sarathi-Serve, vLLM V1): the running sequences first, in the order
//     they were admitted, each taking the tokens it still has to process (1 for a decode, the
//     rest of its prompt for a prefill) up to the token budget left; then waiting requests in
//     arrival order, while the batch has room (max_seqs), the budget lasts and the cache has
//     blocks for their first chunk;
//   - without it (vLLM V0): whole prompts of waiting requests while they fit the budget, the batch
//     and the cache; if none was admitted, one decode for every running sequence.
// A sequence holds ceil(tokens in cache / block_tokens) blocks. When a running sequence needs a
// block and none is free, the most recently admitted running sequence is preempted by
// recompute: its blocks are freed and it goes back to the front of the waiting queue, to process
// its prompt and the tokens it had generated again (vLLM V1's only policy). No waiting request is
// admitted in an iteration that preempted.
// With preemption by swap, the preempted sequence's blocks are copied to host memory instead (while
// swap space lasts) and it keeps its progress; swapped sequences come back, oldest first, after
// the running ones are scheduled and before any waiting request is admitted (vLLM V0's order),
// and an iteration takes the copies both ways at the PCIe rate on top of its forward pass.
// A sequence samples a token when it has processed every token it knows (its prompt and what it
// generated); its first token ends the time to first token, its last one the request.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "models/workloads/inference/iteration_model.hpp"
#include "models/workloads/inference/serving_spec.hpp"

namespace fathom::infer {

// Where swapped blocks go (ServingSpec::preemption = kSwap): host memory over a GPU's PCIe link.
struct SwapLink {
  double block_bytes = 0;            // one block's keys and values on one GPU
  double bytes_per_s = 0;            // a GPU's PCIe rate, each way
  std::int64_t capacity_blocks = 0;  // blocks host memory holds (swap_space / block_bytes)
};

class ReplicaEngine {
 public:
  ReplicaEngine(const ServingSpec& spec, std::int64_t kv_blocks, IterationModel model, SwapLink swap = {});

  // A new request (index `request` in the service's list) joins the waiting queue.
  void admit(std::uint32_t request, std::int32_t prompt, std::int32_t output);

  // A request whose prompt's keys and values arrive with it (from a prefill replica, which sampled
  // its first token): it joins the waiting queue with its prompt processed and one token
  // generated, and needs the blocks for them when admitted.
  void admit_preloaded(std::uint32_t request, std::int32_t prompt, std::int32_t output);

  // Picks the next iteration's batch, allocating blocks (and preempting where the cache is
  // full). Returns its duration in seconds, or a negative value when there is nothing to run.
  double begin_iteration();

  // What the iteration that ends produced.
  struct Produced {
    std::vector<std::uint32_t> first_tokens;  // requests that sampled their first token
    std::vector<std::uint32_t> finished;      // requests that sampled their last token
  };
  // Ends the iteration begun last: every scheduled sequence moves on; finished ones free their
  // blocks. Fills `out` (cleared first).
  void end_iteration(Produced& out);

  // Requests preempted in the last begin_iteration().
  const std::vector<std::uint32_t>& preempted() const { return preempted_; }
  const IterationWork& work() const { return work_; }  // the iteration begun last
  const IterationTime& time() const { return time_; }  // its time, by part
  std::int64_t used_blocks() const { return total_blocks_ - free_blocks_; }
  std::int64_t total_blocks() const { return total_blocks_; }
  std::size_t running() const { return running_.size(); }
  std::size_t waiting() const { return waiting_.size(); }
  // Requests given and not finished: running, waiting or swapped out.
  std::size_t unfinished() const { return running_.size() + waiting_.size() + swapped_.size(); }
  std::size_t swapped() const { return swapped_.size(); }
  // Blocks copied out to host memory and back in by the iteration begun last.
  std::int64_t swapped_out() const { return swap_out_; }
  std::int64_t swapped_in() const { return swap_in_; }
  bool idle() const { return running_.empty() && waiting_.empty() && swapped_.empty(); }

 private:
  struct Sequence {
    std::uint32_t request = 0;
    std::int32_t prompt = 0, output = 0;
    std::int32_t generated = 0;
    std::int32_t processed = 0;  // tokens whose keys and values are in the cache
    std::int32_t scheduled = 0;  // tokens of the current iteration
    std::int64_t blocks = 0;
    std::int64_t host_blocks = 0;  // swapped out: its blocks in host memory
    std::int32_t known() const { return prompt + generated; }
  };

  // Gives `s` blocks for `tokens` more tokens; false when the cache has too few free.
  bool allocate(Sequence& s, std::int32_t tokens);
  void release(Sequence& s);
  // Gives a waiting sequence what it needs to start: blocks for its first `tokens` tokens or, with
  // kv_reservation full, for its prompt and whole output at once. False when they are not free.
  bool admit_blocks(Sequence& s, std::int32_t tokens);
  // Preempts the last running sequence.
  void preempt_last();
  // Allocates running_[i] the blocks for `tokens` more tokens, preempting from the back of
  // running_ until they are free; false when running_[i] itself had to go.
  bool make_room(std::size_t i, std::int32_t tokens);
  void schedule_chunked();
  void schedule_whole_prompts();
  void schedule_mixed_whole_prompts();
  // Admits waiting sequences first come, first served, while the batch and `budget` allow: each
  // scheduled for its remaining tokens (`whole`) or as many as the budget leaves. Lowers `budget`;
  // true when any was admitted.
  bool admit_waiting(std::int64_t& budget, bool whole);
  // Brings swapped sequences back while blocks and the batch allow, each scheduled for its tokens
  // within `budget`, which it lowers.
  void resume_swapped(std::int64_t& budget);
  void count(const Sequence& s);
  void note_length(const Sequence& s);
  std::size_t tuned_cap() const;

  ServingSpec spec_;
  IterationModel model_;
  std::int64_t total_blocks_ = 0;
  std::int64_t free_blocks_ = 0;
  SwapLink swap_;
  std::deque<Sequence> waiting_;
  std::deque<Sequence> swapped_;  // oldest first
  std::int64_t host_blocks_ = 0;  // blocks in host memory
  std::int64_t swap_out_ = 0, swap_in_ = 0;
  std::vector<Sequence> running_;  // in admission order
  // The iteration's request cap: max_seqs, or lower with batch_size_tuning, which reads the
  // lengths (prompt + output) of the last kBatchTuningWindow requests given.
  std::size_t seq_cap_ = 0;
  std::deque<std::int64_t> recent_lengths_;
  std::int64_t recent_sum_ = 0;
  std::vector<std::uint32_t> preempted_;
  IterationWork work_;
  IterationTime time_;
};

}  // namespace fathom::infer
