// The front door of the calibration inputs: load_measurement() recognises a microbenchmark file
// by its extension and content (a CSV by its header line) and returns what its parser reads;
// load_folder() does it for every file of a folder. docs/calibration.md lists the formats.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/attention.hpp"
#include "calibrate/parsers/collective_profile.hpp"
#include "calibrate/parsers/fio.hpp"
#include "calibrate/parsers/gemm.hpp"
#include "calibrate/parsers/nccl_tests.hpp"
#include "calibrate/parsers/operator_profile.hpp"
#include "calibrate/parsers/stream.hpp"
#include "calibrate/parsers/transfer.hpp"

namespace fathom::calib {

using Measurement = std::variant<NcclTestsLog, GemmSweep, StreamBandwidth, FioRuns, TransferBandwidth, AttentionResult,
                                 OperatorProfile, CollectiveProfile>;

enum class Format {
  nccl_tests_log,      // nccl-tests / rccl-tests output
  nccl_tests_csv,      // either nccl-tests CSV header
  gemm_csv,            // m,n,k,dtype,tflops
  cublaslt_gemm,       // superbench cublaslt_gemm output
  stream_csv,          // kernel,bandwidth_TBps or kernel,bandwidth_GBps
  babelstream,         // BabelStream's printed table
  babelstream_csv,     // BabelStream --csv
  fio_csv,             // test,fio_rw,...,bandwidth_GBps
  fio_json,            // fio --output-format=json
  transfer_csv,        // test,bandwidth_GBps
  nvbandwidth,         // nvbandwidth's text output
  attention_csv,       // implementation,tflops
  operator_profile,    // Vidur's per-operator profile: time_stats.<op>.min, ... num_tensor_parallel_workers
  collective_profile,  // Vidur's NCCL profile: ,time_stats.all_reduce.min (or send_recv), ... num_workers, size
};

std::string_view format_name(Format format);

// What the caller knows that a file may not say.
struct LoadOptions {
  NcclTestsOptions nccl;
  std::string gemm_dtype;  // for cublaslt_gemm output without a -t command line
  std::string memory;      // "hbm" or "cpu" for STREAM results whose file name says neither
};

// The format of `text`, a file named `file`: a .csv by its header line, a .json as fio JSON,
// any other text (.log, .txt, .out or no extension) by its content. A ParseError naming the file
// (and the header line, for a CSV) when none fits.
Format detect_format(std::string_view text, const std::string& file);

// Reads `file` in the format detect_format() finds. Every error is a ParseError naming the file.
Measurement load_measurement(const std::filesystem::path& file, const LoadOptions& options = {});
Measurement parse_measurement(std::string_view text, const std::string& file, const LoadOptions& options = {});

// Every file of `folder` (not its subfolders), sorted by file name, skipping README.md,
// SOURCES.md and hidden files. An unrecognised or malformed file is a ParseError with its name.
std::vector<Measurement> load_folder(const std::filesystem::path& folder, const LoadOptions& options = {});

// The file a measurement was read from.
const std::string& file_of(const Measurement& m);

// "nccl-tests", "gemm", "stream", "fio", "transfer", "attention", "operator-profile" or
// "collective-profile".
std::string_view kind_of(const Measurement& m);

// `measurements` without nccl-tests results that repeat an earlier one (same_measurement()): a
// .log and the .csv made from it count once. Of such a pair the log is kept, as it says more;
// otherwise the first. The order is kept.
std::vector<Measurement> drop_repeated(std::vector<Measurement> measurements);

}  // namespace fathom::calib
