// Distributions of samples and their percentiles: ExactQuantiles keeps every sample,
// LogHistogram keeps counts in logarithmic buckets with a bounded relative error.
//
// Both report the nearest-rank percentile: with n samples sorted as x(1) <= ... <= x(n),
// quantile(p) is x(k) for k = max(1, ceil(p * n)), the smallest sample such that at least
// ceil(p * n) samples are <= it. It is always one of the samples (no interpolation), so
// p = 0 gives the minimum, p = 1 the maximum, and p50 of 1..1000 is 500.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace fathom::sim {

// The rank k = max(1, ceil(p * n)) of the nearest-rank p-quantile of n > 0 samples. Throws
// std::invalid_argument unless 0 <= p <= 1. A product p * n within a few ulps of an integer
// is taken as that integer: 0.07 * 100 is 7.000000000000001 in binary, and the user who
// asked for p7 of 100 samples means the 7th, not the 8th.
std::uint64_t nearest_rank(double p, std::uint64_t n);

// Every sample, sorted lazily when a percentile is asked for. Memory grows with the sample
// count: use it for per-run outputs of modest size (job completion times, step times) and
// LogHistogram for per-packet or per-message latencies.
class ExactQuantiles {
 public:
  ExactQuantiles() = default;

  // Reserves room for n samples so that add() does not allocate on a hot path.
  void reserve(std::size_t n) { samples_.reserve(n); }

  // Throws std::invalid_argument for NaN, which has no place in an order.
  void add(double sample) {
    if (std::isnan(sample)) throw_nan();
    if (sorted_ && !samples_.empty() && sample < samples_.back()) sorted_ = false;
    samples_.push_back(sample);
    sum_ += sample;
    if (samples_.size() == 1 || sample < min_) min_ = sample;
    if (samples_.size() == 1 || sample > max_) max_ = sample;
  }

  void merge(const ExactQuantiles& other);

  std::uint64_t count() const { return samples_.size(); }
  // mean, min, max and quantile throw std::logic_error when there are no samples.
  double mean() const;
  double min() const;
  double max() const;

  // The nearest-rank p-quantile (see the top of this file); p in [0, 1]. Sorts the samples
  // on the first call after an add(), so concurrent calls on one object need a lock.
  double quantile(double p) const;
  double p50() const { return quantile(0.50); }
  double p90() const { return quantile(0.90); }
  double p99() const { return quantile(0.99); }
  double p999() const { return quantile(0.999); }

 private:
  [[noreturn]] static void throw_nan();
  void require_samples(const char* what) const;

  // Mutable so that quantile() can sort on demand behind a const interface: the multiset of
  // samples, which is the object's value, does not change.
  mutable std::vector<double> samples_;
  mutable bool sorted_ = true;
  long double sum_ = 0.0L;
  double min_ = 0.0;
  double max_ = 0.0;
};

// A histogram of non-negative integers (nanoseconds, bytes) with a bounded relative error,
// after HdrHistogram (Gil Tene). Memory is O(log2(max) * 2^sub_bucket_bits), independent of
// the sample count, and add() is a few instructions with no allocation once the largest
// power-of-two range has been seen.
//
// Layout, with s = sub_bucket_bits and h = 2^(s-1):
//  - values below 2^s have one bucket each, index v: they are stored exactly;
//  - a value v >= 2^s with highest set bit e (2^e <= v < 2^(e+1), e >= s) falls in group
//    g = e - s + 1 >= 1, which splits [2^e, 2^(e+1)) into h buckets of width 2^g; its index
//    is g * h + (v >> g), where v >> g lies in [h, 2h).
// Both cases are index = g * h + (v >> g) with g = max(0, bit_width(v) - s), and the
// indices run on without a gap: group g >= 1 takes [(g+1) h, (g+2) h).
//
// Error bound. The nearest-rank quantile v is the k-th smallest sample; the histogram finds
// the bucket holding the k-th smallest sample exactly (buckets are disjoint ranges in
// increasing order, so cumulative counts rank them), and reports v' = lo + w/2 for the
// bucket [lo, lo + w), clamped to [min(), max()]. If w = 1, v' = v. Otherwise w = 2^g with
// g >= 1, v is an integer in [lo, lo + w - 1], so |v' - v| <= w/2 = 2^(g-1) = 2^(e-s), and
// since v >= 2^e, |v' - v| <= v * 2^-s. Clamping to [min, max] cannot move v' away from v,
// which lies in that range. Hence |v' - v| <= v * relative_error_bound() with the bound
// 2^-s: 0.78% for the default s = 7.
class LogHistogram {
 public:
  static constexpr int kDefaultSubBucketBits = 7;
  static constexpr int kMaxSubBucketBits = 24;  // 2^24 exact buckets (128 MiB) is already too many

  // Throws std::invalid_argument unless 1 <= sub_bucket_bits <= kMaxSubBucketBits.
  explicit LogHistogram(int sub_bucket_bits = kDefaultSubBucketBits);

  // Records `count` occurrences of `value`. Throws std::overflow_error if the total count
  // would pass 2^64 - 1.
  void add(std::uint64_t value, std::uint64_t count = 1) {
    if (count == 0) return;
    const std::size_t index = bucket_index(value);
    if (index >= counts_.size()) grow(index);
    std::uint64_t new_count;
    if (__builtin_add_overflow(count_, count, &new_count)) throw_count_overflow();
    count_ = new_count;
    counts_[index] += count;
    sum_ += static_cast<Uint128>(value) * count;
    if (value < min_) min_ = value;
    if (value > max_) max_ = value;
  }

  // Adds another histogram's samples. Throws std::invalid_argument if its sub_bucket_bits
  // differ, since buckets of different widths cannot be added without losing the bound.
  void merge(const LogHistogram& other);

  std::uint64_t count() const { return count_; }
  // min, max, mean and quantile throw std::logic_error when the histogram is empty.
  // min and max are exact; so is mean, from a 128-bit sum, up to the final rounding to double.
  std::uint64_t min() const;
  std::uint64_t max() const;
  double mean() const;

  // The nearest-rank p-quantile to within relative_error_bound() (see above); p in [0, 1].
  // Ranks 1 and count() return min() and max() exactly.
  std::uint64_t quantile(double p) const;
  std::uint64_t p50() const { return quantile(0.50); }
  std::uint64_t p90() const { return quantile(0.90); }
  std::uint64_t p99() const { return quantile(0.99); }
  std::uint64_t p999() const { return quantile(0.999); }

  int sub_bucket_bits() const { return sub_bucket_bits_; }
  // 2^-sub_bucket_bits.
  double relative_error_bound() const;

  // Same configuration and the same count in every bucket (and so the same min, max, sum).
  friend bool operator==(const LogHistogram& a, const LogHistogram& b);

 private:
  __extension__ typedef unsigned __int128 Uint128;

  std::size_t bucket_index(std::uint64_t value) const {
    const int width = std::bit_width(value);
    const int group = width > sub_bucket_bits_ ? width - sub_bucket_bits_ : 0;
    return (static_cast<std::size_t>(group) << (sub_bucket_bits_ - 1)) + static_cast<std::size_t>(value >> group);
  }
  void grow(std::size_t index);
  [[noreturn]] static void throw_count_overflow();
  void require_samples(const char* what) const;

  int sub_bucket_bits_;
  std::vector<std::uint64_t> counts_;  // covers groups 0..g of the largest value seen, no more
  std::uint64_t count_ = 0;
  Uint128 sum_ = 0;  // < 2^128: at most 2^64 - 1 values, each below 2^64
  std::uint64_t min_ = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t max_ = 0;
};

}  // namespace fathom::sim
