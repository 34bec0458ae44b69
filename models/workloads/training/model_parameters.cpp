#include "models/workloads/training/model_parameters.hpp"

namespace fathom::train {

namespace {

using params::Quantity;
using P = params::Parameter<TransformerSpec>;
constexpr std::string_view kCard = "each zoo entry's paper or model card (docs/models.md)";

}  // namespace

const std::vector<P>& model_parameters() {
  static const std::vector<P> declared = {
      {"layers", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(TransformerSpec, layers), "transformer layers", kCard},
      {"hidden", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(TransformerSpec, hidden), "model width h", kCard},
      {"ffn_hidden", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(TransformerSpec, ffn_hidden),
       "MLP inner width (per expert for MoE)", kCard},
      {"heads", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(TransformerSpec, heads),
       "query heads (divides hidden; head dim = hidden / heads)", kCard},
      {"kv_heads",
       Quantity::kPositiveInt,
       FATHOM_PARAMETER_MEMBER(TransformerSpec, kv_heads),
       "key/value heads (divides heads; fewer with GQA); without the key in a full entry, heads",
       kCard,
       {},
       {},
       false,
       std::numeric_limits<double>::infinity(),
       true},
      {"vocab", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(TransformerSpec, vocab), "vocabulary", kCard},
      {"max_sequence", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(TransformerSpec, max_sequence),
       "trained context length (sizes a learned position table)", kCard},
      {"mlp",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(TransformerSpec, mlp, MlpKind::kGelu, MlpKind::kSwiGlu),
       "MLP kind: GeLU (two GEMMs) or SwiGLU (three)",
       kCard,
       {},
       "gelu swiglu"},
      {"position",
       Quantity::kChoice,
       FATHOM_PARAMETER_EITHER(TransformerSpec, position, PositionKind::kLearned, PositionKind::kRotary),
       "position embedding: a learned table or rotary",
       kCard,
       {},
       "learned rotary"},
      {"tied_embeddings", Quantity::kBool, FATHOM_PARAMETER_MEMBER(TransformerSpec, tied_embeddings),
       "the output projection shares the input embedding", kCard},
      {"experts",
       Quantity::kPositiveInt,
       FATHOM_PARAMETER_MEMBER(TransformerSpec, experts),
       "MoE experts per layer (1: dense)",
       kCard,
       {},
       {},
       false,
       std::numeric_limits<double>::infinity(),
       true},
      {"top_k",
       Quantity::kPositiveInt,
       FATHOM_PARAMETER_MEMBER(TransformerSpec, top_k),
       "experts each token is routed to (at most experts)",
       kCard,
       {},
       {},
       false,
       std::numeric_limits<double>::infinity(),
       true},
  };
  return declared;
}

}  // namespace fathom::train
