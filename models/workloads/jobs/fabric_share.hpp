// How training jobs running side by side share the fabric between their nodes.
//
// A data-parallel job spread over several nodes reduces its gradients in rings that cross the
// fabric rail by rail, as NCCL builds them: NIC i of each of the job's nodes sends to NIC i of
// the next node in rank order (the nodes in ascending order, the last sending to the first).
// Each such ring hop is one flow on the flow model (models/network/flow_network.hpp), routed as
// the topology's routing mode sends it (an ECMP hash of the seed and the two nodes and the
// rail, D-mod-K by destination, or spread over every shortest path with adaptive routing).
//
// ring_rates() puts every given job's flows on the fabric at once, shares the links max-min
// fairly, and returns each job's ring rate: its slowest flow's, as a ring moves in lock step.
// The caller compares it with the job's rate where its step was simulated to learn how much
// slower the job's gradient reduction runs beside its neighbours (ModelledStep, training_job.hpp).
// Assumed, and said in docs/jobs.md: the neighbours reduce at the same time (an upper bound on
// their interference when their steps are out of phase), and traffic other than the gradient
// rings (pipeline sends, expert all-to-alls across nodes) does not meet the neighbours'.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "models/network/flow_transfer.hpp"
#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace fathom::jobs {

class FabricShare {
 public:
  // `topology` must outlive this object.
  FabricShare(const topo::Topology& topology, std::uint64_t seed);

  // One rate per job (bytes/s per flow); a job on one node, or whose nodes have no NIC, sends
  // nothing over the fabric and gets +infinity. Each job's node list must be ascending and
  // without repeats; throws std::invalid_argument otherwise, or for a node the topology lacks.
  std::vector<double> ring_rates(std::span<const std::vector<std::int32_t>> job_nodes);

  // Flows the last ring_rates() call put on the fabric.
  std::size_t last_flows() const { return last_flows_; }

 private:
  // The flows of one ring hop, a's NICs to b's rail by rail, routed once and kept.
  const std::vector<net::RoutedFlow>& hop_flows(std::int32_t a, std::int32_t b);

  const topo::Topology& topology_;
  topo::Router router_;
  std::uint64_t seed_;
  std::vector<std::vector<topo::VertexId>> nics_;  // by node, in vertex order
  std::vector<std::int32_t> local_;                // by topology link: its index in the last solve, or -1
  std::unordered_map<std::uint64_t, std::vector<net::RoutedFlow>> hops_;  // by (a << 32 | b)
  std::size_t last_flows_ = 0;
};

}  // namespace fathom::jobs
