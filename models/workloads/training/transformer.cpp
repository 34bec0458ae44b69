#include "models/workloads/training/transformer.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace fathom::train {

namespace {

// A GeLU MLP marks a GPT layer: LayerNorm with bias and biased linear layers (the header).
bool gpt_style(const TransformerSpec& s) { return s.mlp == MlpKind::kGelu; }

// Parameters of one norm over h features: weight and bias (LayerNorm) or weight (RMSNorm).
double norm_parameters(const TransformerSpec& s) { return (gpt_style(s) ? 2.0 : 1.0) * s.hidden; }

std::optional<SpecViolation> positive(const char* field, int value) {
  if (value > 0) return std::nullopt;
  return SpecViolation{field, "a positive integer", std::to_string(value)};
}

}  // namespace

std::optional<SpecViolation> first_violation(const TransformerSpec& s) {
  const std::pair<const char*, int> sizes[] = {
      {"layers", s.layers},     {"hidden", s.hidden}, {"ffn_hidden", s.ffn_hidden},     {"heads", s.heads},
      {"kv_heads", s.kv_heads}, {"vocab", s.vocab},   {"max_sequence", s.max_sequence}, {"experts", s.experts},
      {"top_k", s.top_k}};
  for (const auto& [field, value] : sizes) {
    if (auto v = positive(field, value)) return v;
  }
  if (s.hidden % s.heads != 0) {
    return SpecViolation{"heads", "a divisor of hidden (" + std::to_string(s.hidden) + ")", std::to_string(s.heads)};
  }
  if (s.heads % s.kv_heads != 0) {
    return SpecViolation{"kv_heads", "a divisor of heads (" + std::to_string(s.heads) + ")",
                         std::to_string(s.kv_heads)};
  }
  if (s.top_k > s.experts) {
    return SpecViolation{"top_k", "at most experts (" + std::to_string(s.experts) + ")", std::to_string(s.top_k)};
  }
  if (s.moe_every < 1 || s.moe_every > s.layers) {
    return SpecViolation{"moe_every", "from 1 to layers (" + std::to_string(s.layers) + ")",
                         std::to_string(s.moe_every)};
  }
  if (s.dense_ffn_hidden < 0) return SpecViolation{"dense_ffn_hidden", "0 or a positive integer", "negative"};
  if (s.shared_experts < 0) return SpecViolation{"shared_experts", "0 or a positive integer", "negative"};
  if (s.experts == 1) {
    // A dense model's layers are all alike: the keys of layers of two kinds do not apply.
    if (s.moe_every > 1)
      return SpecViolation{"moe_every", "1 for a dense model (experts 1)", std::to_string(s.moe_every)};
    if (s.dense_ffn_hidden > 0) {
      return SpecViolation{"dense_ffn_hidden", "0 for a dense model (experts 1: its MLP is ffn_hidden wide)",
                           std::to_string(s.dense_ffn_hidden)};
    }
    if (s.shared_experts > 0) {
      return SpecViolation{"shared_experts", "0 for a dense model (experts 1)", std::to_string(s.shared_experts)};
    }
  }
  return std::nullopt;
}

void check(const TransformerSpec& s) {
  if (auto v = first_violation(s)) {
    throw sim::SpecError(*v);
  }
}

int moe_layer_count(const TransformerSpec& s) { return s.experts > 1 ? s.layers / s.moe_every : 0; }

int dense_layer_count(const TransformerSpec& s) { return s.layers - moe_layer_count(s); }

int dense_ffn(const TransformerSpec& s) { return s.dense_ffn_hidden > 0 ? s.dense_ffn_hidden : s.ffn_hidden; }

bool has_mixed_layers(const TransformerSpec& s) { return (s.experts > 1 && s.moe_every > 1) || s.shared_experts > 0; }

int attention_head_dim(const TransformerSpec& s) { return s.hidden / s.heads; }

int kv_dim(const TransformerSpec& s) { return s.kv_heads * attention_head_dim(s); }

double embedding_parameter_count(const TransformerSpec& s) {
  const double h = s.hidden;
  double p = static_cast<double>(s.vocab) * h;
  if (!s.tied_embeddings) p += static_cast<double>(s.vocab) * h;
  if (s.position == PositionKind::kLearned) p += static_cast<double>(s.max_sequence) * h;
  return p;
}

double attention_parameter_count(const TransformerSpec& s) {
  const double h = s.hidden;
  const double kv = kv_dim(s);
  double p = 2.0 * h * h + 2.0 * h * kv;      // Q and O; K and V
  if (gpt_style(s)) p += 2.0 * h + 2.0 * kv;  // biases of Q, O; K, V
  return p;
}

namespace {

// An MLP `f` wide.
double mlp_parameters(const TransformerSpec& s, double f) {
  const double h = s.hidden;
  if (gpt_style(s)) return 2.0 * h * f + f + h;  // fc1 and fc2 with their biases
  return 3.0 * h * f;                            // gate, up and down
}

}  // namespace

double expert_parameter_count(const TransformerSpec& s) { return mlp_parameters(s, s.ffn_hidden); }

double router_parameter_count(const TransformerSpec& s) {
  return s.experts > 1 ? static_cast<double>(s.hidden) * s.experts : 0.0;
}

double layer_norm_parameter_count(const TransformerSpec& s) { return 2.0 * norm_parameters(s); }

double final_norm_parameter_count(const TransformerSpec& s) { return norm_parameters(s); }

namespace {

// A MoE layer with `experts_counted` routed MLPs (router, routed and shared experts) and a dense
// one (one MLP of dense_ffn), each with attention and norms.
double moe_layer_with(const TransformerSpec& s, int experts_counted) {
  return attention_parameter_count(s) + layer_norm_parameter_count(s) + router_parameter_count(s) +
         (experts_counted + s.shared_experts) * expert_parameter_count(s);
}
double dense_layer(const TransformerSpec& s) {
  return attention_parameter_count(s) + layer_norm_parameter_count(s) +
         (s.experts > 1 ? mlp_parameters(s, dense_ffn(s)) : expert_parameter_count(s));
}

// Every layer, with `experts_counted` routed MLPs per MoE layer.
double layers_with(const TransformerSpec& s, int experts_counted) {
  return moe_layer_count(s) * moe_layer_with(s, experts_counted) + dense_layer_count(s) * dense_layer(s);
}

// Every parameter, with `experts_counted` routed MLPs per MoE layer.
double model_with(const TransformerSpec& s, int experts_counted) {
  return embedding_parameter_count(s) + layers_with(s, experts_counted) + final_norm_parameter_count(s);
}

}  // namespace

double layer_parameter_count(const TransformerSpec& s) {
  if (!has_mixed_layers(s)) return s.experts > 1 ? moe_layer_with(s, s.experts) : dense_layer(s);
  return layers_with(s, s.experts) / s.layers;
}

double parameter_count(const TransformerSpec& s) { return model_with(s, s.experts); }

double active_parameter_count(const TransformerSpec& s) { return model_with(s, s.top_k); }

}  // namespace fathom::train
