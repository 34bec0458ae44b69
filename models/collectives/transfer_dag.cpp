#include "models/collectives/transfer_dag.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

#include "sim/context.hpp"
#include "sim/hash.hpp"
#include "sim/interrupt/interrupt.hpp"
#include "sim/simulation.hpp"

namespace fathom::coll {

TransferIndex TransferDag::add(const Transfer& transfer, const std::vector<TransferIndex>& after) {
  const auto index = static_cast<TransferIndex>(transfers_.size());
  // Building a DAG of millions of transfers takes a while: a signal stops it here too.
  if ((index & 4095U) == 0) sim::poll_interrupt();
  const auto what = [index] { return "TransferDag::add: transfer " + std::to_string(index); };
  if (!(transfer.bytes >= 0) || !std::isfinite(transfer.bytes)) {
    throw std::invalid_argument(what() + " has " + std::to_string(transfer.bytes) +
                                " bytes; bytes must be finite and non-negative");
  }
  if (transfer.alpha_ns < 0) {
    throw std::invalid_argument(what() + " has a negative alpha of " + std::to_string(transfer.alpha_ns) + " ns");
  }
  for (TransferIndex p : after) {
    if (p >= index) {
      throw std::invalid_argument(what() + " waits on transfer " + std::to_string(p) +
                                  "; predecessors must be earlier transfers");
    }
  }
  if (transfer.after_sent) {
    if (transfer.pipelined || after.empty()) {
      throw std::invalid_argument(what() + " follows a sent message but is " +
                                  (after.empty() ? "after no transfer" : "a pipelined slice"));
    }
    const Transfer& previous = transfers_[after.front()];
    if (previous.src != transfer.src || previous.dst != transfer.dst || previous.connection != transfer.connection) {
      throw std::invalid_argument(what() + " follows transfer " + std::to_string(after.front()) +
                                  " as a sent message, which is on another connection");
    }
  }
  transfers_.push_back(transfer);
  after_.insert(after_.end(), after.begin(), after.end());
  after_begin_.push_back(after_.size());
  return index;
}

TransferIndex TransferDag::append(const TransferDag& other) {
  const auto offset = static_cast<TransferIndex>(transfers_.size());
  std::vector<TransferIndex> after;
  for (TransferIndex i = 0; i < other.size(); ++i) {
    after.assign(other.after(i).begin(), other.after(i).end());
    for (TransferIndex& p : after) p += offset;
    add(other.transfers_[i], after);
  }
  return offset;
}

double TransferDag::total_bytes() const {
  double sum = 0;
  for (const auto& t : transfers_) sum += t.bytes;
  return sum;
}

std::uint64_t connection_hash(std::uint64_t seed, const Transfer& transfer) {
  const std::uint64_t pair = (static_cast<std::uint64_t>(transfer.src) << 32) | transfer.dst;
  return net::flow_hash(seed, sim::hash_combine(pair, transfer.connection));
}

std::vector<net::RoutedFlow> route_dag(const topo::Topology& topology, topo::Router& router, const TransferDag& dag,
                                       std::uint64_t seed) {
  std::vector<net::RoutedFlow> routed(dag.size());
  for (std::size_t i = 0; i < dag.size(); ++i) {
    const Transfer& t = dag[static_cast<TransferIndex>(i)];
    const auto& route = router.route(t.src, t.dst, connection_hash(seed, t));
    routed[i].route.assign(route.begin(), route.end());
    std::int64_t latency_ns = 0;
    for (net::LinkId l : route) latency_ns += topology.link(l).latency_ns;
    routed[i].latency = sim::SimTime::from_ns(latency_ns);
  }
  return routed;
}

namespace {
// Whether a route leaves its node: only there do NCCL's connections and their queue pairs apply.
bool crosses_fabric(const topo::Topology& topology, const std::vector<net::LinkId>& route) {
  for (net::LinkId l : route) {
    if (topo::is_fabric(topology.link(l).cls)) return true;
  }
  return false;
}
}  // namespace

namespace {
void check_flows_per_connection(int flows_per_connection) {
  if (flows_per_connection < 1) {
    throw std::invalid_argument("route_dag_flows: flows_per_connection must be at least 1, got " +
                                std::to_string(flows_per_connection));
  }
}

bool splits(const topo::Topology& topology, int flows_per_connection) {
  return topology.routing == topo::Routing::kEcmpHash && flows_per_connection > 1;
}

// Transfer t's flows into `out` (its vectors reused): one, or with `split` and a route
// across the fabric flows_per_connection of them. Returns the longest of their route latencies.
sim::SimTime route_transfer(const topo::Topology& topology, topo::Router& router, const Transfer& t, std::uint64_t seed,
                            bool split, int flows_per_connection, std::vector<net::RoutedFlow>& out) {
  const std::uint64_t hash = connection_hash(seed, t);
  out.resize(1);
  net::route_connection_into(topology, router, t.src, t.dst, hash, out[0]);
  sim::SimTime latency = out[0].latency;
  if (split && crosses_fabric(topology, out[0].route)) {
    out.resize(static_cast<std::size_t>(flows_per_connection));
    for (int j = 1; j < flows_per_connection; ++j) {
      auto& flow = out[static_cast<std::size_t>(j)];
      net::route_connection_into(topology, router, t.src, t.dst, net::subflow_hash(hash, static_cast<std::uint32_t>(j)),
                                 flow);
      latency = std::max(latency, flow.latency);
    }
  }
  return latency;
}
}  // namespace

DagFlows route_dag_flows(const topo::Topology& topology, topo::Router& router, const TransferDag& dag,
                         std::uint64_t seed, int flows_per_connection) {
  check_flows_per_connection(flows_per_connection);
  const bool split = splits(topology, flows_per_connection);
  DagFlows out;
  out.flows.reserve(dag.size());
  out.begin.reserve(dag.size() + 1);
  out.latency.reserve(dag.size());
  std::vector<net::RoutedFlow> flows;
  for (std::size_t i = 0; i < dag.size(); ++i) {
    out.begin.push_back(static_cast<std::uint32_t>(out.flows.size()));
    out.latency.push_back(
        route_transfer(topology, router, dag[static_cast<TransferIndex>(i)], seed, split, flows_per_connection, flows));
    for (auto& f : flows) out.flows.push_back(std::move(f));
  }
  out.begin.push_back(static_cast<std::uint32_t>(out.flows.size()));
  return out;
}

DagRunner::DagRunner(const topo::Topology& topology, topo::Router& router, const TransferDag& dag, std::uint64_t seed,
                     int flows_per_connection, net::FabricLp& fabric, DagRecord record)
    : dag_(dag),
      timings_(record == DagRecord::kEveryTransfer ? dag.size() : 0),
      record_each_(record == DagRecord::kEveryTransfer),
      unfinished_(dag.size()) {
  check_flows_per_connection(flows_per_connection);
  const std::size_t n = dag.size();
  open_connections(topology, router, seed, flows_per_connection, fabric);
  user_ = fabric.add_user(*this);
  succ_begin_.assign(n + 1, 0);
  waiting_on_.assign(n, 0);
  ready_.assign(n, sim::SimTime::zero());
  for (std::size_t i = 0; i < n; ++i) {
    const auto after = dag.after(static_cast<TransferIndex>(i));
    waiting_on_[i] = static_cast<std::uint32_t>(after.size());
    for (TransferIndex p : after) ++succ_begin_[p + 1];
  }
  for (std::size_t i = 0; i < n; ++i) succ_begin_[i + 1] += succ_begin_[i];
  succ_.resize(succ_begin_[n]);
  std::vector<std::uint32_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    for (TransferIndex p : dag.after(static_cast<TransferIndex>(i))) succ_[fill[p]++] = static_cast<TransferIndex>(i);
  }
}

