#include "models/storage/shared_transfer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace fathom::storage {

namespace {

// The max-min level on a link of `capacity` shared by the active groups: each flow gets
// min(cap, level); infinity when the caps do not fill it.
double fill_level(const std::vector<ClientGroup>& groups, const std::vector<bool>& active, double capacity) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (active[i]) order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return groups[a].cap_bytes_per_s < groups[b].cap_bytes_per_s; });
  double left = capacity;
  double flows = 0;
  for (std::size_t i : order) flows += static_cast<double>(groups[i].count);
  for (std::size_t i : order) {
    const double share = left / flows;
    if (groups[i].cap_bytes_per_s >= share) return share;  // this flow and the rest are held by the tier
    left -= groups[i].cap_bytes_per_s * static_cast<double>(groups[i].count);
    flows -= static_cast<double>(groups[i].count);
  }
  return std::numeric_limits<double>::infinity();
}

}  // namespace

SharedTransfer shared_transfer(const std::vector<ClientGroup>& groups, double shared_bytes_per_s) {
  if (!(shared_bytes_per_s > 0)) throw std::invalid_argument("shared_transfer: the tier's rate must be positive");
  for (const ClientGroup& g : groups) {
    if (!(g.cap_bytes_per_s > 0) || g.bytes < 0 || g.count < 0 || !std::isfinite(g.bytes)) {
      throw std::invalid_argument("shared_transfer: every group needs a positive cap and finite bytes");
    }
  }
  SharedTransfer out;
  out.group_seconds.assign(groups.size(), 0.0);
  std::vector<double> left(groups.size());
  std::vector<bool> active(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    left[i] = groups[i].bytes;
    active[i] = groups[i].count > 0 && groups[i].bytes > 0;
  }
  double now = 0;
  while (std::any_of(active.begin(), active.end(), [](bool a) { return a; })) {
    const double level = fill_level(groups, active, shared_bytes_per_s);
    // The next group to finish at the current rates.
    double next = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (active[i]) next = std::min(next, left[i] / std::min(groups[i].cap_bytes_per_s, level));
    }
    now += next;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (!active[i]) continue;
      const double rate = std::min(groups[i].cap_bytes_per_s, level);
      left[i] -= rate * next;
      if (left[i] <= groups[i].bytes * 1e-12) {  // finished (allowing rounding)
        active[i] = false;
        out.group_seconds[i] = now;
      }
    }
  }
  out.seconds = std::accumulate(out.group_seconds.begin(), out.group_seconds.end(), 0.0,
                                [](double a, double b) { return std::max(a, b); });
  return out;
}

}  // namespace fathom::storage
