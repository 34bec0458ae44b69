// The engine's hot path allocates nothing per event in steady state: a run ten times longer
// performs no more heap allocations than a short one once queues have reached their size.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "bench/phold/phold_model.hpp"

namespace {
std::atomic<std::uint64_t> allocations{0};
}  // namespace

// Counting replacements of the global allocation functions, for this test program only.
void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

std::uint64_t allocations_for(double end, fathom::sim::RunOptions options) {
  fathom::bench::PholdParams p;
  p.lps = 256;
  p.events_per_lp = 8;
  p.end = end;
  auto simulation = fathom::bench::make_phold(p);
  options.end = fathom::sim::SimTime::from_ns(static_cast<std::int64_t>(end * fathom::bench::kPholdNsPerUnit));
  const std::uint64_t before = allocations.load();
  const auto result = simulation->run(options);
  const std::uint64_t used = allocations.load() - before;
  // The queue storage bound of sim/event_queue.hpp: one event plus a quarter for growth.
  CHECK(static_cast<double>(result.queue_bytes) / static_cast<double>(result.pending) <=
        64.0 + sizeof(fathom::sim::Payload));
  return used;
}

}  // namespace

TEST_CASE("the sequential scheduler allocates nothing per event in steady state") {
  const auto short_run = allocations_for(20.0, {});
  const auto long_run = allocations_for(200.0, {});  // ~400,000 more events
  MESSAGE("allocations: " << short_run << " for end 20, " << long_run << " for end 200");
  CHECK(long_run == short_run);
}

TEST_SUITE("parallel") {
  TEST_CASE("the parallel scheduler allocates nothing per event in steady state") {
    fathom::sim::RunOptions o;
    o.scheduler = fathom::sim::Scheduler::kParallel;
    o.threads = 2;
    o.partitions = 4;
    const auto short_run = allocations_for(20.0, o);
    const auto long_run = allocations_for(200.0, o);
    MESSAGE("allocations: " << short_run << " for end 20, " << long_run << " for end 200");
    // Outbox vectors may still be growing towards their peak after the short run; what
    // matters is that allocations do not scale with the 10x more events and windows.
    CHECK(long_run <= short_run + 64);
  }
}
