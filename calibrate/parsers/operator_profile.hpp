// Measured per-operator GPU times of one model's layer shapes, as Vidur publishes its profiles
// (data/calibration-data/vidur-operator-profiles/compute/*/*.mlp.csv): one row per (token count,
// tensor-parallel degree), each operator's min, max, mean, median and standard deviation in
// milliseconds, then the model's shape. The operators are those of a Llama layer's forward pass
// per tensor-parallel shard: the QKV, output, gate-and-up and down GEMMs, the two RMSNorms, the
// rotary embedding, the SiLU-and-multiply activation and the residual add (and the embedding).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::calib {

// The operators fathom reads, in the files' own names.
enum class ProfiledOp {
  kInputNorm,     // input_layernorm
  kQkv,           // attn_pre_proj
  kRotary,        // attn_rope
  kAttentionOut,  // attn_post_proj
  kPostNorm,      // post_attention_layernorm
  kMlpUp,         // mlp_up_proj (gate and up together when gated)
  kActivation,    // mlp_act
  kMlpDown,       // mlp_down_proj
  kResidual,      // add
};
inline constexpr std::size_t kProfiledOps = 9;
std::string_view profile_column(ProfiledOp op);  // "input_layernorm", "attn_pre_proj", ...
bool is_gemm(ProfiledOp op);

// The layer's shape, as the file's last columns give it.
struct ProfiledModel {
  std::int64_t heads = 0, kv_heads = 0, hidden = 0, ffn_hidden = 0, vocab = 0;
  bool gated = false;
};

struct ProfileRow {
  std::int64_t tokens = 0;
  int tp = 0;
  std::array<double, kProfiledOps> median_s{};  // per operator (index: ProfiledOp), seconds
  int line = 0;
};

struct OperatorProfile {
  std::string file;
  ProfiledModel model;
  std::vector<ProfileRow> rows;
};

// The header's first cell: what load_measurement() recognises the format by.
extern const std::string kOperatorProfileFirstColumn;  // "time_stats.emb.min"

// Columns are found by name (other operators' columns are allowed and ignored); every row must
// give the same model shape. A ParseError naming the file, line and column for a missing column,
// a value that is not a number (a time must be positive, a count at least 1) or a row of another
// shape.
OperatorProfile parse_operator_profile(const std::filesystem::path& file);
OperatorProfile parse_operator_profile_text(std::string_view text, const std::string& file);

}  // namespace fathom::calib
