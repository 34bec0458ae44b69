// The catalog's gemm_tiles are what `fathom calibrate` fits to the sweep each entry cites
// (scenarios/hardware/accelerators.yaml): nobody chose them. Entries whose sweep the tile model does not describe
// (tile_model_usable) carry `gemm_tiles: none`, as a calibrated profile of that sweep would.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "calibrate/fit/gemm_fit.hpp"
#include "calibrate/parsers/gemm.hpp"
#include "models/hardware/accelerator.hpp"
#include "scenarios/accelerator_catalog.hpp"
#include "tests/calibrate/calibration_files.hpp"

using fathom::calib::AcceleratorFacts;
using fathom::calib::fit_gemm_dtype;
using fathom::calib::GemmFit;
using fathom::calib::parse_gemm_csv;
using fathom::calib::tile_model_usable;
using fathom::calib::test::data_path;
using fathom::hw::AcceleratorSpec;
using fathom::hw::Precision;

namespace {

const AcceleratorSpec& entry(const std::string& name) {
  const AcceleratorSpec* a = fathom::scenario::find_catalog_accelerator(name);
  REQUIRE(a != nullptr);
  return *a;
}

// The fit of `file`'s `dtype` rows on `a`'s facts (peak of `precision`, SMs, HBM bandwidth).
GemmFit fit_of(const AcceleratorSpec& a, const std::string& file, const std::string& dtype, Precision precision) {
  AcceleratorFacts facts;
  facts.sms = a.compute_units;
  facts.hbm_bytes_per_s = a.hbm_bytes_per_s;
  facts.peak_by_dtype[dtype] = a.peak(precision);
  return fit_gemm_dtype(parse_gemm_csv(data_path(file)).points, dtype, facts);
}

}  // namespace

TEST_CASE("each catalog gemm_tiles is the tile fit of the sweep the entry cites") {
  struct Row {
    const char* entry;
    const char* fitted_on;  // the entry whose facts the sweep was measured on
    const char* file;
    const char* dtype;
    Precision precision;
  };
  const Row rows[] = {
      {"a100-80gb-sxm", "a100-80gb-sxm", "azure-nd-a100-v4/gemm.csv", "fp16", Precision::kBf16},
      {"a100-40gb-sxm", "a100-80gb-sxm", "azure-nd-a100-v4/gemm.csv", "fp16", Precision::kBf16},
      {"h100-sxm", "h100-sxm", "azure-nd-h100-v5/gemm.csv", "fp8e4m3", Precision::kFp8},
      {"h200-sxm", "h200-sxm", "azure-nd-h200-v5/gemm.csv", "fp8e4m3", Precision::kFp8},
  };
  for (const Row& row : rows) {
    CAPTURE(std::string(row.entry));
    const fathom::hw::GemmTiles& t = entry(row.entry).efficiency.gemm_tiles;
    REQUIRE(t.present);
    const GemmFit f = fit_of(entry(row.fitted_on), row.file, row.dtype, row.precision);
    REQUIRE(tile_model_usable(f));
    CHECK(t.precision == row.precision);
    // The catalog writes four significant figures and whole nanoseconds.
    CHECK(t.gemm_max == doctest::Approx(f.model.gemm_max).epsilon(5e-4));
    CHECK(t.hbm_fraction == doctest::Approx(f.model.hbm_fraction).epsilon(5e-4));
    CHECK(t.stream_k_efficiency == doctest::Approx(f.model.stream_k_efficiency).epsilon(5e-4));
    CHECK(t.unaligned_efficiency == doctest::Approx(f.model.unaligned_efficiency).epsilon(5e-4));
    CHECK(std::abs(t.wave_overhead_s - f.model.wave_overhead_s) <= 1e-9);
    CHECK(std::abs(t.launch_s - f.model.launch_s) <= 1e-9);
  }
}

TEST_CASE("entries whose sweep the tile model misses carry no gemm_tiles") {
  // GB200's FP8 table (its 2048^3 and 4096^3) and MI300X's non-monotone FP8 sweep: the fit
  // misses by 15.2% and 10.4%.
  struct Row {
    const char* entry;
    const char* file;
  };
  for (const Row& row : {Row{"gb200", "azure-nd-gb200-v6/gemm.csv"}, Row{"mi300x", "azure-nd-mi300x-v5/gemm.csv"}}) {
    CAPTURE(std::string(row.entry));
    const AcceleratorSpec& a = entry(row.entry);
    CHECK_FALSE(a.efficiency.gemm_tiles.present);
    const GemmFit f = fit_of(a, row.file, "fp8e4m3", Precision::kFp8);
    CHECK_FALSE(tile_model_usable(f));
    CHECK(f.fit.max_abs_rel_error > fathom::calib::kTileModelMaxError);
  }
  CHECK_FALSE(entry("b200-sxm").efficiency.gemm_tiles.present);  // no public sweep
}
