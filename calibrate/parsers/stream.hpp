// Memory bandwidth from STREAM-style kernels (BabelStream: Copy, Mul, Add, Triad, Dot, Nstream):
// the calibration CSVs `kernel,bandwidth_TBps` (accelerator HBM, hbm*.csv) and
// `kernel,bandwidth_GBps` (cpu_stream.csv), and BabelStream's own output, both the table it
// prints by default and its --csv form.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::calib {

struct StreamPoint {
  std::string kernel;  // Copy, Mul, Add, Triad, Dot or Nstream, as BabelStream names them
  double bytes_per_s = 0;
  int line = 0;
  std::optional<double> min_s, max_s, avg_s;  // BabelStream's timings; not in the calibration CSV
};

enum class StreamSource { csv, babelstream, babelstream_csv };

struct StreamBandwidth {
  std::string file;
  StreamSource source = StreamSource::csv;
  // "hbm" (accelerator memory), "cpu" (host memory) or "" (not said): the caller's, else the
  // file name's ("hbm.csv", "cpu_stream.csv" -- a name with "hbm" or "cpu" in it).
  std::string memory;
  std::vector<StreamPoint> kernels;
  // BabelStream's banner, when printed.
  std::string version, implementation, device, precision;
};

extern const std::string kHbmCsvHeader;             // "kernel,bandwidth_TBps"
extern const std::string kCpuStreamCsvHeader;       // "kernel,bandwidth_GBps"
extern const std::string kBabelStreamCsvHeader;     // BabelStream --csv, rates in MB/s
extern const std::string kBabelStreamMibCsvHeader;  // the same with --mibibytes, rates in MiB/s

const std::vector<std::string>& stream_kernels();

// `memory`, when not empty, is "hbm" or "cpu" and overrides what the file says.
StreamBandwidth parse_stream_csv(const std::filesystem::path& file, const std::string& memory = {});
StreamBandwidth parse_stream_csv_text(std::string_view text, const std::string& file, const std::string& memory = {});

// BabelStream's default output: the banner and the "Function MBytes/sec Min (sec) Max Average"
// table (MiBytes/sec with --mibibytes; GBytes/sec and GiBytes/sec are read too).
StreamBandwidth parse_babelstream(const std::filesystem::path& file, const std::string& memory = {});
StreamBandwidth parse_babelstream_text(std::string_view text, const std::string& file, const std::string& memory = {});

// BabelStream --csv: function,num_times,n_elements,sizeof,max_mbytes_per_sec (or
// max_mibytes_per_sec),min_runtime,max_runtime,avg_runtime.
StreamBandwidth parse_babelstream_csv(const std::filesystem::path& file, const std::string& memory = {});
StreamBandwidth parse_babelstream_csv_text(std::string_view text, const std::string& file,
                                           const std::string& memory = {});

}  // namespace fathom::calib
