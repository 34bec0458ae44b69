// TransformerSpec: a decoder-only transformer as the training model sees it: the shapes that
// set every operator's FLOPs and bytes. The model zoo (scenarios/models/) fills it for named
// models (gpt3-175b, llama3-70b, mixtral-8x7b, ...); a scenario may describe any other.
//
// Parameter-count convention (parameter_count below; docs/models.md shows it per entry). The
// MLP kind selects the layer's whole style, as the model families it names do:
// - GeLU: a GPT layer (GPT-2/3, Megatron's GPT). Two LayerNorms per layer with weight and bias
//   (2h each), a final LayerNorm (2h), and a bias on every linear layer: Q, K, V (h + 2 kv_dim),
//   attention output (h), MLP fc1 (ffn) and fc2 (h), per expert for the MLP ones.
// - SwiGLU: a Llama layer (Llama, Mixtral). Two RMSNorms per layer with a weight only (h each),
//   a final RMSNorm (h), and no biases.
// With h = hidden, kv_dim = kv_heads * head_dim, a layer holds attention weights Q and O
// (h*h each) and K and V (h*kv_dim each); an MLP of 2*h*ffn (GeLU) or 3*h*ffn (SwiGLU) per
// expert, times `experts`; and, with experts > 1, a router of h*experts without bias. The
// model adds the input embedding (vocab*h), the output projection (vocab*h, no bias) unless
// tied, and a learned position table (max_sequence*h) with learned positions; rotary ones
// have none. For a dense GPT this is P = 12*l*h^2 + 13*l*h + (V + s)*h + 2h, Megatron's count
// (Narayanan et al. 2021) plus the final LayerNorm.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/errors.hpp"

namespace fathom::train {

enum class MlpKind {
  kGelu,    // two matrices h -> ffn -> h (GPT-2/3, Megatron's GPT)
  kSwiGlu,  // three matrices: gate and up h -> ffn, down ffn -> h (Llama, Mixtral)
};

enum class PositionKind {
  kLearned,  // a learned position-embedding table of max_sequence x hidden (GPT-3)
  kRotary,   // RoPE: no parameters
};

struct TransformerSpec {
  std::string name;    // "llama3-70b"
  std::string source;  // the paper or model card the shapes come from
  int layers = 0;
  int hidden = 0;      // model width h
  int ffn_hidden = 0;  // MLP inner width (per expert for MoE)
  int heads = 0;       // query heads; head dim = hidden / heads
  int kv_heads = 0;    // key/value heads (== heads without GQA)
  int vocab = 0;
  int max_sequence = 0;  // trained context length (sizes learned position tables)
  MlpKind mlp = MlpKind::kGelu;
  PositionKind position = PositionKind::kLearned;
  bool tied_embeddings = false;  // output projection shares the input embedding
  int experts = 1;               // MoE experts per layer (1: dense)
  int top_k = 1;                 // experts each token is routed to
  // Layers of two kinds (Llama 4 Maverick): with experts > 1, every `moe_every`-th layer is a MoE
  // layer and the others are dense with an MLP `dense_ffn_hidden` wide (0: ffn_hidden); a MoE
  // layer's tokens also pass through `shared_experts` experts beside their top_k routed ones.
  int moe_every = 1;
  int dense_ffn_hidden = 0;
  int shared_experts = 0;
};

// A rule of check() that a spec breaks (sim::SpecViolation): the field as the model catalog's
// key is spelled ("heads"), what the rule expects ("a divisor of hidden (8192)") and the value
// ("60").
using SpecViolation = sim::SpecViolation;

// The first rule `spec` breaks, in this order, or nullopt: layers, hidden, ffn_hidden, heads,
// kv_heads, vocab, max_sequence, experts and top_k positive; heads divides hidden; kv_heads
// divides heads; top_k at most experts. Names and sources are not checked.
std::optional<SpecViolation> first_violation(const TransformerSpec& spec);

// Throws sim::SpecError for the first violation; the functions below assume a spec that passes.
void check(const TransformerSpec& spec);

// Its MoE layers (layers / moe_every when experts > 1, else 0) and its dense ones.
int moe_layer_count(const TransformerSpec& spec);
int dense_layer_count(const TransformerSpec& spec);
// A dense layer's MLP width: dense_ffn_hidden, or ffn_hidden when 0.
int dense_ffn(const TransformerSpec& spec);
// Whether its layers differ (a MoE layer every moe_every > 1, or shared experts): the training
// step models one kind of layer, and refuses such a model (serving takes it).
bool has_mixed_layers(const TransformerSpec& spec);

// hidden / heads.
int attention_head_dim(const TransformerSpec& spec);
// kv_heads * head dim: the width of K and of V.
int kv_dim(const TransformerSpec& spec);

// The input embedding, the output projection unless tied, and a learned position table.
double embedding_parameter_count(const TransformerSpec& spec);
// One layer's attention: Q, K, V and output weights, plus their biases for a GeLU (GPT) layer.
double attention_parameter_count(const TransformerSpec& spec);
// One expert's MLP in one layer (the whole MLP when dense), with biases for a GeLU layer.
double expert_parameter_count(const TransformerSpec& spec);
// One layer's router (h * experts); 0 when dense.
double router_parameter_count(const TransformerSpec& spec);
// One layer's norms (two per layer), and the final norm after the last layer.
double layer_norm_parameter_count(const TransformerSpec& spec);
double final_norm_parameter_count(const TransformerSpec& spec);
// One whole layer: attention, norms, router and all `experts` MLPs; the mean over the layers when
// they differ (their sum over `layers`), so that layers x it is every layer's parameters.
double layer_parameter_count(const TransformerSpec& spec);

// Every parameter of the model, by the convention above.
double parameter_count(const TransformerSpec& spec);
// The parameters one token passes through: as parameter_count with top_k (and the shared)
// experts per MoE layer instead of all (the router counts in full). Equals parameter_count for a
// dense model.
double active_parameter_count(const TransformerSpec& spec);

}  // namespace fathom::train
