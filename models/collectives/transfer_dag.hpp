// TransferDag: a collective as a directed acyclic graph of point-to-point transfers, and
// the executor that runs one on the engine over the flow-level network.
//
// A transfer moves `bytes` from one topology vertex to another. It is released when all
// its predecessors have finished; it then waits its own start delay (alpha_ns: the
// software cost of posting a step) plus its route's latency, and then shares bandwidth
// max-min fairly with every other active flow (models/network/flow_network.hpp) until its
// last byte arrives. A zero-byte transfer is a pure latency/synchronisation edge.
//
// A `pipelined` transfer is a later slice of a message cut into slices that stream back to
// back (algorithms.hpp): its bytes follow the previous slice's without a gap, so it waits
// no route latency of its own (the message's first slice paid it once).
//
// A transfer `after_sent` follows its first predecessor as the next message on the same
// connection, not as data it needs: it waits for that message's bytes to have left the sender,
// not to have arrived. The executor moves a message's bytes after its route latency (latency
// first, then bytes), so "left" is the predecessor's finish less its connection's latency: the
// transfer is released at the latest of its other predecessors' finishes and that, then waits
// its alpha and its own latency, and starts no earlier than the instant its last predecessor
// finished. So a sender keeps several messages in flight on one connection, as NCCL's
// connections do (NCCL_STEPS buffers of credit), and a ring step pays its own hop's latency,
// not the slowest hop's: a GPU's next send is not held back by the latency of its last one.
//
// Predecessors must have smaller indices than the transfer that waits on them, so a DAG
// is acyclic by construction and its insertion order is a topological order (the alpha-beta
// critical path in alpha_beta.hpp walks it once, in that order).
//
// A transfer travels as one flow or as several: with ECMP hashing and k = flows_per_connection
// > 1, a transfer that crosses the scale-out fabric is k flows of bytes / k, each with its own
// hash (net::subflow_hash), all started together; it is finished when the last one is. With
// adaptive routing its one flow is spread over every shortest path (net::route_one). Inside a node
// and with D-mod-K a transfer is one flow.
//
// A DAG runs on the network's logical process (net::FabricLp) as one of its users (DagRunner):
// every change of an instant is applied first, then one "settle" event at priority 255 re-rates
// the network, pops the completions and releases their successors. A successor with no delay at
// all starts inside the same settle, so a chain of zero-delay transfers costs no extra events.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/network/fabric_lp.hpp"
#include "models/network/flow_transfer.hpp"
#include "sim/time.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace fathom::coll {

using TransferIndex = std::uint32_t;

// A transfer; its predecessors (all must finish before it is released) are TransferDag::after().
struct Transfer {
  topo::VertexId src = 0;
  topo::VertexId dst = 0;
  double bytes = 0;
  std::int64_t alpha_ns = 0;     // extra start delay once released
  bool pipelined = false;        // a later slice of a streamed message: no route latency
  bool after_sent = false;       // its first predecessor is the previous message on its connection (above)
  std::uint32_t connection = 0;  // which of src -> dst's connections carries it (a channel, a tree)
};

// The ECMP hash of a transfer: that of its connection (src, dst, connection), the same for every
// transfer the connection carries, as NCCL keeps one queue pair per channel and peer, hashed once
// on its 5-tuple, for the whole collective. A function of the seed and the connection alone.
std::uint64_t connection_hash(std::uint64_t seed, const Transfer& transfer);

class TransferDag {
 public:
  // Appends a transfer that waits on `after` and returns its index. Throws std::invalid_argument
  // for negative or non-finite bytes, a negative alpha, a predecessor that is not an earlier
  // transfer, or an `after_sent` transfer that is pipelined, has no predecessor, or whose first
  // predecessor has another sender, receiver or connection.
  TransferIndex add(const Transfer& transfer, const std::vector<TransferIndex>& after = {});

  // Appends every transfer of `other`, its predecessors shifted past this DAG's transfers (the two
  // run side by side, neither waiting on the other). Returns the index of other's first transfer.
  TransferIndex append(const TransferDag& other);

  const std::vector<Transfer>& transfers() const { return transfers_; }
  const Transfer& operator[](TransferIndex i) const { return transfers_.at(i); }
  // Transfer i's predecessors, in the order add() was given them.
  std::span<const TransferIndex> after(TransferIndex i) const {
    return {after_.data() + after_begin_.at(i), after_.data() + after_begin_[i + 1]};
  }
  std::size_t size() const { return transfers_.size(); }
  bool empty() const { return transfers_.empty(); }
  // Sum of the bytes of every transfer (what the fabric carries, counted once per transfer).
  double total_bytes() const;

 private:
  std::vector<Transfer> transfers_;
  // Predecessors of every transfer in one array (millions of transfers, a few each): transfer i's
  // are after_[after_begin_[i] .. after_begin_[i + 1]).
  std::vector<TransferIndex> after_;
  std::vector<std::size_t> after_begin_{0};
};

