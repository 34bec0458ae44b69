// FabricLp: the network as one long-lived logical process, carrying transfers for whoever asks
// (a collective's DAG, generated traffic, and any other LP of the model).
//
// A transfer travels on a connection: one routed flow, or several that share its bytes equally
// (a transfer split over ECMP sub-flows), opened once before the run (open()) as NCCL opens its
// queue pairs at communicator set-up. The transfer's first byte waits the connection's latency
// (the longest of its flows' route latencies); its flows then share bandwidth max-min fairly
// with every other active flow until their last byte arrives. Every change of an instant is
// applied first, then one settle re-rates the network (net::FlowSettler). A transfer of zero
// bytes (a synchronisation edge of a DAG) is delivered the instant its first byte would leave,
// without a flow, so it costs no re-rating.
//
// Who asks, and how it learns that its bytes arrived:
//  - A FabricUser lives inside the fabric's own LP (add_user()) and calls send() directly. It
//    learns of a delivery at the instant the last byte arrives (on_delivered()), so a chain of
//    transfers with no delay between them (a ring's slices) costs no extra events. That is how
//    collectives and generated traffic run.
//  - Any other LP posts a transfer by an event (post(), kind kPost) sent exactly lookahead()
//    ahead, and learns of its delivery by a kDelivered event carrying its tag. Both ends of the
//    exchange cost no accuracy: the post's lookahead comes out of the connection's own latency
//    (the first byte still starts moving at the post's time plus the connection's latency), and
//    the notice arrives when the acknowledgement of the last byte would, one connection latency
//    after it (an RDMA sender's completion).
//
// The lookahead is the smallest latency of any link the fabric carries: every route has at least
// one link, so every connection's latency is at least that. It is what lets the engine run the
// fabric beside other LPs in other partitions (sim/simulation.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "models/network/flow_network.hpp"
#include "models/network/flow_settler.hpp"
#include "models/network/flow_transfer.hpp"
#include "sim/context.hpp"
#include "sim/logical_process.hpp"
#include "sim/time.hpp"
#include "topologies/topology.hpp"

namespace fathom::net {

using ConnectionId = std::uint32_t;

struct Connection {
  std::vector<RoutedFlow> flows;  // a transfer's bytes are shared equally among them (at least one)
  sim::SimTime latency;           // the first byte's wait: the longest of the flows' route latencies
};

class FabricLp;

// A model that runs inside the fabric's LP and calls it directly.
class FabricUser {
 public:
  virtual ~FabricUser() = default;
  // At time 0, in the order the users were added.
  virtual void on_start(FabricLp& fabric, sim::Context& ctx) = 0;
  // The last byte of the transfer this user sent with `tag` has arrived (now).
  virtual void on_delivered(FabricLp& fabric, std::uint64_t tag, sim::Context& ctx) = 0;
};

// What a remote LP posts (the payload of kPost: a trivial type, so no member initialisers).
struct PostedTransfer {
  ConnectionId connection;
  std::uint32_t tag;  // returned in kDelivered's payload
  double bytes;
};

class FabricLp final : public sim::LogicalProcess {
 public:
  static constexpr sim::EventKind kActivate = 1;   // own: a transfer's first byte leaves
  static constexpr sim::EventKind kSettle = 2;     // own: re-rate the network (FlowSettler)
  static constexpr sim::EventKind kPost = 3;       // in: a PostedTransfer from another LP
  static constexpr sim::EventKind kDelivered = 4;  // out: the posted transfer's tag (std::uint32_t)

  // Every link of `topology`, by its LinkId.
  explicit FabricLp(const topo::Topology& topology);
  // `capacities[l]` and `latencies[l]` of each link l that routes name (a part of a topology's
  // links, renumbered). Throws std::invalid_argument when the two differ in length.
  FabricLp(std::vector<LinkCapacity> capacities, const std::vector<sim::SimTime>& latencies);

  // The least delay of a post: the smallest link latency (zero for a fabric without links).
  sim::SimTime lookahead() const { return lookahead_; }

