// The per-kernel compute model against measured kernels (Vidur's operator profiles,
// data/calibration-data/vidur-operator-profiles): the kernels a profile row becomes (hand
// counts), the memory-bound kernel's cost (closed form), the parser's errors, and the held-out
// test: fitted on one model's H100 profile (Llama-2-7B), the model predicts two others
// (Llama-2-70B, CodeLlama-34B) at every token count >= 256 and every TP degree; and the A100
// Llama-2-70B profile from the A100's own catalog figures, its error printed.
#include "calibrate/fit/kernel_fit.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "calibrate/errors.hpp"
#include "calibrate/measurement.hpp"
#include "calibrate/parsers/operator_profile.hpp"
#include "scenarios/accelerator_catalog.hpp"
#include "tests/calibrate/calibration_files.hpp"
#include "tests/support/fuzz_rng.hpp"
#include "tests/support/text_mutations.hpp"

using fathom::calib::AcceleratorFacts;
using fathom::calib::fit_kernels;
using fathom::calib::KernelFit;
using fathom::calib::OperatorProfile;
using fathom::calib::parse_operator_profile;
using fathom::calib::parse_operator_profile_text;
using fathom::calib::ParseError;
using fathom::calib::predict_profile;
using fathom::calib::profile_errors;
using fathom::calib::ProfiledModel;
using fathom::calib::ProfiledOp;
using fathom::calib::test::data_path;

namespace {

const fathom::hw::AcceleratorSpec& entry(const std::string& name) {
  const fathom::hw::AcceleratorSpec* a = fathom::scenario::find_catalog_accelerator(name);
  REQUIRE(a != nullptr);
  return *a;
}

AcceleratorFacts facts_of(const fathom::hw::AcceleratorSpec& a) {
  AcceleratorFacts f;
  f.sms = a.compute_units;
  f.hbm_bytes_per_s = a.hbm_bytes_per_s;
  f.peak_by_dtype["bf16"] = a.peak(fathom::hw::Precision::kBf16);
  return f;
}

OperatorProfile profile(const std::string& name) {
  return parse_operator_profile(data_path("vidur-operator-profiles/compute/" + name + ".mlp.csv"));
}

const KernelFit& h100_fit() {
  static const KernelFit fit = fit_kernels(profile("h100/Llama-2-7b-hf"), facts_of(entry("h100-sxm")));
  return fit;
}

// Prints the errors of `p` predicted on `a`, per TP degree and over all, and returns them over all.
fathom::calib::ProfileErrors report(const std::string& what, const OperatorProfile& p,
                                    const fathom::hw::AcceleratorSpec& a) {
  const auto predictions = predict_profile(p, a);
  for (int tp : {1, 2, 4, 8}) {
    std::vector<fathom::calib::OperatorPrediction> at;
    for (const auto& x : predictions) {
      if (x.tp == tp) at.push_back(x);
    }
    const auto e = profile_errors(at, 256);
    std::printf(
        "%s TP %d: GEMM median %+.1f%%, memory-bound median %+.1f%%, layer median %+.1f%%, worst %+.1f%% at %lld "
        "tokens\n",
        what.c_str(), tp, 100 * e.gemm_median, 100 * e.memory_median, 100 * e.layer_median, 100 * e.layer_worst,
        static_cast<long long>(e.worst_tokens));
  }
  return profile_errors(predictions, 256);
}

}  // namespace

