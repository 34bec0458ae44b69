// Event: the one message type the engine moves between logical processes.
//
// Events are plain values (48 bytes) stored in place in the event queue, so scheduling one
// allocates nothing. A model that needs more than the 16-byte payload keeps the data in
// the receiving LP's own state and sends an index.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sim/time.hpp"

namespace fathom::sim {

using LpId = std::uint32_t;
using EventKind = std::uint16_t;

// Up to 16 bytes of trivially copyable data carried by an event.
struct Payload {
  std::array<std::uint64_t, 2> words{};

  template <class T>
  static Payload of(const T& value) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(words),
                  "an event payload must be trivially copyable and at most 16 bytes");
    Payload p;
    std::memcpy(p.words.data(), &value, sizeof(T));
    return p;
  }
  template <class T>
  T as() const {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(words),
                  "an event payload must be trivially copyable and at most 16 bytes");
    T value;
    std::memcpy(&value, words.data(), sizeof(T));
    return value;
  }
};

struct Event {
  SimTime time;               // when it happens
  std::uint64_t seq = 0;      // the sender's own count of events sent: the last tie-breaker
  LpId src = 0;               // sending LP
  LpId dst = 0;               // receiving LP
  EventKind kind = 0;         // model-defined meaning
  std::uint8_t priority = 0;  // at equal times, lower priority values run first
  Payload payload;
};

// The engine's total order: (time, priority, sending LP, sender's counter). No two events
// compare equal, because (src, seq) is unique; so the order of processing never depends
// on the order of insertion, the thread count or the partitioning.
inline bool precedes(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.src != b.src) return a.src < b.src;
  return a.seq < b.seq;
}

}  // namespace fathom::sim
