#include "sim/event_queue.hpp"

#include <doctest/doctest.h>

#include <set>

#include "sim/random.hpp"

using fathom::sim::Event;
using fathom::sim::EventQueue;
using fathom::sim::SimTime;

TEST_CASE("the event queue pops in the engine's total order, ties included") {
  // Hold-model workload with coarse times so that many events tie on time, priority and
  // sender. The reference is an ordered set of the pending events: every pop must return
  // its least element.
  fathom::sim::RandomStream rng(3, 1);
  EventQueue queue;
  std::set<Event, decltype(&fathom::sim::precedes)> reference(&fathom::sim::precedes);
  std::uint64_t seq = 0;
  SimTime now = SimTime::zero();
  auto make = [&](SimTime at) {
    return Event{at,
                 seq++,
                 static_cast<fathom::sim::LpId>(rng.uniform_below(4)),
                 0,
                 static_cast<fathom::sim::EventKind>(rng.uniform_below(3)),
                 static_cast<std::uint8_t>(rng.uniform_below(3)),
                 {}};
  };
  for (int i = 0; i < 500; ++i) {
    const Event e = make(SimTime::from_ns(static_cast<std::int64_t>(rng.uniform_below(20))));
    queue.push(e);
    reference.insert(e);
  }
  std::size_t pops = 0;
  for (int step = 0; step < 20000; ++step) {
    REQUIRE(!queue.empty());
    const SimTime least = queue.min_time();
    const Event e = queue.pop();
    REQUIRE(e.time == least);
    REQUIRE(e.seq == reference.begin()->seq);
    reference.erase(reference.begin());
    ++pops;
    now = e.time;
    // Zero-delay and short-delay successors: many simultaneous events.
    const int successors = static_cast<int>(rng.uniform_below(3));  // 0, 1 or 2: the queue drifts
    for (int k = 0; k < successors && queue.size() < 2000; ++k) {
      const Event next = make(now + SimTime::from_ns(static_cast<std::int64_t>(rng.uniform_below(5))));
      queue.push(next);
      reference.insert(next);
    }
    if (queue.empty()) break;
  }
  while (!queue.empty()) {
    REQUIRE(queue.pop().seq == reference.begin()->seq);
    reference.erase(reference.begin());
    ++pops;
  }
  CHECK(reference.empty());
  CHECK(pops > 5000);
}

TEST_CASE("payloads round-trip through events") {
  struct Flow {
    std::uint32_t id;
    double bytes;
  };
  const auto p = fathom::sim::Payload::of(Flow{42, 1.5e9});
  CHECK(p.as<Flow>().id == 42);
  CHECK(p.as<Flow>().bytes == 1.5e9);
  CHECK(sizeof(Event) - sizeof(fathom::sim::Payload) <= 64);
}
