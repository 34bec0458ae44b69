// The pieces the collective builders (ring.cpp, nvls.cpp, tree.cpp, nvls_tree.cpp, ...) share: spec
// validation, a Builder that emits transfers in the order an algorithm serialises them, the
// slices of a message by size and delay, and the links at the two ends of a transfer. Internal
// to models/collectives: algorithms.hpp is the public face.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/transfer_dag.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace fathom::coll::detail {

// Throws std::invalid_argument naming `what` for an invalid spec (see algorithms.hpp).
void validate(const CollectiveSpec& spec, std::string_view what, std::size_t min_ranks = 1);

// A message's DAG slices by size and delay (Slicing, in bytes): slice 0 carries first_bytes and
// pays alpha (the builder's); with three or more slices the last carries last_bytes after
// last_ns and every slice between middle_bytes after middle_ns; with two, the second carries
// middle_bytes after middle_ns.
struct Pieces {
  int count = 1;
  double first_bytes = 0, middle_bytes = 0, last_bytes = 0;
  std::int64_t middle_ns = 0, last_ns = 0;

  static Pieces of(const Slicing& slicing, double message_bytes);
  // The same slice sizes and delays with `count` (>= 3) slices: what the closed forms use to
  // find a long pipeline's period on a shorter one (alpha_beta.cpp).
  Pieces with_count(int new_count) const;
  bool is_last(int c) const { return count >= 3 && c == count - 1; }
  double bytes(int c) const { return c == 0 ? first_bytes : (is_last(c) ? last_bytes : middle_bytes); }
  std::int64_t delay_ns(int c) const { return c == 0 ? 0 : (is_last(c) ? last_ns : middle_ns); }
};

// What a transfer of add_queued() waits before its bytes (its Delay role), so that a DAG built
// once can be timed again with other costs (alpha_beta.cpp): kNone for the bytes themselves; the
// zero-byte start of a message's slice 0 waits alpha; that of a later slice the middle or last
// delay of one of two Pieces (A, B: NVLS-tree's NVLS phases and its trees).
enum Delay : std::uint8_t { kNone, kAlpha, kMiddleA, kLastA, kMiddleB, kLastB, kDelays };
inline Delay delay_role(const Pieces& cut, int c, bool b = false) {
  if (c == 0) return kAlpha;
  const int base = b ? kMiddleB : kMiddleA;
  return static_cast<Delay>(cut.is_last(c) ? base + 1 : base);
}
// The delay of every role for `spec` and the two Pieces.
struct Delays {
  std::int64_t ns[kDelays] = {};
  Delays(std::int64_t alpha_ns, const Pieces& a, const Pieces& b)
      : ns{0, alpha_ns, a.middle_ns, a.last_ns, b.middle_ns, b.last_ns} {}
};

// Whether add_queued() keeps a later slice's zero-byte start when its delay is zero. The closed
// forms keep it: they time one DAG shape with many costs (alpha_beta.cpp), so the shape must not
// depend on them. A DAG built to run once on the flow network drops it: the bytes then wait on
// the same transfers at the same instant, and a pipelined collective has half the transfers.
enum class FreeStarts : std::uint8_t { kKeep, kDrop };

// A DAG with every transfer's delay role (add_queued's; kNone for the others).
struct PipelineDag {
  TransferDag dag;
  std::vector<std::uint8_t> roles;
};

// The links a transfer holds at its two ends: from the sending GPU, the leading links of its
// route that leave a GPU or a NIC (GPU -> NVSwitch; or GPU -> NIC and NIC -> leaf), and at the
// receiving GPU the trailing links that enter a GPU or a NIC. Routes with ECMP hash 0: the
// links next to the endpoints are the same on every equal-cost path. Cached per (src, dst).
class Ports {
 public:
  struct Ends {
    std::uint32_t first = 0, count = 0;  // every link at either end: links_[first .. first + count)
    std::int64_t out = -1;               // the sending end's outermost link (NIC -> leaf, GPU -> NVSwitch), -1: none
    std::int64_t in = -1;                // the receiving end's outermost link (leaf -> NIC, NVSwitch -> GPU), -1: none
  };
  // `shared`: a router of `topology` to route with (CollectiveSpec::router); null: one of its own.
  Ports(const topo::Topology& topology, topo::Router* shared)
      : topology_(topology),
        own_(shared ? nullptr : std::make_unique<topo::Router>(topology)),
        router_(shared ? *shared : *own_) {}
  // The pair's number (the same for as long as this Ports lives) and its ends by number.
  std::uint32_t index(topo::VertexId src, topo::VertexId dst);
  const Ends& ends(std::uint32_t index) const { return ends_[index]; }
  const Ends& ends(topo::VertexId src, topo::VertexId dst) { return ends(index(src, dst)); }
  // Every link at either end of a transfer with these ends.
  std::span<const topo::LinkId> links(const Ends& e) const { return {links_.data() + e.first, e.count}; }