TEST_CASE("a profile row's kernels: the shapes and bytes counted by hand") {
  // Llama-2-70B: h 8192, 64 heads of 128, 8 KV heads, f 28672, gated; 512 tokens at TP 4.
  const ProfiledModel m{64, 8, 8192, 28672, 32000, true};
  const auto k = fathom::calib::profiled_kernels(m, 512, 4);
  const auto at = [&](ProfiledOp op) { return k[static_cast<std::size_t>(op)]; };
  // QKV: 2048 query columns and 2 x 2 x 128 KV columns (8 KV heads over 4 ranks).
  CHECK(at(ProfiledOp::kQkv).shape.n == 2048 + 512);
  CHECK(at(ProfiledOp::kQkv).shape.k == 8192);
  CHECK(at(ProfiledOp::kAttentionOut).shape.k == 2048);
  CHECK(at(ProfiledOp::kMlpUp).shape.n == 2 * 7168);
  CHECK(at(ProfiledOp::kMlpDown).shape.k == 7168);
  CHECK(at(ProfiledOp::kMlpDown).flops == doctest::Approx(2.0 * 512 * 8192 * 7168));
  CHECK(at(ProfiledOp::kInputNorm).bytes == doctest::Approx(4.0 * 512 * 8192));
  CHECK(at(ProfiledOp::kRotary).bytes == doctest::Approx(4.0 * 512 * (2048 + 256)));
  CHECK(at(ProfiledOp::kActivation).bytes == doctest::Approx(6.0 * 512 * 7168));
  CHECK(at(ProfiledOp::kResidual).bytes == doctest::Approx(6.0 * 512 * 8192));
  // More ranks than KV heads: each keeps one whole head.
  CHECK(fathom::calib::profiled_kernels(m, 1, 16)[static_cast<std::size_t>(ProfiledOp::kQkv)].shape.n == 512 + 256);
}

TEST_CASE("a memory-bound kernel's cost: max(min, launch + bytes / rate)") {
  const fathom::hw::MemoryKernelCost c{2e-6, 1e12, 5e-6};
  CHECK(c.seconds(0) == doctest::Approx(5e-6));
  CHECK(c.seconds(1e6) == doctest::Approx(5e-6));         // 3 us streamed: the minimum holds
  CHECK(c.seconds(1e7) == doctest::Approx(2e-6 + 1e-5));  // streamed
  // The compute model takes it for a kernel of its class, and the generic rate for one without.
  fathom::hw::AcceleratorSpec a = entry("h100-sxm");
  a.efficiency.memory_kernels[static_cast<std::size_t>(fathom::hw::MemoryKernel::kNorm)] = c;
  fathom::compute::Kernel k;
  k.kind = fathom::compute::KernelKind::kMemory;
  k.bytes = 1e7;
  k.memory_kernel = fathom::hw::MemoryKernel::kNorm;
  CHECK(fathom::compute::kernel_seconds(a, fathom::hw::Precision::kBf16, k) == doctest::Approx(1.2e-5));
  k.memory_kernel = fathom::hw::MemoryKernel::kResidual;
  const double generic = 1e7 / (a.hbm_bytes_per_s * a.efficiency.hbm) + a.efficiency.kernel_overhead_s;
  CHECK(fathom::compute::kernel_seconds(a, fathom::hw::Precision::kBf16, k) == doctest::Approx(generic));
}

TEST_CASE("operator profiles: the published files parse, bad ones name file, line and column") {
  const OperatorProfile p = profile("h100/Llama-2-7b-hf");
  CHECK(p.rows.size() == 1044);
  // The front door recognises every profile by its header (Vidur's folders nest by GPU, so
  // load_folder of the top folder reads none of them).
  for (const char* name :
       {"h100/Llama-2-7b-hf", "h100/Llama-2-70b-hf", "h100/CodeLlama-34b-Instruct-hf", "a100/Llama-2-70b-hf"}) {
    const auto m =
        fathom::calib::load_measurement(data_path(std::string("vidur-operator-profiles/compute/") + name + ".mlp.csv"));
    CHECK(fathom::calib::kind_of(m) == "operator-profile");
    CHECK(std::get<OperatorProfile>(m).rows.size() == 1044);
  }
  CHECK(p.model.hidden == 4096);
  CHECK(p.model.kv_heads == 32);
  CHECK(p.model.gated);
  CHECK(p.rows.front().tokens == 4096);
  CHECK(p.rows.front().median_s[static_cast<std::size_t>(ProfiledOp::kQkv)] == doctest::Approx(0.584e-3));

  const std::string header =
      "time_stats.input_layernorm.median,time_stats.attn_pre_proj.median,time_stats.attn_rope.median,"
      "time_stats.attn_post_proj.median,time_stats.post_attention_layernorm.median,time_stats.mlp_up_proj.median,"
      "time_stats.mlp_act.median,time_stats.mlp_down_proj.median,time_stats.add.median,n_head,n_kv_head,n_embd,"
      "n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,num_tensor_parallel_workers\n";
  const std::string good = "1,2,3,4,5,6,7,8,9,32,32,4096,11008,32000,True,16,1\n";
  CHECK(parse_operator_profile_text(header + good, "p.csv").rows.size() == 1);
  const auto fails = [&](const std::string& text, int line, const std::string& field) {
    try {
      parse_operator_profile_text(text, "p.csv");
      FAIL("accepted: " << text);
    } catch (const ParseError& e) {
      CHECK(e.line() == line);
      CHECK(e.field() == field);
    }
  };
  fails(header + "1,2,3,4,5,6,7,8,0,32,32,4096,11008,32000,True,16,1\n", 2, "time_stats.add.median");
  fails(header + "1,2,3,4,5,6,7,8,9,32,32,4096,11008,32000,Maybe,16,1\n", 2, "use_gated_mlp");
  fails(header + good + "1,2,3,4,5,6,7,8,9,32,8,4096,11008,32000,True,16,1\n", 3, "n_head .. use_gated_mlp");
  fails(header + "1,2,3,4,5,6,7,8,9,32,32,4096,11008,32000,True,0,1\n", 2, "num_tokens");
  fails("time_stats.input_layernorm.median\n1\n", 1, "time_stats.attn_pre_proj.median");
}

