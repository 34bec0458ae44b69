// Many clients moving bytes through one shared tier at once (a checkpoint written by every
// node, a restore read back): the flow model's max-min sharing on a star, solved exactly.
// Each client's flow crosses its own link (its cap: the node's NICs, or its own drive) and the
// tier's aggregate bandwidth, shared by every flow still moving. Progressive filling: while
// the flows' caps sum past the tier, every flow gets min(cap, a level that fills the tier);
// when a flow finishes, the others' shares are recomputed; the transfer ends when the last
// flow does.
#pragma once

#include <cstdint>
#include <vector>

namespace fathom::storage {

// `count` clients alike: each moves `bytes` over a link of `cap_bytes_per_s`.
struct ClientGroup {
  std::int64_t count = 0;
  double bytes = 0;
  double cap_bytes_per_s = 0;
};

struct SharedTransfer {
  double seconds = 0;                 // until the last flow ends
  std::vector<double> group_seconds;  // until each group's flows end, in the groups' order
};

// `shared_bytes_per_s`: the tier's aggregate rate; infinity for clients that share nothing (a
// node's own drive: each client's cap is then its drive). std::invalid_argument on a
// non-positive rate or cap, or negative bytes.
SharedTransfer shared_transfer(const std::vector<ClientGroup>& groups, double shared_bytes_per_s);

}  // namespace fathom::storage