// One path per transfer, the one the closed forms read (alpha_beta.hpp): Router::route with the
// transfer's connection_hash, so a DAG's routes are reproducible from the seed alone. (run_dag moves the bytes on
// route_dag_flows' flows.)
std::vector<net::RoutedFlow> route_dag(const topo::Topology& topology, topo::Router& router, const TransferDag& dag,
                                       std::uint64_t seed);

// The flows that carry a DAG's transfers: transfer i's are flows[begin[i] .. begin[i + 1]).
struct DagFlows {
  std::vector<net::RoutedFlow> flows;
  std::vector<std::uint32_t> begin;   // dag.size() + 1 entries
  std::vector<sim::SimTime> latency;  // per transfer: the longest of its flows' route latencies
};

// Routes every transfer of `dag` as the topology's routing mode and `flows_per_connection` say
// (above): the ECMP hash of its connection (connection_hash), sub-flow j of it subflow_hash(hash, j). Throws
// std::invalid_argument for flows_per_connection < 1. (DagRunner routes each transfer the same way
// before the run; this is the whole table at once, for inspection.)
DagFlows route_dag_flows(const topo::Topology& topology, topo::Router& router, const TransferDag& dag,
                         std::uint64_t seed, int flows_per_connection);

struct TransferTiming {
  sim::SimTime released;   // last predecessor's finish (0 for a transfer with none)
  sim::SimTime activated;  // released + alpha + route latency (none if pipelined): bytes start moving
  sim::SimTime finish;     // last byte delivered
};

// What a run keeps: every transfer's times, or only the makespan (a collective timed at scale
// needs no more, and millions of transfers' times are memory it would touch for nothing).
enum class DagRecord : std::uint8_t { kEveryTransfer, kMakespan };

struct DagResult {
  std::vector<TransferTiming> transfers;  // in DAG order (empty with DagRecord::kMakespan)
  sim::SimTime makespan;                  // last finish (0 for an empty DAG)
  std::uint64_t fingerprint = 0;
  std::uint64_t events = 0;
};

// Runs a DAG on a fabric: a net::FabricUser inside the fabric's LP. Each released transfer is sent
// on its connection (FabricLp::send) and its successors are released the instant its last byte
// arrives, so a successor with no delay starts inside the same settle and a chain of zero-delay
// transfers costs no extra events.
class DagRunner final : public net::FabricUser {
 public:
  // Routes each of the DAG's connections (src, dst, connection) once, as route_dag_flows() would
  // (the same flows, the same hashes), destination by destination, and opens them on `fabric`:
  // a ring's thousands of steps reuse its few thousand connections. The router keeps each
  // connection's route too (net::route_connection_into), so a later run on the same router (the
  // next size of an nccl-tests sweep, a longer prefix of a ring) routes nothing again. The DAG
  // must outlive the runner; the runner must outlive the fabric's run.
  DagRunner(const topo::Topology& topology, topo::Router& router, const TransferDag& dag, std::uint64_t seed,
            int flows_per_connection, net::FabricLp& fabric, DagRecord record = DagRecord::kEveryTransfer);

  void on_start(net::FabricLp& fabric, sim::Context& ctx) override;
  void on_delivered(net::FabricLp& fabric, std::uint64_t tag, sim::Context& ctx) override;

  // Every transfer's times (empty with DagRecord::kMakespan).
  const std::vector<TransferTiming>& timings() const { return timings_; }
  // The last finish so far.
  sim::SimTime makespan() const { return makespan_; }
  // Transfers not finished (non-zero after a run means the run was cut short).
  std::size_t unfinished() const { return unfinished_; }

 private:
  void open_connections(const topo::Topology& topology, topo::Router& router, std::uint64_t seed,
                        int flows_per_connection, net::FabricLp& fabric);
  void release(net::FabricLp& fabric, TransferIndex i, sim::Context& ctx);

  const TransferDag& dag_;
  std::uint32_t user_ = 0;  // this runner's number on the fabric
  // Successors in compressed form: successors of i are succ_[succ_begin_[i] .. succ_begin_[i + 1]).
  std::vector<std::uint32_t> succ_begin_;
  std::vector<TransferIndex> succ_;
  std::vector<std::uint32_t> waiting_on_;  // predecessors not yet finished
  // Per transfer: the latest of its finished predecessors' finishes, an after_sent one's less its
  // connection's latency (TransferDag's header); read when the last one finishes.
  std::vector<sim::SimTime> ready_;
  std::vector<net::ConnectionId> connection_of_;  // per transfer: the fabric connection carrying it
  std::vector<TransferTiming> timings_;
  bool record_each_ = true;
  sim::SimTime makespan_;
  std::size_t unfinished_ = 0;
};

// Runs `dag` over `topology` (its flows routed as route_dag_flows routes them) and returns every
// transfer's times and the makespan.
DagResult run_dag(const topo::Topology& topology, topo::Router& router, const TransferDag& dag, std::uint64_t seed,
                  int flows_per_connection = 1, DagRecord record = DagRecord::kEveryTransfer);

}  // namespace fathom::coll
