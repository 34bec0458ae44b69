#include "sim/stats/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace fathom::sim {

std::uint64_t nearest_rank(double p, std::uint64_t n) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument("quantile: p = " + std::to_string(p) + " is outside [0, 1]");
  }
  const double target = p * static_cast<double>(n);
  const double nearest = std::nearbyint(target);
  // Snap to an integer only within rounding noise; a genuine fraction of a rank rounds up.
  const double rank = std::fabs(target - nearest) <= 4.0 * 0x1.0p-52 * nearest ? nearest : std::ceil(target);
  if (rank < 1.0) return 1;
  if (rank >= static_cast<double>(n)) return n;
  return static_cast<std::uint64_t>(rank);
}

// ---------------------------------------------------------------------------------------------
// ExactQuantiles

void ExactQuantiles::throw_nan() { throw std::invalid_argument("ExactQuantiles::add: sample is NaN"); }

void ExactQuantiles::require_samples(const char* what) const {
  if (samples_.empty()) throw std::logic_error(std::string("ExactQuantiles::") + what + ": no samples");
}

void ExactQuantiles::merge(const ExactQuantiles& other) {
  if (other.samples_.empty()) return;
  const bool was_empty = samples_.empty();
  if (!was_empty && other.min_ < samples_.back()) sorted_ = false;
  sorted_ = sorted_ && other.sorted_;
  // Copy first: `other` may be *this, and insert() from its own range is not allowed.
  const std::vector<double> incoming = other.samples_;
  samples_.insert(samples_.end(), incoming.begin(), incoming.end());
  sum_ += other.sum_;
  min_ = was_empty ? other.min_ : std::min(min_, other.min_);
  max_ = was_empty ? other.max_ : std::max(max_, other.max_);
}

double ExactQuantiles::mean() const {
  require_samples("mean");
  return static_cast<double>(sum_ / static_cast<long double>(samples_.size()));
}

double ExactQuantiles::min() const {
  require_samples("min");
  return min_;
}

double ExactQuantiles::max() const {
  require_samples("max");
  return max_;
}

double ExactQuantiles::quantile(double p) const {
  require_samples("quantile");
  const std::uint64_t rank = nearest_rank(p, samples_.size());
  if (!sorted_) {
    std::sort(samples_.begin(), samples_.end());
    sorted_ = true;
  }
  return samples_[rank - 1];
}

// ---------------------------------------------------------------------------------------------
// LogHistogram

LogHistogram::LogHistogram(int sub_bucket_bits) : sub_bucket_bits_(sub_bucket_bits) {
  if (sub_bucket_bits < 1 || sub_bucket_bits > kMaxSubBucketBits) {
    throw std::invalid_argument("LogHistogram: sub_bucket_bits = " + std::to_string(sub_bucket_bits) +
                                " is outside [1, " + std::to_string(kMaxSubBucketBits) + "]");
  }
}

// Grows to the end of the group that holds `index`: at most 65 - s times over the
// histogram's life, so add() allocates only when a larger power of two first appears.
void LogHistogram::grow(std::size_t index) {
  const std::size_t half = std::size_t{1} << (sub_bucket_bits_ - 1);
  counts_.resize((index / half + 1) * half, 0);
}

void LogHistogram::throw_count_overflow() {
  throw std::overflow_error("LogHistogram::add: total count would exceed 2^64 - 1");
}

void LogHistogram::require_samples(const char* what) const {
  if (count_ == 0) throw std::logic_error(std::string("LogHistogram::") + what + ": histogram is empty");
}

void LogHistogram::merge(const LogHistogram& other) {
  if (other.sub_bucket_bits_ != sub_bucket_bits_) {
    throw std::invalid_argument("LogHistogram::merge: sub_bucket_bits differ (" + std::to_string(sub_bucket_bits_) +
                                " here, " + std::to_string(other.sub_bucket_bits_) + " in the other histogram)");
  }
  if (other.count_ == 0) return;
  std::uint64_t new_count;
  if (__builtin_add_overflow(count_, other.count_, &new_count)) throw_count_overflow();
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), 0);
  // Indexing, not iterators: `other` may be *this, and the resize above may have moved it.
  const std::size_t n = other.counts_.size();
  for (std::size_t i = 0; i < n; ++i) counts_[i] += other.counts_[i];
  count_ = new_count;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

std::uint64_t LogHistogram::min() const {
  require_samples("min");
  return min_;
}

std::uint64_t LogHistogram::max() const {
  require_samples("max");
  return max_;
}

double LogHistogram::mean() const {
  require_samples("mean");
  // Integer quotient plus fraction: exact up to the final roundings, whatever the sum's size.
  const Uint128 quotient = sum_ / count_;
  const Uint128 remainder = sum_ % count_;
  return static_cast<double>(static_cast<long double>(quotient) +
                             static_cast<long double>(remainder) / static_cast<long double>(count_));
}

std::uint64_t LogHistogram::quantile(double p) const {
  require_samples("quantile");
  const std::uint64_t rank = nearest_rank(p, count_);
  // The extreme ranks are known exactly; p0 and p100 should not carry a bucket's error.
  if (rank == 1) return min_;
  if (rank == count_) return max_;
  std::size_t index = 0;
  for (std::uint64_t seen = 0; index < counts_.size(); ++index) {
    seen += counts_[index];
    if (seen >= rank) break;
  }
  // Invert index = g * h + (v >> g): group g >= 1 occupies [(g+1) h, (g+2) h).
  const std::size_t half = std::size_t{1} << (sub_bucket_bits_ - 1);
  const std::size_t group = index < 2 * half ? 0 : index / half - 1;
  const std::uint64_t low = static_cast<std::uint64_t>(index - group * half) << group;
  const std::uint64_t width = std::uint64_t{1} << group;
  const std::uint64_t midpoint = low + width / 2;  // <= low + width - 1: no overflow at 2^64 - 1
  return std::clamp(midpoint, min_, max_);
}

double LogHistogram::relative_error_bound() const { return std::ldexp(1.0, -sub_bucket_bits_); }

bool operator==(const LogHistogram& a, const LogHistogram& b) {
  if (a.sub_bucket_bits_ != b.sub_bucket_bits_ || a.count_ != b.count_ || a.sum_ != b.sum_) return false;
  if (a.count_ == 0) return true;
  if (a.min_ != b.min_ || a.max_ != b.max_) return false;
  // Sizes follow the largest value seen, so equal max means equal size; compare as if padded with zeros anyway.
  const std::size_t n = std::max(a.counts_.size(), b.counts_.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t ca = i < a.counts_.size() ? a.counts_[i] : 0;
    const std::uint64_t cb = i < b.counts_.size() ? b.counts_[i] : 0;
    if (ca != cb) return false;
  }
  return true;
}

}  // namespace fathom::sim
