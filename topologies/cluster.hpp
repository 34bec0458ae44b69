// build_cluster(): turns a ClusterSpec into a Topology: NVLink islands inside the nodes
// (or NVLink domains spanning several nodes), NICs on PCIe, and a scale-out fabric that is
// a 2-tier leaf-spine, a 3-tier leaf-spine-core fat-tree in pods, or a rail-optimised fabric
// of 2 or 3 tiers. docs/topology.md describes the result; this header states the rules.
//
// Naming (stable: it appears in every CSV fathom writes):
//   n<i>.gpu<j>, n<i>.nic<k>   GPU j and NIC k of node i
//   n<i>.nvswitch              the NVSwitch plane of node i (nvlink_domain_nodes == 1)
//   nvl<d>.nvswitch            the plane shared by nodes [d*D, (d+1)*D) when D = nvlink_domain_nodes > 1
//   leaf<l>                    tier-1 switches, numbered globally from 0
//   spine<s>                   tier-2 switches of a 2-tier fabric (fat-tree or rail-optimised)
//   spine<p>.<s>               spine s of pod p in a 3-tier fabric (fat-tree or rail-optimised)
//   core<c>                    tier-3 switches
//
// Wiring:
//   - GPU j <-> its node's (or domain's) NVSwitch plane, one NVLink cable per GPU.
//   - GPU <-> NIC over PCIe: with nics <= gpus, GPU j uses NIC j*nics/gpus; with more NICs
//     than GPUs, NIC k serves GPU k*gpus/nics (so every NIC serves exactly one GPU).
//   - fat-tree: NIC ports are numbered node-major (n0.nic0, n0.nic1, ..., n1.nic0, ...) and
//     fill the leaves in order, hosts_per_leaf ports each; the last leaf may be part full.
//   - rail-optimised: rail r = NIC r of every node. Leaves are numbered rail-major: rail r
//     owns leaves [r*Lr, (r+1)*Lr) with Lr = leaves per rail, and node i's NIC r sits on
//     leaf r*Lr + i/hosts_per_leaf. With 3 tiers the same inside each pod: pod p holds nodes
//     [p*Np, (p+1)*Np), Np = Lr * hosts_per_leaf with Lr = leaves_per_pod / rails, and node i's
//     NIC r sits on leaf p*leaves_per_pod + r*Lr + (i mod Np)/hosts_per_leaf; pods are joined by
//     cores as in the fat-tree.
//   - every leaf has links_per_leaf_spine parallel cables to every spine (of its pod).
//   - 3-tier: pod p = leaves [p*P, (p+1)*P) with P = leaves_per_pod, and spines spine<p>.*.
//     Spine s of every pod has links_per_spine_core cables to each of cores [s*c, (s+1)*c),
//     c = cores per spine = cores / spines-per-pod, so every core has that many cables per
//     pod (with one cable, the standard k-ary wiring).
//   - link speed of the NIC-leaf cable = min(node.nic_bytes_per_s, fabric.tier[0]) (a port
//     runs at the slower end's rate); higher tiers use fabric.tier[t].
//
// Derivation (a count given explicitly, > 0, always wins; radix R and oversubscription o):
//   hosts_per_leaf   = floor(R * o / (1 + o))               (ports; assumes uniform port speed)
//   leaf up ports    = R - hosts_per_leaf
//   leaves           = ceil(NIC ports / hosts_per_leaf)      (fat-tree; rail: per rail over nodes; 3-tier:
//                                                            rounded up to whole pods; 3-tier rail:
//                                                            ceil(nodes / Np) pods)
//   spines, 2-tier   = the fewest switches that hold the leaves' up ports U = R - hosts_per_leaf:
//                      the smallest divisor s of U, at least 2, with leaves * U / s <= R; then
//                      links_per_leaf_spine = U / s. Deployed fabrics fill their spines (NVIDIA's
//                      4-SU SuperPOD: 16 spines, 2 cables per pair); two survive a spine's failure.
//                      With links_per_leaf_spine given: U / links_per_leaf_spine (must divide).
//   spines, 3-tier   = U / links_per_leaf_spine per pod (1 cable unless given: the spines need
//                      as many ports up to the cores as down)
//   leaves_per_pod   = R / 2                                 (3-tier; rail: must be a multiple of the rails)
//   cores            = spines per pod * c, where each spine's U2 = R - leaves_per_pod *
//                      links_per_leaf_spine up ports go to c cores: the fewest, the smallest
//                      divisor c of U2 with pods * U2 / c <= R; links_per_spine_core = U2 / c.
//                      As many pods as R gives c = U2, one cable each (k-ary). With
//                      links_per_spine_core given: c = U2 / it (must divide); with cores given:
//                      c = cores / spines, 1 cable unless given.
// With a radix, every switch's port budget is checked (leaf down + up <= R, spine down
// (+ up) <= R, core: links_per_spine_core ports per pod <= R). Without one, counts must be explicit and no port
// budget is checked.
//
// Summary figures (TopologySummary):
//   switches_per_tier[0]  NVSwitch chips: node.nvswitches per NVLink domain, times the domains
//   cables_per_tier[t]    full-duplex cables whose upper end is at tier t (0: NVLink GPU cables;
//                         PCIe inside a node is not counted)
//   oversubscription[t]   worst switch of tier t: down capacity / up capacity; 1.0 for the top
//                         tier and for tier 0 (NVSwitch planes are non-blocking crossbars)
//   bisection_bytes_per_s one direction: min over tiers t >= 1 of half the capacity of the cables
//                         entering tier t from below. Assumes a symmetric Clos fabric in which a
//                         balanced cut can split the endpoints, leaves and pods evenly, and
//                         ECMP spreads traffic evenly; part-filled leaves make it an upper bound.
//                         Without a scale-out fabric: half the GPUs' NVLink capacity.
//   warnings              a NIC line rate that differs from fabric.tier[0] (kNicLinkMismatch,
//                         ratio NIC / link); a tier t >= 1 below the top whose worst switch is
//                         oversubscribed (kOversubscribed, ratio down / up), when traffic leaves
//                         that tier upwards: NICs under two leaves or more (tier 1), in two pods
//                         or more (tier 2)
#pragma once

