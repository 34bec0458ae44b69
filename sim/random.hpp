// Counter-based random streams (Philox4x32-10, Salmon et al., SC'11).
//
// A draw is a pure function of (seed, stream id, draw index): no hidden state is shared
// between streams, so each LP owns a stream keyed by its id and draws the same numbers
// whatever the thread count, the partitioning or the order in which LPs run.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace fathom::sim {

// The Philox4x32 bijection with 10 rounds: 128-bit counter, 64-bit key, 128-bit output.
std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter, std::array<std::uint32_t, 2> key);

class RandomStream {
 public:
  RandomStream() = default;
  // `seed` selects the run; `stream` (an LP id, say) selects an independent sequence within it.
  RandomStream(std::uint64_t seed, std::uint64_t stream)
      : key_{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)},
        stream_lo_(static_cast<std::uint32_t>(stream)),
        stream_hi_(static_cast<std::uint32_t>(stream >> 32)) {}

  // 64 uniformly distributed bits. Each Philox block yields two of them.
  std::uint64_t next_u64() {
    if (buffered_ == 0) refill();
    --buffered_;
    return buffer_[buffered_];
  }

  // Uniform on [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Uniform on (0, 1]: safe to take the logarithm of.
  double uniform01_open_below() { return (static_cast<double>(next_u64() >> 11) + 1.0) * 0x1.0p-53; }

  // Exponential with the given mean (inverse transform, one draw).
  double exponential(double mean) { return -mean * std::log(uniform01_open_below()); }

  // Uniform integer in [0, n) without modulo bias (Lemire's multiply-shift with rejection); n > 0.
  std::uint64_t uniform_below(std::uint64_t n);

  // Draws taken so far: the position of this stream, for reports and tests.
  std::uint64_t draws() const { return blocks_ * 2 - buffered_; }

 private:
  void refill();

  std::array<std::uint32_t, 2> key_{};
  std::uint32_t stream_lo_ = 0;
  std::uint32_t stream_hi_ = 0;
  std::uint64_t blocks_ = 0;  // Philox blocks consumed: the low half of the counter
  std::array<std::uint64_t, 2> buffer_{};
  std::uint32_t buffered_ = 0;
};

}  // namespace fathom::sim
