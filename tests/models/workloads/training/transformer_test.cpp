// TransformerSpec's parameter count, part by part on models small enough to count by hand,
// against Megatron's closed form for GPT layers; and check()'s rules, each naming its field.
#include "models/workloads/training/transformer.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

using fathom::train::active_parameter_count;
using fathom::train::MlpKind;
using fathom::train::parameter_count;
using fathom::train::PositionKind;
using fathom::train::TransformerSpec;

namespace {

// 2 GPT layers of width 8: LayerNorm with bias, biased linear layers, a learned position table.
TransformerSpec tiny_gpt() {
  TransformerSpec s;
  s.name = "tiny-gpt";
  s.layers = 2;
  s.hidden = 8;
  s.ffn_hidden = 32;
  s.heads = 2;
  s.kv_heads = 2;
  s.vocab = 10;
  s.max_sequence = 4;
  s.mlp = MlpKind::kGelu;
  s.position = PositionKind::kLearned;
  s.tied_embeddings = true;
  return s;
}

// 2 Llama layers of width 8 with grouped-query attention: 4 query heads of 2, 2 KV heads.
TransformerSpec tiny_llama() {
  TransformerSpec s;
  s.name = "tiny-llama";
  s.layers = 2;
  s.hidden = 8;
  s.ffn_hidden = 12;
  s.heads = 4;
  s.kv_heads = 2;
  s.vocab = 10;
  s.max_sequence = 4;
  s.mlp = MlpKind::kSwiGlu;
  s.position = PositionKind::kRotary;
  s.tied_embeddings = false;
  return s;
}

// Megatron's count of a GPT model (Narayanan et al. 2021, SC21):
// P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12lh)). It leaves out the final LayerNorm.
double megatron_formula(const TransformerSpec& s) {
  const double l = s.layers;
  const double h = s.hidden;
  return 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (s.vocab + s.max_sequence) / (12.0 * l * h));
}