 private:
  const topo::Topology& topology_;
  std::unique_ptr<topo::Router> own_;
  topo::Router& router_;
  // About 100,000 pairs on a 16K-GPU tree: their links sit in one array, not a block each.
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::vector<Ends> ends_;
  std::vector<topo::LinkId> links_;
  std::vector<topo::LinkId> route_;  // scratch
};

// The order in which transfers that queue on links (Builder::add_queued) are emitted within
// one wavefront step. Emitting them in an arbitrary order lets a transfer wait for one on
// another link that waits for one on a third, a chain longer than any link's own queue; so
// each step's transfers are coloured, as the edges of the bipartite graph of their sending and
// receiving ends (Ports::Ends), with as many colours as the busiest end has transfers in that
// step (Konig's edge colouring, by alternating paths), and emitted colour by colour: transfers
// of one colour hold disjoint ends. Returns each item's colour; items[i] = {step, out, in}.
struct SlotItem {
  int step = 0;
  std::int64_t out = -1, in = -1;  // -1: no end to share on that side
};
std::vector<int> step_slots(const std::vector<SlotItem>& items);

// Sets `ends` of every item (each with step, src, dst, slot and ends members) to its pair's
// number in `ports`, and `slot` to its step_slots() colour.
template <class Item>
void assign_step_slots(std::vector<Item>& items, Ports& ports) {
  std::vector<SlotItem> ends;
  ends.reserve(items.size());
  for (Item& it : items) {
    it.ends = ports.index(it.src, it.dst);
    const Ports::Ends& e = ports.ends(it.ends);
    ends.push_back({it.step, e.out, e.in});
  }
  const std::vector<int> slot = step_slots(ends);
  for (std::size_t i = 0; i < items.size(); ++i) items[i].slot = slot[i];
}

// Emits transfers and keeps each vertex's last send and last receive, so that a GPU's sends
// (and its receives) go one at a time, in emission order. Slice 0 of a message pays alpha and
// the route latency; later slices stream behind it (Transfer::pipelined), each after the
// per-slice delay of the message's Slicing (set_slicing; none unless the spec has a step_ns).
// The order is kept per channel (set_channel): the channels of a multi-channel ring run
// concurrently, so a GPU's sends in one channel do not wait for its sends in another.
//
// add_queued() serialises on links instead (Ports): a transfer's bytes wait for the previous
// transfer that held any of its end links, whatever its channel, while its software delay
// (alpha and the route latency, or a later slice's step) runs from its data alone, as NCCL's
// concurrent connections post their steps independently and share the wire.
class Builder {
 public:
  explicit Builder(std::int64_t alpha_ns) : alpha_ns_(alpha_ns) {}

  void set_channel(int channel) { channel_ = static_cast<std::uint32_t>(channel); }
  void set_slicing(const Slicing& slicing) { slicing_ = slicing; }
  // From now on a message's first slice follows its sender's previous message to the same peer
  // on the same channel as Transfer::after_sent: once that message has left, not arrived (a
  // ring's steps, whose connection keeps several in flight). Off: it waits for the arrival.
  void set_sends_in_flight(bool on) { sends_in_flight_ = on; }
  std::int64_t alpha_ns() const { return alpha_ns_; }

  TransferIndex add(topo::VertexId src, topo::VertexId dst, double bytes, std::vector<TransferIndex> after,
                    int slice = 0, bool serial_src = true, bool serial_dst = true);

  // Slice `slice` of a message (its delay: alpha for slice 0, else `delay_ns`) on connection
  // `connection` (one peer of one channel or phase: src, dst and the caller's channel), queued on
  // `links`: a zero-byte transfer src -> dst after `after` and after the connection's previous
  // slice carries the delay (and, for slice 0, the route latency), and the bytes follow it once
  // every link in `links` is free of earlier transfers. A connection thus pays its per-slice
  // step after each slice, as a ring channel does, while other connections use the link.
  // `delays` gives each role's delay (set_delays()); a later slice's zero-byte start exists even
  // with no delay, so that the DAG's shape does not depend on the costs.
  // With FreeStarts::kDrop a later slice whose delay is zero gets no zero-byte start: its bytes
  // wait on `after` and the links directly, which is the same instant.
  TransferIndex add_queued(topo::VertexId src, topo::VertexId dst, double bytes, std::span<const TransferIndex> after,
                           Delay role, std::span<const topo::LinkId> links, std::uint32_t connection);
  void set_delays(const Delays& delays) { delays_ = delays; }
  void set_free_starts(FreeStarts starts) { free_starts_ = starts; }

  std::optional<TransferIndex> last_recv(topo::VertexId v) const;
  std::size_t size() const { return dag_.size(); }  // transfers emitted so far
  // Labels the transfers emitted from now on as belonging to `step` (a ring's step): what timing
  // by the period reads (step_period.hpp).
  void set_step(std::uint32_t step) { step_ = step; }
  // The DAG and each transfer's step label.
  StepDag take_steps();

