// 64-bit mixing used for fingerprints: fast, deterministic, not cryptographic.
#pragma once

#include <cstdint>

namespace fathom::sim {

// SplitMix64's finaliser: a bijection on 64 bits with full avalanche.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Order-sensitive: hash_combine(hash_combine(h, a), b) differs from the same with a and b swapped.
constexpr std::uint64_t hash_combine(std::uint64_t h, std::uint64_t v) {
  return mix64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

}  // namespace fathom::sim