// The message check() throws for `spec`, which must break a rule.
std::string violation(const TransformerSpec& spec) {
  try {
    fathom::train::check(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  FAIL("check() accepted a broken spec");
  return {};
}

}  // namespace

TEST_CASE("a GPT layer counts LayerNorm biases, linear biases and the position table") {
  const TransformerSpec s = tiny_gpt();
  fathom::train::check(s);
  CHECK(fathom::train::attention_head_dim(s) == 4);
  CHECK(fathom::train::kv_dim(s) == 8);
  CHECK(fathom::train::embedding_parameter_count(s) == 10 * 8 + 4 * 8);  // tied: no output layer
  CHECK(fathom::train::attention_parameter_count(s) == 4 * 8 * 8 + 4 * 8);
  CHECK(fathom::train::expert_parameter_count(s) == 2 * 8 * 32 + 32 + 8);
  CHECK(fathom::train::router_parameter_count(s) == 0);
  CHECK(fathom::train::layer_norm_parameter_count(s) == 2 * 2 * 8);
  CHECK(fathom::train::final_norm_parameter_count(s) == 2 * 8);
  CHECK(fathom::train::layer_parameter_count(s) == 288 + 552 + 32);
  CHECK(parameter_count(s) == 112 + 2 * 872 + 16);
  CHECK(active_parameter_count(s) == parameter_count(s));

  // Megatron's closed form, plus the final LayerNorm it leaves out.
  CHECK(parameter_count(s) == doctest::Approx(megatron_formula(s) + 2 * 8).epsilon(1e-12));

  TransformerSpec untied = s;
  untied.tied_embeddings = false;
  CHECK(parameter_count(untied) - parameter_count(s) == 10 * 8);
  TransformerSpec rotary = s;
  rotary.position = PositionKind::kRotary;
  CHECK(parameter_count(s) - parameter_count(rotary) == 4 * 8);
}

TEST_CASE("Megatron's closed form matches the convention at GPT-3 175B's shape") {
  TransformerSpec s = tiny_gpt();
  s.layers = 96;
  s.hidden = 12288;
  s.ffn_hidden = 4 * 12288;
  s.heads = 96;
  s.kv_heads = 96;
  s.vocab = 50257;
  s.max_sequence = 2048;
  CHECK(parameter_count(s) == doctest::Approx(megatron_formula(s) + 2 * 12288).epsilon(1e-12));
  CHECK(parameter_count(s) == doctest::Approx(175e9).epsilon(0.015));
}

TEST_CASE("a Llama layer counts RMSNorm weights, grouped K and V, and no biases") {
  const TransformerSpec s = tiny_llama();
  fathom::train::check(s);
  CHECK(fathom::train::attention_head_dim(s) == 2);
  CHECK(fathom::train::kv_dim(s) == 4);
  CHECK(fathom::train::embedding_parameter_count(s) == 2 * 10 * 8);  // untied, rotary
  CHECK(fathom::train::attention_parameter_count(s) == 2 * 8 * 8 + 2 * 8 * 4);
  CHECK(fathom::train::expert_parameter_count(s) == 3 * 8 * 12);
  CHECK(fathom::train::layer_norm_parameter_count(s) == 2 * 8);
  CHECK(fathom::train::final_norm_parameter_count(s) == 8);
  CHECK(parameter_count(s) == 160 + 2 * (192 + 288 + 16) + 8);
  CHECK(active_parameter_count(s) == parameter_count(s));

  // No learned table: the sequence length holds no parameters.
  TransformerSpec longer = s;
  longer.max_sequence = 1 << 20;
  CHECK(parameter_count(longer) == parameter_count(s));
}

TEST_CASE("a mixture of experts counts every expert in total and top_k of them as active") {
  TransformerSpec s = tiny_llama();
  s.experts = 4;
  s.top_k = 2;
  fathom::train::check(s);
  CHECK(fathom::train::router_parameter_count(s) == 8 * 4);
  const double shared = 192 + 16 + 32;  // attention, norms, router
  CHECK(fathom::train::layer_parameter_count(s) == shared + 4 * 288);
  CHECK(parameter_count(s) == 160 + 2 * (shared + 4 * 288) + 8);
  CHECK(active_parameter_count(s) == 160 + 2 * (shared + 2 * 288) + 8);

  // Routing every token to every expert makes every parameter active.
  s.top_k = 4;
  CHECK(active_parameter_count(s) == parameter_count(s));

  // A GeLU expert carries its fc1 and fc2 biases.
  TransformerSpec g = tiny_gpt();
  g.experts = 3;
  g.top_k = 1;
  CHECK(parameter_count(g) - active_parameter_count(g) == 2 * 2 * (2 * 8 * 32 + 32 + 8));
}

TEST_CASE("MoE layers every other layer, with a shared expert, and dense layers between them") {
  TransformerSpec s = tiny_llama();
  s.layers = 4;
  s.experts = 4;
  s.top_k = 1;
  s.moe_every = 2;
  s.dense_ffn_hidden = 24;
  s.shared_experts = 1;
  fathom::train::check(s);
  CHECK(fathom::train::has_mixed_layers(s));
  CHECK(fathom::train::moe_layer_count(s) == 2);
  CHECK(fathom::train::dense_layer_count(s) == 2);
  const double common = 192 + 16;                  // attention, norms
  const double moe = common + 32 + (4 + 1) * 288;  // router, four routed experts and the shared one
  const double dense = common + 3 * 8 * 24;        // one SwiGLU MLP 24 wide
  CHECK(parameter_count(s) == 160 + 2 * moe + 2 * dense + 8);
  CHECK(active_parameter_count(s) == 160 + 2 * (common + 32 + 2 * 288) + 2 * dense + 8);
  // layers x the mean layer is every layer.
  CHECK(fathom::train::layer_parameter_count(s) * s.layers == doctest::Approx(2 * moe + 2 * dense));

  // Llama 4 Maverick as the zoo holds it: Meta's "400B total", "17B active".
  TransformerSpec m;
  m.layers = 48;
  m.hidden = 5120;
  m.ffn_hidden = 8192;
  m.heads = 40;
  m.kv_heads = 8;
  m.vocab = 202048;
  m.max_sequence = 1 << 20;
  m.mlp = fathom::train::MlpKind::kSwiGlu;
  m.position = fathom::train::PositionKind::kRotary;
  m.experts = 128;
  m.moe_every = 2;
  m.dense_ffn_hidden = 16384;
  m.shared_experts = 1;
  CHECK(parameter_count(m) == doctest::Approx(400e9).epsilon(0.01));
  CHECK(active_parameter_count(m) == doctest::Approx(17e9).epsilon(0.02));

  // The rules: moe_every within the layers, and only with experts.
  TransformerSpec wide = s;
  wide.moe_every = 5;
  CHECK(violation(wide) == "moe_every: expected from 1 to layers (4), found 5");
  TransformerSpec dense_model = tiny_llama();
  dense_model.shared_experts = 1;
  CHECK(violation(dense_model).rfind("shared_experts: expected 0 for a dense model", 0) == 0);
  dense_model.shared_experts = 0;
  dense_model.dense_ffn_hidden = 64;
  CHECK(violation(dense_model).rfind("dense_ffn_hidden: expected 0 for a dense model", 0) == 0);
}

TEST_CASE("check() names the field of the first rule a spec breaks") {
  const TransformerSpec good = tiny_llama();
  CHECK_FALSE(fathom::train::first_violation(good).has_value());

  struct Case {
    int TransformerSpec::*field;
    const char* name;
  };
  const Case sizes[] = {{&TransformerSpec::layers, "layers"},
                        {&TransformerSpec::hidden, "hidden"},
                        {&TransformerSpec::ffn_hidden, "ffn_hidden"},
                        {&TransformerSpec::heads, "heads"},
                        {&TransformerSpec::kv_heads, "kv_heads"},
                        {&TransformerSpec::vocab, "vocab"},
                        {&TransformerSpec::max_sequence, "max_sequence"},
                        {&TransformerSpec::experts, "experts"},
                        {&TransformerSpec::top_k, "top_k"}};
  for (const auto& c : sizes) {
    CAPTURE(c.name);
    for (const int bad : {0, -3}) {
      TransformerSpec s = good;
      s.*c.field = bad;
      CHECK(violation(s) == std::string(c.name) + ": expected a positive integer, found " + std::to_string(bad));
      const auto v = fathom::train::first_violation(s);
      REQUIRE(v.has_value());
      CHECK(v->field == c.name);
    }
  }

  TransformerSpec s = good;
  s.heads = 3;
  CHECK(violation(s) == "heads: expected a divisor of hidden (8), found 3");
  s = good;
  s.kv_heads = 3;
  CHECK(violation(s) == "kv_heads: expected a divisor of heads (4), found 3");
  s = good;
  s.kv_heads = 8;  // more KV heads than query heads
  CHECK(violation(s) == "kv_heads: expected a divisor of heads (4), found 8");
  s = good;
  s.experts = 8;
  s.top_k = 9;
  CHECK(violation(s) == "top_k: expected at most experts (8), found 9");
  s = good;
  s.top_k = 2;  // dense: experts 1
  CHECK(violation(s) == "top_k: expected at most experts (1), found 2");
}
