#include "sim/random.hpp"

namespace fathom::sim {

namespace {
// -Wpedantic rejects the extension type without this marker.
__extension__ typedef unsigned __int128 Uint128;

constexpr std::uint32_t kMul0 = 0xD2511F53u;
constexpr std::uint32_t kMul1 = 0xCD9E8D57u;
constexpr std::uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
constexpr std::uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1
}  // namespace

std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> c, std::array<std::uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += kWeyl0;
      k[1] += kWeyl1;
    }
    const std::uint64_t p0 = static_cast<std::uint64_t>(kMul0) * c[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(kMul1) * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
  }
  return c;
}

void RandomStream::refill() {
  const auto out = philox4x32_10(
      {static_cast<std::uint32_t>(blocks_), static_cast<std::uint32_t>(blocks_ >> 32), stream_lo_, stream_hi_}, key_);
  ++blocks_;
  // next_u64() hands out buffer_[1] first, then buffer_[0].
  buffer_[1] = (static_cast<std::uint64_t>(out[1]) << 32) | out[0];
  buffer_[0] = (static_cast<std::uint64_t>(out[3]) << 32) | out[2];
  buffered_ = 2;
}

std::uint64_t RandomStream::uniform_below(std::uint64_t n) {
  Uint128 m = static_cast<Uint128>(next_u64()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<Uint128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

}  // namespace fathom::sim
