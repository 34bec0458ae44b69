// GEMM sweeps: the CSV `m,n,k,dtype,tflops` (data/calibration-data/azure-*/gemm*.csv) and the
// raw output of superbenchmark's cublaslt_gemm (also hipBLASLt's port of it): one line
// "m n k batch time_us tflops" per run, tab-separated, with the data type taken from a
// `-t`/`--in_type` option on a command line before it or from the caller.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::calib {

struct GemmPoint {
  std::int64_t m = 0, n = 0, k = 0;
  std::string dtype;  // as found: fp16, bf16, fp8e4m3, fp4e2m1, ...
  double tflops = 0;
  int line = 0;
  std::int64_t batch = 0;         // cublaslt_gemm's -b (0: not batched); 0 in the CSV
  std::optional<double> time_us;  // cublaslt_gemm only
};

enum class GemmSource { csv, cublaslt };

struct GemmSweep {
  std::string file;
  GemmSource source = GemmSource::csv;
  std::vector<GemmPoint> points;
};

extern const std::string kGemmCsvHeader;  // "m,n,k,dtype,tflops"

// The data types a GEMM row may name; anything else is a ParseError listing these.
const std::vector<std::string>& gemm_dtypes();

GemmSweep parse_gemm_csv(const std::filesystem::path& file);
GemmSweep parse_gemm_csv_text(std::string_view text, const std::string& file);

// `dtype`, when not empty, is the data type of rows no command line names.
GemmSweep parse_cublaslt_gemm(const std::filesystem::path& file, const std::string& dtype = {});
GemmSweep parse_cublaslt_gemm_text(std::string_view text, const std::string& file, const std::string& dtype = {});

}  // namespace fathom::calib
