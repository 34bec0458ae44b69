// Event-queue candidates on the PHOLD workload (Google Benchmark).
//
// Each iteration pops the least event and pushes its successor exactly as PHOLD does
// (now + lookahead + Exp(mean - lookahead) in ns, tie-breakers from the sender's counter),
// with 1,024 LPs x 16 events pending: the "hold" model on PHOLD's increment distribution.
// Increments are drawn in advance so that only the queue is timed. Counters: items_per_second
// (hold operations) and bytes_per_pending_event (queue storage / pending events).
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "bench/queues/binary_heap_queue.hpp"
#include "bench/queues/radix_list_queue.hpp"
#include "bench/queues/radix_vector_queue.hpp"
#include "sim/event_queue.hpp"
#include "sim/random.hpp"

namespace {

using fathom::sim::Event;
using fathom::sim::SimTime;

std::vector<std::int64_t> phold_increments(std::size_t n) {
  fathom::sim::RandomStream rng(1, 0);
  std::vector<std::int64_t> v(n);
  for (auto& x : v) x = 100'000 + std::llround(rng.exponential(900'000.0));
  return v;
}

template <class Queue>
void BM_PholdHold(benchmark::State& state) {
  const auto lps = static_cast<std::uint32_t>(state.range(0));
  constexpr std::uint32_t kEventsPerLp = 16;
  const auto increments = phold_increments(1 << 20);
  Queue queue;
  std::uint64_t seq = 0;
  std::size_t next = 0;
  for (std::uint32_t lp = 0; lp < lps; ++lp) {
    for (std::uint32_t i = 0; i < kEventsPerLp; ++i) {
      queue.push(Event{SimTime::from_ns(increments[next++ & ((1 << 20) - 1)]), seq++, lp, lp, 1, 0, {}});
    }
  }
  for (auto _ : state) {
    const Event e = queue.pop();
    const auto dst = static_cast<std::uint32_t>(seq % lps);
    queue.push(Event{e.time + SimTime::from_ns(increments[next++ & ((1 << 20) - 1)]), seq++, e.dst, dst, 1, 0, {}});
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["bytes_per_pending_event"] =
      static_cast<double>(queue.capacity_bytes()) / static_cast<double>(queue.size());
}

BENCHMARK_TEMPLATE(BM_PholdHold, fathom::bench::BinaryHeapQueue)->Arg(1024)->Arg(16384);
BENCHMARK_TEMPLATE(BM_PholdHold, fathom::bench::RadixVectorQueue)->Arg(1024)->Arg(16384);
BENCHMARK_TEMPLATE(BM_PholdHold, fathom::bench::RadixListQueue)->Arg(1024)->Arg(16384);
// The engine's choice, a 4-ary heap.
BENCHMARK_TEMPLATE(BM_PholdHold, fathom::sim::EventQueue)->Arg(1024)->Arg(16384);

}  // namespace

BENCHMARK_MAIN();
