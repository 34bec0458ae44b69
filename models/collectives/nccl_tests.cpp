#include "models/collectives/nccl_tests.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>

#include "models/collectives/alpha_beta.hpp"

namespace fathom::coll {

NcclOp parse_nccl_op(const std::string& name, const std::string& flag) {
  static const std::map<std::string, NcclOp> kOps = {
      {"all_reduce", {Op::kAllReduce, "sum", -1, false}},        {"all_gather", {Op::kAllGather, "none", -1, true}},
      {"reduce_scatter", {Op::kReduceScatter, "sum", -1, true}}, {"alltoall", {Op::kAllToAll, "none", -1, true}},
      {"broadcast", {Op::kBroadcast, "none", 0, false}},         {"reduce", {Op::kReduce, "sum", 0, false}},
      {"sendrecv", {Op::kSendRecv, "sum", -1, false}},
  };
  auto it = kOps.find(name);
  if (it == kOps.end()) {
    throw std::invalid_argument(flag +
                                ": expected all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce "
                                "or sendrecv, found '" +
                                name + "'");
  }
  return it->second;
}

std::optional<Algorithm> parse_nccl_algo(const std::string& name, const std::string& flag) {
  static const std::map<std::string, Algorithm> kAlgos = {
      {"ring", Algorithm::kRing},          {"tree", Algorithm::kDoubleBinaryTree},
      {"nvls", Algorithm::kNvls},          {"nvlstree", Algorithm::kNvlsTree},
      {"hd", Algorithm::kHalvingDoubling}, {"hierarchical", Algorithm::kHierarchical},
      {"direct", Algorithm::kDirect},
  };
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower.empty() || lower == "auto") return std::nullopt;
  auto it = kAlgos.find(lower);
  if (it == kAlgos.end()) {
    throw std::invalid_argument(
        flag + ": expected auto, ring, tree, nvls, nvlstree, hd, hierarchical or direct, found '" + name + "'");
  }
  return it->second;
}

std::optional<Protocol> parse_nccl_proto(const std::string& name, const std::string& flag, bool* is_list) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool list = lower.find_first_of(",^") != std::string::npos;
  if (is_list != nullptr) *is_list = list;
  if (lower.empty() || list) return std::nullopt;
  if (lower == "simple") return Protocol::kSimple;
  if (lower == "ll128") return Protocol::kLL128;
  if (lower == "ll") return Protocol::kLL;
  throw std::invalid_argument(flag + ": expected Simple, LL128 or LL, found '" + name + "'");
}

std::vector<topo::VertexId> nccl_group_ranks(const topo::Topology& t, int nodes, int gpus_per_node) {
  std::vector<std::vector<topo::VertexId>> by_node(static_cast<std::size_t>(nodes));
  for (topo::VertexId v = 0; v < t.vertices().size(); ++v) {
    const auto& vertex = t.vertex(v);
    if (vertex.kind != topo::VertexKind::kGpu || vertex.node < 0 || vertex.node >= nodes) continue;
    auto& list = by_node[static_cast<std::size_t>(vertex.node)];
    if (static_cast<int>(list.size()) < gpus_per_node) list.push_back(v);
  }
  std::vector<topo::VertexId> ranks;
  for (const auto& list : by_node) ranks.insert(ranks.end(), list.begin(), list.end());
  return ranks;
}

namespace {

NcclSize nccl_size(CollectiveTimer& timer, const NcclOp& op, const std::vector<topo::VertexId>& ranks,
                   std::int64_t size, std::optional<Algorithm> algorithm, bool simulate) {
  const auto n = static_cast<std::int64_t>(ranks.size());
  NcclSize out;
  // nccl-tests' element counts: float elements, a multiple of n where every rank holds a slice.
  out.count = op.per_rank_count ? size / 4 / n : size / 4;
  out.bytes = op.per_rank_count ? out.count * n * 4 : out.count * 4;
  out.timing = simulate ? timer.time(op.op, ranks, static_cast<double>(out.bytes), algorithm)
                        : timer.closed_form(op.op, ranks, static_cast<double>(out.bytes), algorithm);
  out.algbw_gbps = static_cast<double>(out.bytes) / 1e9 / out.timing.seconds;
  out.busbw_gbps =
      bus_bandwidth_bytes_per_s(op.op, static_cast<int>(n), static_cast<double>(out.bytes), out.timing.seconds) / 1e9;
  return out;
}

}  // namespace

NcclSize simulate_nccl_size(CollectiveTimer& timer, const NcclOp& op, const std::vector<topo::VertexId>& ranks,
                            std::int64_t size, std::optional<Algorithm> algorithm) {
  return nccl_size(timer, op, ranks, size, algorithm, true);
}

NcclSize closed_form_nccl_size(CollectiveTimer& timer, const NcclOp& op, const std::vector<topo::VertexId>& ranks,
                               std::int64_t size, std::optional<Algorithm> algorithm) {
  return nccl_size(timer, op, ranks, size, algorithm, false);
}

}  // namespace fathom::coll
