#include "models/collectives/collective_params.hpp"

namespace fathom::coll {

std::string_view to_string(Protocol protocol) {
  switch (protocol) {
    case Protocol::kSimple:
      return "Simple";
    case Protocol::kLL128:
      return "LL128";
    case Protocol::kLL:
      return "LL";
  }
  return "?";
}

std::string_view to_string(Tuner tuner) { return tuner == Tuner::kNccl ? "nccl" : "thresholds"; }

}  // namespace fathom::coll
