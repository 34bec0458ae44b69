// NVLS all-reduce inside one NVLink domain: every GPU pushes its data into the NVSwitch, which
// reduces it and multicasts the result back, slice by slice.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/dag_builder.hpp"

namespace fathom::coll {

using detail::Builder;
using detail::common_plane;
using detail::validate;
using topo::VertexId;

namespace {

// Slices of an NVLS phase on a plane of `gpus` GPUs moving `bytes` per GPU (the larger of its up
// and down sizes).
Slicing nvls_slices(const CollectiveSpec& spec, double bytes, std::size_t gpus, int cap) {
  return slicing(bytes, spec.nvls_slice_bytes * static_cast<double>(gpus), cap, spec.nvls_step_ns);
}

// NVLS inside one plane: every GPU sends `up_bytes` into the switch, and once the switch holds
// slice c from all of them it sends slice c's share of `down_bytes` to each GPU. The
// switch's links are separate, so only the GPU ends are serialised.
void nvls_phase(Builder& b, const std::vector<VertexId>& gpus, VertexId plane, double up_bytes, double down_bytes,
                const Slicing& cut) {
  b.set_slicing(cut);
  const int chunks = cut.count;
  std::vector<std::optional<TransferIndex>> start(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) start[i] = b.last_recv(gpus[i]);
  for (int c = 0; c < chunks; ++c) {
    std::vector<TransferIndex> ups;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      std::vector<TransferIndex> after;
      if (c == 0 && start[i]) after.push_back(*start[i]);
      ups.push_back(b.add(gpus[i], plane, up_bytes * cut.fraction(c), std::move(after), c, true, false));
    }
    for (VertexId g : gpus) b.add(plane, g, down_bytes * cut.fraction(c), ups, c, false, true);
  }
}

void nvls(Builder& b, const CollectiveSpec& spec, const std::vector<VertexId>& gpus, VertexId plane, double up_bytes,
          double down_bytes) {
  nvls_phase(
      b, gpus, plane, up_bytes, down_bytes,
      nvls_slices(spec, std::max(up_bytes, down_bytes), gpus.size(), nvls_slice_cap(spec.max_slices, gpus.size())));
}

}  // namespace

int nvls_slice_cap(int max_slices, std::size_t gpus) { return max_slices * std::max(1, static_cast<int>(gpus)); }

TransferDag nvls_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec) {
  validate(spec, "NVLS all-reduce");
  const VertexId plane = common_plane(topology, spec.ranks, "NVLS all-reduce");
  Builder b(spec.alpha_ns);
  nvls(b, spec, spec.ranks, plane, spec.bytes, spec.bytes);
  return b.take();
}

}  // namespace fathom::coll