#include "topologies/cluster_spec.hpp"
#include "topologies/topology.hpp"

namespace fathom::topo {

// The scale-out fabric's counts once every derivation rule has been applied.
struct FabricLayout {
  int tiers = 0;           // 0: no scale-out fabric (node.nics == 0)
  int nic_ports = 0;       // nodes * nics
  int hosts_per_leaf = 0;  // NIC ports down per leaf
  int leaves = 0;          // all of them (all rails, all pods)
  int spines = 0;          // 2-tier: in total; 3-tier: per pod
  int links_per_leaf_spine = 1;
  int rails = 0;                 // rail-optimised: NICs per node; 0 otherwise
  int leaves_per_rail = 0;       // rail-optimised only: in all (2-tier), per pod (3-tier)
  int pods = 0;                  // 3-tier only
  int leaves_per_pod = 0;        // 3-tier only
  int cores = 0;                 // 3-tier only
  int cores_per_spine = 0;       // 3-tier: cores each spine is cabled to
  int links_per_spine_core = 1;  // 3-tier: parallel cables between a spine and each of its cores
};

// Validates `spec` and derives the fabric's counts. Throws std::invalid_argument whose
// message starts with the offending field ("fabric.radix: ...", "node.nics: ...").
FabricLayout layout_fabric(const ClusterSpec& spec);

// The same system with `nodes` nodes: `spec`'s node, link speeds, tiers' kind, oversubscription
// and routing, with every switch count re-derived from a radix (the spec's, else
// kDefaultResizeRadix, NVIDIA Quantum-2's 64 ports) and a third tier when two cannot hold the
// NICs. For predicting how a system measured on a few nodes behaves on many (calibration).
// The count is rounded up to whole NVLink domains (an NVL72 tray of 4 GPUs comes with its 17
// siblings): a measurement on fewer nodes uses the first ones. Throws std::invalid_argument for
// nodes < 1.
inline constexpr int kDefaultResizeRadix = 64;
ClusterSpec resized_cluster(ClusterSpec spec, int nodes);

// Builds the whole cluster and fills Topology::summary. Throws like layout_fabric().
Topology build_cluster(const ClusterSpec& spec);

}  // namespace fathom::topo