TEST_CASE("the kernel model fitted on Llama-2-7B (H100) predicts Llama-2-70B and CodeLlama-34B, held out") {
  const KernelFit& fit = h100_fit();
  std::printf(
      "H100 BF16 tile fit on %s: gemm_max %.4f launch %.2f us wave %.2f us hbm %.3f stream-K %.3f, "
      "median error %.1f%%\n",
      fit.file.c_str(), fit.gemm.model.gemm_max, fit.gemm.model.launch_s * 1e6, fit.gemm.model.wave_overhead_s * 1e6,
      fit.gemm.model.hbm_fraction, fit.gemm.model.stream_k_efficiency, 100 * fit.gemm.fit.median_abs_rel_error);
  for (std::size_t c = 0; c < fathom::hw::kMemoryKernels; ++c) {
    std::printf("  %s: launch %.2f us, %.2f TB/s, min %.2f us, median error %.1f%%\n",
                std::string(fathom::hw::to_string(static_cast<fathom::hw::MemoryKernel>(c))).c_str(),
                fit.memory[c].launch_s * 1e6, fit.memory[c].bytes_per_s / 1e12, fit.memory[c].min_s * 1e6,
                100 * fit.memory_fit[c].median_abs_rel_error);
  }
  const auto h100 = fathom::calib::with_kernel_fit(entry("h100-sxm"), fit);
  for (const char* name : {"h100/Llama-2-70b-hf", "h100/CodeLlama-34b-Instruct-hf"}) {
    CAPTURE(std::string(name));
    const auto e = report(name, profile(name), h100);
    std::printf(
        "%s over all 900 rows of >= 256 tokens: GEMM median %+.1f%%, memory-bound median %+.1f%%, layer "
        "median %+.1f%%, worst %+.1f%% (%lld tokens, TP %d)\n",
        name, 100 * e.gemm_median, 100 * e.memory_median, 100 * e.layer_median, 100 * e.layer_worst,
        static_cast<long long>(e.worst_tokens), e.worst_tp);
    CHECK(e.rows == 900);
    // Each operator class's median within 5% (measured: -1.3%/-2.1% on 70B, -0.5%/-1.7% on 34B),
    // and the layer total's median within 5% (-2.6%, -1.7%).
    CHECK(std::abs(e.gemm_median) <= 0.05);
    CHECK(std::abs(e.memory_median) <= 0.05);
    CHECK(std::abs(e.layer_median) <= 0.05);
    // Not every row's layer total is within 5%: the worst is -23% (70B) and -27% (34B). cuBLAS's
    // heuristic does not always pick the fastest kernel: Llama-2-70B's down projection at TP 1 takes
    // 846 us at 1,024 tokens and 597 us at 896, a larger GEMM 42% slower; the tile model takes the
    // fastest kernel for every shape (docs/calibration.md, "Operator profiles"). Bound: 30%.
    CHECK(std::abs(e.layer_worst) <= 0.30);
  }
}

