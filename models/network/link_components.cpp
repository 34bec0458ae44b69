#include "models/network/link_components.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

namespace fathom::net {

namespace {

// Union-find over links, by size, with path halving.
class LinkSets {
 public:
  explicit LinkSets(std::size_t n) : parent_(n), size_(n, 1) { std::iota(parent_.begin(), parent_.end(), 0U); }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
  }

 private:
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint32_t> size_;
};

constexpr std::uint32_t kNone = 0xffffffffu;

}  // namespace

FlowParts independent_parts(const std::vector<RoutedFlow>& flows, std::size_t link_count) {
  LinkSets sets(link_count);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    for (LinkId l : flows[i].route) {
      if (l >= link_count) {
        throw std::invalid_argument("independent_parts: flow " + std::to_string(i) + " crosses link " +
                                    std::to_string(l) + " of " + std::to_string(link_count));
      }
      sets.join(flows[i].route.front(), l);
    }
  }
  FlowParts out;
  out.part_of_flow.assign(flows.size(), 0);
  std::vector<std::uint32_t> part_of_root(link_count, kNone);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    if (flows[i].route.empty()) continue;
    std::uint32_t& part = part_of_root[sets.find(flows[i].route.front())];
    if (part == kNone) part = out.parts++;
    out.part_of_flow[i] = part;
  }
  if (out.parts == 0 && !flows.empty()) out.parts = 1;  // only flows without links
  return out;
}

}  // namespace fathom::net