void DagRunner::on_start(net::FabricLp& fabric, sim::Context& ctx) {
  for (std::size_t i = 0; i < dag_.size(); ++i) {
    if (waiting_on_[i] == 0) release(fabric, static_cast<TransferIndex>(i), ctx);
  }
}

void DagRunner::open_connections(const topo::Topology& topology, topo::Router& router, std::uint64_t seed,
                                 int flows_per_connection, net::FabricLp& fabric) {
  // Each distinct connection (src, dst, connection) once, numbered in order of first use.
  struct Key {
    std::uint64_t pair;
    std::uint32_t connection;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return sim::hash_combine(k.pair, k.connection); }
  };
  std::unordered_map<Key, std::uint32_t, KeyHash> index;
  std::vector<TransferIndex> first_use;
  connection_of_.resize(dag_.size());
  for (std::size_t i = 0; i < dag_.size(); ++i) {
    const Transfer& t = dag_.transfers()[i];
    const Key key{(static_cast<std::uint64_t>(t.src) << 32) | t.dst, t.connection};
    const auto [it, fresh] = index.try_emplace(key, static_cast<std::uint32_t>(first_use.size()));
    if (fresh) first_use.push_back(static_cast<TransferIndex>(i));
    connection_of_[i] = it->second;
  }
  index = {};
  // Routed and opened destination by destination, so that the router builds each destination's
  // distance table once, however many tables its budget holds. One Connection is reused: a tree
  // on 16K GPUs opens half a million, and the fabric keeps them without a heap block each.
  std::vector<std::uint32_t> order(first_use.size());
  for (std::uint32_t c = 0; c < order.size(); ++c) order[c] = c;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const Transfer& x = dag_[first_use[a]];
    const Transfer& y = dag_[first_use[b]];
    return std::tie(x.dst, x.src, x.connection) < std::tie(y.dst, y.src, y.connection);
  });
  const bool split = splits(topology, flows_per_connection);
  std::vector<net::ConnectionId> opened(first_use.size());
  net::Connection scratch;
  for (std::uint32_t c : order) {
    scratch.latency =
        route_transfer(topology, router, dag_[first_use[c]], seed, split, flows_per_connection, scratch.flows);
    opened[c] = fabric.open(scratch);
  }
  for (auto& c : connection_of_) c = opened[c];
}