  // Before the run; the fabric keeps a copy, so the caller may reuse `connection` for the next.
  // Throws std::invalid_argument for a connection without flows, a flow on a link the fabric
  // does not have, or fractions that are not one per link of their route.
  ConnectionId open(const Connection& connection);
  std::size_t connection_count() const { return connections_.size(); }
  // The wait of a connection's first byte: the longest of its flows' route latencies.
  sim::SimTime latency(ConnectionId connection) const { return connections_.at(connection).latency; }

  // Before the run; the user must outlive the fabric's run. Returns the user's number for send().
  std::uint32_t add_user(FabricUser& user);

  // For a user, while it handles an event of this LP: moves `bytes` on `connection`, the first
  // byte leaving after `delay` plus, unless `streamed` (a later slice that follows the previous
  // one's bytes without a gap), the connection's latency. Returns when the first byte leaves.
  sim::SimTime send(sim::Context& ctx, std::uint32_t user, ConnectionId connection, double bytes, sim::SimTime delay,
                    bool streamed, std::uint64_t tag);

  // For another LP, while it handles an event: posts `transfer` to the fabric LP `fabric`, whose
  // lookahead() is `lookahead`. Its first byte leaves the connection's latency after now.
  static void post(sim::Context& ctx, sim::LpId fabric, sim::SimTime lookahead, const PostedTransfer& transfer);

  void on_start(sim::Context& ctx) override;
  // A flow that would finish beyond SimTime's range stops the run with BeyondClock, whose flow()
  // is the tag of the transfer it carries.
  void on_event(const sim::Event& event, sim::Context& ctx) override;

  FlowNetwork& network() { return settler_.network(); }
  const FlowNetwork& network() const { return settler_.network(); }
  // Transfers sent or posted and not yet delivered.
  std::size_t in_flight() const { return carried_.size() - free_.size(); }

 private:
  static constexpr std::uint32_t kRemote = 0xffffffffu;  // Carried::user of a posted transfer

  struct Carried {
    ConnectionId connection = 0;
    std::uint32_t flows_left = 0;
    std::uint32_t user = 0;  // the FabricUser's number, or kRemote
    sim::LpId poster = 0;    // with kRemote: who posted it
    std::uint64_t tag = 0;
    double bytes = 0;
  };

  void handle(const sim::Event& event, sim::Context& ctx);
  std::uint32_t carry(const Carried& transfer);
  // The transfer's first byte leaves `delay` from now (at once when zero).
  void launch(sim::Context& ctx, std::uint32_t transfer, sim::SimTime delay);
  // Its flows join the network now; returns false when it has none to add (zero bytes: it is
  // delivered at once).
  bool activate(std::uint32_t transfer, sim::Context& ctx);
  // One of its flows has arrived; the transfer is delivered with its last.
  void delivered(FlowId flow, sim::Context& ctx);
  // The transfer's last byte has arrived: its slot is freed and its sender told.
  void finish(std::uint32_t slot, sim::Context& ctx);

  // The connections, flat: a tree collective on 16K GPUs opens half a million of them, so each
  // costs no heap block of its own. Connection c's flows are flows_[first_flow .. end_flow), a
  // flow's route links_[first_link .. end_link), its fractions fractions_ from first_fraction
  // (one per link) or, with kNoFractions, none (1 on every link).
  static constexpr std::size_t kNoFractions = ~std::size_t{0};
  struct OpenConnection {
    std::size_t first_flow = 0, end_flow = 0;
    sim::SimTime latency;
  };
  struct OpenFlow {
    std::size_t first_link = 0, end_link = 0, first_fraction = kNoFractions;
  };

  FlowSettler settler_;
  std::size_t link_count_ = 0;
  sim::SimTime lookahead_;
  std::vector<OpenConnection> connections_;
  std::vector<OpenFlow> flows_;
  std::vector<LinkId> links_;
  std::vector<double> fractions_;
  std::vector<FabricUser*> users_;
  std::vector<Carried> carried_;            // by transfer slot, reused once delivered
  std::vector<std::uint32_t> free_;         // slots free for reuse
  std::vector<std::uint32_t> carrier_;      // FlowNetwork slot -> transfer slot
  std::vector<std::uint32_t> arrived_now_;  // zero-byte transfers delivered at this instant, in order
  bool delivering_ = false;                 // arrived_now_ is being worked through
};

}  // namespace fathom::net
