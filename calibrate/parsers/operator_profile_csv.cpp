// Vidur's per-operator profile CSV (operator_profile.hpp).
#include <map>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/operator_profile.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {

namespace {

constexpr std::array<std::string_view, kProfiledOps> kColumns = {
    "input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj", "post_attention_layernorm", "mlp_up_proj",
    "mlp_act",         "mlp_down_proj", "add"};

// The index of the column named `name`, else a ParseError at the header line.
std::size_t column(const text::Csv& csv, const std::string& file, const std::string& name) {
  for (std::size_t i = 0; i < csv.header.size(); ++i) {
    if (csv.header[i] == name) return i;
  }
  throw ParseError(file, csv.header_line, name, "a column named " + quote(name) + " (Vidur's operator profile)",
                   "none");
}

// "True"/"False" (pandas' spelling), either case.
bool boolean(const text::Where& where, std::string_view token, const std::string& field) {
  const std::string t = text::lower(text::trim(token));
  if (t == "true") return true;
  if (t == "false") return false;
  where.fail(field, "True or False", quote(token));
}

}  // namespace

const std::string kOperatorProfileFirstColumn = "time_stats.emb.min";

std::string_view profile_column(ProfiledOp op) { return kColumns[static_cast<std::size_t>(op)]; }

bool is_gemm(ProfiledOp op) {
  return op == ProfiledOp::kQkv || op == ProfiledOp::kAttentionOut || op == ProfiledOp::kMlpUp ||
         op == ProfiledOp::kMlpDown;
}

OperatorProfile parse_operator_profile_text(std::string_view text, const std::string& file) {
  const text::Csv csv = text::read_csv(text, file);
  text::expect_rows(csv, file, "operator profile");
  std::array<std::size_t, kProfiledOps> median{};
  for (std::size_t i = 0; i < kProfiledOps; ++i) {
    median[i] = column(csv, file, "time_stats." + std::string(kColumns[i]) + ".median");
  }
  const std::size_t heads = column(csv, file, "n_head"), kv_heads = column(csv, file, "n_kv_head"),
                    hidden = column(csv, file, "n_embd"), ffn = column(csv, file, "n_expanded_embd"),
                    vocab = column(csv, file, "vocab_size"), gated = column(csv, file, "use_gated_mlp"),
                    tokens = column(csv, file, "num_tokens"), tp = column(csv, file, "num_tensor_parallel_workers");
  const std::string header = text::header_text(csv);
  OperatorProfile out;
  out.file = file;
  for (const text::CsvRow& row : csv.rows) {
    text::expect_cells(row, file, csv.header.size(), header);
    const text::Where where{file, row.line};
    const auto count = [&](std::size_t i) { return where.integer(row.cells[i], csv.header[i], 1); };
    ProfiledModel shape;
    shape.heads = count(heads);
    shape.kv_heads = count(kv_heads);
    shape.hidden = count(hidden);
    shape.ffn_hidden = count(ffn);
    shape.vocab = count(vocab);
    shape.gated = boolean(where, row.cells[gated], "use_gated_mlp");
    if (shape.hidden % shape.heads != 0 || shape.heads % shape.kv_heads != 0) {
      where.fail("n_embd", "a multiple of n_head, with n_head a multiple of n_kv_head",
                 std::to_string(shape.hidden) + " over " + std::to_string(shape.heads) + " heads and " +
                     std::to_string(shape.kv_heads) + " KV heads");
    }
    if (out.rows.empty()) {
      out.model = shape;
    } else if (shape.heads != out.model.heads || shape.kv_heads != out.model.kv_heads ||
               shape.hidden != out.model.hidden || shape.ffn_hidden != out.model.ffn_hidden ||
               shape.vocab != out.model.vocab || shape.gated != out.model.gated) {
      where.fail("n_head .. use_gated_mlp", "the model shape of the first row (one model per file)", "another shape");
    }
    ProfileRow r;
    r.line = row.line;
    r.tokens = count(tokens);
    const std::int64_t degree = count(tp);
    if (degree > 1024) where.fail(csv.header[tp], "a tensor-parallel degree of at most 1024", row.cells[tp]);
    r.tp = static_cast<int>(degree);
    for (std::size_t i = 0; i < kProfiledOps; ++i) {
      const double ms = where.number(row.cells[median[i]], csv.header[median[i]], 0);
      if (!(ms > 0)) where.fail(csv.header[median[i]], "a time > 0 (milliseconds)", quote(row.cells[median[i]]));
      r.median_s[i] = ms * 1e-3;
    }
    out.rows.push_back(r);
  }
  return out;
}

OperatorProfile parse_operator_profile(const std::filesystem::path& file) {
  const std::string content = text::read_file(file);
  return parse_operator_profile_text(content, file.string());
}

}  // namespace fathom::calib