TEST_CASE("the A100's Llama-2-70B profile from the A100's own catalog figures (printed, not fitted)") {
  const auto e = report("a100/Llama-2-70b-hf (catalog)", profile("a100/Llama-2-70b-hf"), entry("a100-80gb-sxm"));
  std::printf("a100/Llama-2-70b-hf (catalog): GEMM median %+.1f%%, memory-bound median %+.1f%%, layer worst %+.1f%%\n",
              100 * e.gemm_median, 100 * e.memory_median, 100 * e.layer_worst);
  // A bound that guards against a broken model, not a tolerance met by fitting: the catalog
  // figures come from square sweeps and STREAM, never from this profile.
  CHECK(std::abs(e.gemm_median) <= 0.25);
  CHECK(e.rows == 900);
}

TEST_CASE("the catalog's h100-sxm gemm_tiles_bf16 and memory_kernels are the fit of the Llama-2-7B profile") {
  // Nobody chose them: the catalog carries what the fit gives, to the four digits it writes.
  const KernelFit& fit = h100_fit();
  const fathom::hw::DefaultEfficiencies& e = entry("h100-sxm").efficiency;
  REQUIRE(e.gemm_tiles_bf16.present);
  CHECK(e.gemm_tiles_bf16.precision == fathom::hw::Precision::kBf16);
  const auto close = [](double catalog, double fitted) { return std::abs(catalog / fitted - 1) < 1e-3; };
  CHECK(close(e.gemm_tiles_bf16.gemm_max, fit.gemm.model.gemm_max));
  CHECK(close(e.gemm_tiles_bf16.launch_s, fit.gemm.model.launch_s));
  CHECK(close(e.gemm_tiles_bf16.wave_overhead_s, fit.gemm.model.wave_overhead_s));
  CHECK(close(e.gemm_tiles_bf16.hbm_fraction, fit.gemm.model.hbm_fraction));
  CHECK(close(e.gemm_tiles_bf16.stream_k_efficiency, fit.gemm.model.stream_k_efficiency));
  for (std::size_t c = 0; c < fathom::hw::kMemoryKernels; ++c) {
    CAPTURE(c);
    CHECK(close(e.memory_kernels[c].launch_s, fit.memory[c].launch_s));
    CHECK(close(e.memory_kernels[c].bytes_per_s, fit.memory[c].bytes_per_s));
    CHECK(close(e.memory_kernels[c].min_s, fit.memory[c].min_s));
  }
  // Only what was measured: the A100 and the H200 keep the generic rates.
  CHECK_FALSE(entry("a100-80gb-sxm").efficiency.memory_kernels[0].present());
  CHECK_FALSE(entry("h200-sxm").efficiency.gemm_tiles_bf16.present);
}

TEST_CASE("fuzz: mutated operator profiles parse or fail with ParseError only") {
  const std::string text = fathom::calib::test::data_text("vidur-operator-profiles/compute/h100/Llama-2-7b-hf.mlp.csv");
  // The header and the first rows: enough for every column, small enough to mutate often.
  std::size_t cut = 0;
  for (int line = 0; line < 6; ++line) cut = text.find('\n', cut) + 1;
  const std::string head = text.substr(0, cut);
  const std::vector<std::string> tokens = {",", "\n", "True", "False", "0", "-1", "nan", "1e308", "\"", "4096"};
  fathom::test::FuzzRng rng(46);
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 600; ++i) {
    const std::string mutated = fathom::test::mutate_text(head, rng, tokens);
    try {
      const OperatorProfile p = parse_operator_profile_text(mutated, "fuzz.csv");
      for (const auto& row : p.rows) {
        CHECK(row.tokens >= 1);
        CHECK(row.tp >= 1);
        for (double t : row.median_s) CHECK(t > 0);
      }
      ++parsed;
    } catch (const ParseError&) {
      ++rejected;
    }
  }
  CHECK(parsed > 20);
  CHECK(rejected > 20);
}