void DagRunner::release(net::FabricLp& fabric, TransferIndex i, sim::Context& ctx) {
  const Transfer& t = dag_.transfers()[i];
  sim::SimTime activated;
  if (t.after_sent) {
    // Its bytes start once its alpha and latency have run from when it was ready, which may be
    // before now; the fabric is told the rest of the wait, its latency included (streamed).
    const sim::SimTime start =
        std::max(ctx.now(), ready_[i] + sim::SimTime::from_ns(t.alpha_ns) + fabric.latency(connection_of_[i]));
    activated = fabric.send(ctx, user_, connection_of_[i], t.bytes, start - ctx.now(), true, i);
  } else {
    activated = fabric.send(ctx, user_, connection_of_[i], t.bytes, sim::SimTime::from_ns(t.alpha_ns), t.pipelined, i);
  }
  if (record_each_) timings_[i] = {ctx.now(), activated, sim::SimTime::zero()};
}

void DagRunner::on_delivered(net::FabricLp& fabric, std::uint64_t tag, sim::Context& ctx) {
  const auto i = static_cast<TransferIndex>(tag);
  if (record_each_) timings_[i].finish = ctx.now();
  makespan_ = std::max(makespan_, ctx.now());
  --unfinished_;
  for (std::uint32_t k = succ_begin_[i]; k < succ_begin_[i + 1]; ++k) {
    const TransferIndex s = succ_[k];
    // Sent, not arrived: what an after_sent successor waits for from the message before it.
    const bool sent = dag_[s].after_sent && dag_.after(s).front() == i;
    ready_[s] = std::max(ready_[s], sent ? ctx.now() - fabric.latency(connection_of_[i]) : ctx.now());
    if (--waiting_on_[s] == 0) release(fabric, s, ctx);
  }
}

DagResult run_dag(const topo::Topology& topology, topo::Router& router, const TransferDag& dag, std::uint64_t seed,
                  int flows_per_connection, DagRecord record) {
  sim::Simulation simulation(seed);
  auto fabric = std::make_unique<net::FabricLp>(topology);
  DagRunner runner(topology, router, dag, seed, flows_per_connection, *fabric, record);
  simulation.add(std::move(fabric));
  const sim::RunResult run = simulation.run({});
  if (runner.unfinished() != 0) {
    throw std::logic_error("run_dag: " + std::to_string(runner.unfinished()) + " transfers never finished");
  }
  DagResult result;
  result.transfers = runner.timings();
  result.makespan = runner.makespan();
  result.fingerprint = run.fingerprint;
  result.events = run.committed;
  return result;
}

}  // namespace fathom::coll
