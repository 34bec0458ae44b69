// fio storage benchmarks: the calibration CSV
// `test,fio_rw,block_size,iodepth,numjobs,ioengine,direct,bandwidth_GBps` (azure-*/fio*.csv) and
// fio's own JSON output (--output-format=json), read with yaml-cpp (JSON is YAML).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::calib {

// One direction of one fio job (a randrw job gives a read and a write result).
struct FioResult {
  std::string test;  // the CSV's test name, or fio's jobname
  std::string rw;    // fio --rw: read, write, randread, randwrite, rw, randrw, ...
  std::int64_t block_size_bytes = 0;
  int iodepth = 1;
  int numjobs = 1;
  double bandwidth_bytes_per_s = 0;
  std::optional<double> iops;  // JSON only; the calibration CSV publishes none
  int line = 0;
  std::string direction;  // "read", "write" or "trim"
  std::string ioengine;   // when stated
  std::optional<bool> direct;
  std::optional<double> lat_mean_ns, clat_mean_ns;  // JSON only
  std::map<double, double> clat_percentiles_ns;     // JSON only: percentile (e.g. 99.9) -> ns
};

enum class FioSource { csv, json };

struct FioRuns {
  std::string file;
  FioSource source = FioSource::csv;
  std::string fio_version;  // JSON: "fio-3.16"
  std::vector<FioResult> results;
};

extern const std::string kFioCsvHeader;

// The rw modes fio accepts.
const std::vector<std::string>& fio_rw_modes();

FioRuns parse_fio_csv(const std::filesystem::path& file);
FioRuns parse_fio_csv_text(std::string_view text, const std::string& file);

// fio JSON. Text before the opening '{' (fio's notes and warnings) and after the matching '}'
// is skipped. Errors name the line in the file.
FioRuns parse_fio_json(const std::filesystem::path& file);
FioRuns parse_fio_json_text(std::string_view text, const std::string& file);

}  // namespace fathom::calib