  TransferDag take() { return std::move(dag_); }
  // The DAG and the delay role of each of its transfers.
  PipelineDag take_pipeline();

 private:
  std::uint64_t key(topo::VertexId v) const { return (static_cast<std::uint64_t>(channel_) << 32) | v; }

  std::int64_t alpha_ns_;
  Slicing slicing_;
  std::uint32_t channel_ = 0;
  std::uint32_t step_ = 0;
  bool sends_in_flight_ = false;
  TransferDag dag_;
  std::vector<std::uint32_t> steps_;  // by transfer: step_ when it was emitted
  std::unordered_map<std::uint64_t, TransferIndex> last_send_;
  std::unordered_map<std::uint64_t, TransferIndex> last_recv_;
  Delays delays_{0, Pieces{}, Pieces{}};
  FreeStarts free_starts_ = FreeStarts::kKeep;
  std::vector<std::uint8_t> roles_;  // by transfer, for those add_queued() added (kNone for the rest)
  static constexpr TransferIndex kNoTransfer = 0xFFFFFFFFu;
  std::vector<TransferIndex> last_on_link_;               // by link: the last transfer queued on it, or kNoTransfer
  std::vector<TransferIndex> start_after_, bytes_after_;  // add_queued()'s predecessors, reused
  // The last slice of each connection (src, dst, connection).
  struct ConnectionKey {
    std::uint64_t pair;
    std::uint32_t connection;
    bool operator==(const ConnectionKey&) const = default;
  };
  struct ConnectionKeyHash {
    std::size_t operator()(const ConnectionKey& k) const {
      return std::hash<std::uint64_t>()(k.pair * 0x9e3779b97f4a7c15ULL + k.connection);
    }
  };
  std::unordered_map<ConnectionKey, TransferIndex, ConnectionKeyHash> last_on_connection_;
};

// Phases several builders share (phases.cpp). `steps` ring steps over `order` (rank i sends to
// rank i+1), each rank sending step_bytes per step in cut's slices; a pipelined chain
// order[0] -> order[1] -> ... of `bytes`; the ranks rotated to start at `first`; a
// point-to-point message's slices; and a ring phase sliced as `spec` slices its messages.
void ring_phase(Builder& b, const std::vector<topo::VertexId>& order, int steps, double step_bytes, const Slicing& cut);
void chain(Builder& b, const std::vector<topo::VertexId>& order, double bytes, const Slicing& cut);
std::vector<topo::VertexId> rotated(const std::vector<topo::VertexId>& ranks, std::size_t first);
Slicing slices(const CollectiveSpec& spec, double message_bytes);
void ring(Builder& b, const CollectiveSpec& spec, const std::vector<topo::VertexId>& order, int steps,
          double step_bytes);

// The NVSwitch plane a GPU hangs off (its NVLink peer); throws if it has none.
topo::VertexId plane_of(const topo::Topology& topology, topo::VertexId gpu);
// The plane every GPU of `gpus` hangs off, which must reduce in the switch; throws otherwise.
topo::VertexId common_plane(const topo::Topology& topology, const std::vector<topo::VertexId>& gpus,
                            std::string_view what);
// Ranks grouped by node (ranks_by_node); every node must hold as many, else throws.
std::vector<std::vector<topo::VertexId>> by_node(const topo::Topology& topology,
                                                 const std::vector<topo::VertexId>& ranks, std::string_view what);

// The double binary tree over `n` members as children, heights and depths (double_binary_tree_parents).
struct TreePair {
  std::vector<std::vector<int>> parent;                 // [tree][member], -1 at the root
  std::vector<std::vector<std::vector<int>>> children;  // [tree][member]
  std::vector<std::vector<int>> height, depth;          // [tree][member]: leaves 0; root 0
  int root[2] = {0, 0};
  int tree_height[2] = {0, 0};
};
TreePair tree_pair(int n);

// The tree across nodes (tree.cpp): its wavefront steps per slice (the pipeline's depth), its
// slices, and its DAG with the given slices (a closed form builds it with fewer, alpha_beta.cpp).
int node_tree_steps(const topo::Topology& topology, const std::vector<topo::VertexId>& ranks);
Pieces node_tree_pieces(const topo::Topology& topology, const CollectiveSpec& spec);
PipelineDag node_tree_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec, const Pieces& cut,
                                 FreeStarts starts = FreeStarts::kKeep);

// The same for NVLS-tree (nvls_tree.cpp): the NVLS phases' slices and the trees' (the same sizes;
// the delays of nvls_step and of step).
int nvls_tree_steps(int nodes);
std::pair<Pieces, Pieces> nvls_tree_pieces(const topo::Topology& topology, const CollectiveSpec& spec);
PipelineDag nvls_tree_all_reduce(const topo::Topology& topology, const CollectiveSpec& spec, const Pieces& nvls,
                                 const Pieces& tree, FreeStarts starts = FreeStarts::kKeep);

}  // namespace fathom::coll::detail
