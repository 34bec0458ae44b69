#include "models/network/fabric_parameters.hpp"

namespace fathom::net {

namespace {

using params::Quantity;
using topo::FabricKind;
using topo::FabricSpec;
using topo::Routing;
constexpr std::string_view kDesign = "the fabric's design: the scenario's choice";
constexpr std::string_view kDerived = "0: derived from the radix and the NICs (docs/topology.md)";
constexpr std::string_view kRouting = "Ethernet ECMP, the common default; InfiniBand fabrics use d-mod-k or adaptive";

}  // namespace

const std::vector<params::Parameter<FabricSpec>>& fabric_parameters() {
  static const std::vector<params::Parameter<FabricSpec>> declared = {
      {"kind",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(FabricSpec, kind, FabricKind::kFatTree, FabricKind::kRailOptimized),
       "NICs fill leaves in order, or NIC r of every node goes to rail r (with 3 tiers: to rail r's leaves in its pod; "
       "[topology.md](topology.md#the-scale-out-fabric))",
       kDesign,
       {},
       "fat-tree rail-optimised"},
      {"tiers", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(FabricSpec, tiers),
       "leaf-spine, or leaf-spine-core in pods (either kind)", kDesign},
      {"radix", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(FabricSpec, radix),
       "switch ports; derives the counts below that are not given", "0: the counts are given explicitly"},
      {"oversubscription",
       Quantity::kNumber,
       FATHOM_PARAMETER_MEMBER(FabricSpec, oversubscription),
       "tier-1 down:up capacity ratio (3 means 3:1)",
       kDesign,
       {},
       {},
       true},
      {"hosts_per_leaf", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(FabricSpec, hosts_per_leaf),
       "NIC ports down per leaf", kDerived},
      {"leaves", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(FabricSpec, leaves), "tier-1 switches", kDerived},
      {"spines", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(FabricSpec, spines),
       "tier-2 switches (per pod with 3 tiers)", kDerived},
      {"leaves_per_pod", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(FabricSpec, leaves_per_pod),
       "3 tiers only; rail-optimised: a multiple of `node.nics` (every rail has leaves in every pod)", kDerived},
      {"cores", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(FabricSpec, cores), "3 tiers only", kDerived},
      {"links_per_leaf_spine", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(FabricSpec, links_per_leaf_spine),
       "parallel cables between each leaf and each spine; 0 derives them: with 2 tiers and `spines` derived too, "
       "the fewest spines (at least 2) that take every leaf's up ports with equal cables to each, as deployed "
       "fabrics fill their spines ([topology.md](topology.md#fewest-switches)); otherwise 1",
       kDerived},
      {"links_per_spine_core", Quantity::kNonNegativeInt, FATHOM_PARAMETER_MEMBER(FabricSpec, links_per_spine_core),
       "3 tiers only: parallel cables between a spine and each of its cores; 0 derives them: with `cores` derived "
       "too, the fewest cores that take every spine's up ports ([topology.md](topology.md#fewest-switches)); "
       "otherwise 1",
       kDerived},
      {"routing",
       Quantity::kChoice,
       [](const FabricSpec& f) {
         return f.routing == Routing::kEcmpHash ? 0.0 : f.routing == Routing::kDestination ? 1.0 : 2.0;
       },
       [](FabricSpec& f, double v) {
         f.routing = v == 0 ? Routing::kEcmpHash : v == 1 ? Routing::kDestination : Routing::kAdaptive;
       },
       "how a switch picks among equal-cost next hops: `ecmp` by a hash of the flow (Ethernet ECMP; the hash derives "
       "from `seed`; a collective's transfer is `collectives.flows_per_connection` hashed flows), `d-mod-k` by the "
       "destination alone (InfiniBand's static fat-tree routing: every flow to one destination takes one path; at each "
       "tier a digit of the destination's host-port index picks the up-port, so on a non-blocking fat-tree a shift "
       "permutation meets no collision), `adaptive` per packet onto the least-loaded equal-cost port (InfiniBand "
       "adaptive routing, packet spraying), modelled as every flow split evenly over its equal-cost next hops at each "
       "hop ([topology.md](topology.md#routing-routinghpp), "
       "[network.md](network.md#routing-modes-and-flows-per-connection))",
       kRouting,
       {},
       "ecmp d-mod-k adaptive"},
  };
  return declared;
}

}  // namespace fathom::net
