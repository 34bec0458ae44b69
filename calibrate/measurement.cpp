#include "calibrate/measurement.hpp"

#include <algorithm>
#include <cctype>

#include "calibrate/parsers/text.hpp"

namespace fathom::calib {
namespace {

struct CsvFormat {
  const std::string* header;
  Format format;
};

// Every CSV header load_measurement() accepts, and the format it means.
std::vector<CsvFormat> csv_formats() {
  return {{&kNcclTestsCsvHeader, Format::nccl_tests_csv},
          {&kNcclTestsBusbwCsvHeader, Format::nccl_tests_csv},
          {&kGemmCsvHeader, Format::gemm_csv},
          {&kHbmCsvHeader, Format::stream_csv},
          {&kCpuStreamCsvHeader, Format::stream_csv},
          {&kBabelStreamCsvHeader, Format::babelstream_csv},
          {&kBabelStreamMibCsvHeader, Format::babelstream_csv},
          {&kFioCsvHeader, Format::fio_csv},
          {&kTransferCsvHeader, Format::transfer_csv},
          {&kAttentionCsvHeader, Format::attention_csv}};
}

std::string extension_of(const std::string& file) {
  return text::lower(std::filesystem::path(file).extension().string());
}

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

Format detect_csv(std::string_view content, const std::string& file) {
  const text::Csv csv = text::read_csv(content, file);
  // Vidur's operator profile: its many columns are found by name, the first names the format.
  if (!csv.header.empty() && csv.header.front() == kOperatorProfileFirstColumn) return Format::operator_profile;
  if (is_collective_profile_header(csv.header)) return Format::collective_profile;
  const std::string header = text::header_text(csv);
  std::string accepted;
  for (const CsvFormat& f : csv_formats()) {
    if (*f.header == header) return f.format;
    accepted += (accepted.empty() ? "" : ", ") + ("\"" + *f.header + "\"");
  }
  throw ParseError(file, csv.header_line, "header", "one of the accepted headers " + accepted, quote(header));
}

// The text formats, recognised by lines only their tool prints.
std::optional<Format> detect_text(std::string_view content) {
  bool six_numbers = false;
  for (const text::Line& line : text::split_lines(content)) {
    const std::string_view t = text::trim(line.text);
    if (t.empty()) continue;
    const std::vector<std::string_view> tokens = text::split_ws(t);
    if (t.front() == '#') {
      const std::string_view body = text::trim(t.substr(1));
      if (text::starts_with(body, "nThread") || text::starts_with(body, "Rank ") ||
          text::starts_with(body, "Avg bus bandwidth") || text::starts_with(body, "Collective test starting") ||
          text::starts_with(body, "nccl-tests version") ||
          (text::starts_with(body, "size") && text::contains(body, "count") && text::contains(body, "redop"))) {
        return Format::nccl_tests_log;
      }
      continue;
    }
    for (const std::string_view w : tokens) {
      if (text::ends_with(w, "_perf") || text::ends_with(w, "_perf_mpi")) return Format::nccl_tests_log;
      if (text::contains(w, "cublaslt_gemm") || text::contains(w, "hipblaslt_gemm")) return Format::cublaslt_gemm;
    }
    if ((tokens.front() == "Running" && tokens.size() == 2 && text::ends_with(t, ".")) ||
        (tokens.front() == "SUM" && tokens.size() == 3) || text::starts_with(t, "nvbandwidth Version")) {
      return Format::nvbandwidth;
    }
    if (t == "BabelStream" ||
        (tokens.front() == "Function" && tokens.size() > 1 && text::ends_with(tokens[1], "/sec"))) {
      return Format::babelstream;
    }
    if (tokens.size() == 6 && all_digits(tokens[0]) && all_digits(tokens[1]) && all_digits(tokens[2]) &&
        all_digits(tokens[3]) && text::to_double(tokens[4]) && text::to_double(tokens[5])) {
      six_numbers = true;
    }
  }
  if (six_numbers) return Format::cublaslt_gemm;
  return std::nullopt;
}

constexpr const char* kTextFormats =
    "nccl-tests output, nvbandwidth output, BabelStream output, cublaslt_gemm output or fio JSON";

}  // namespace

std::string_view format_name(Format format) {
  switch (format) {
    case Format::nccl_tests_log:
      return "nccl-tests log";
    case Format::nccl_tests_csv:
      return "nccl-tests CSV";
    case Format::gemm_csv:
      return "GEMM CSV";
    case Format::cublaslt_gemm:
      return "cublaslt_gemm output";
    case Format::stream_csv:
      return "STREAM CSV";
    case Format::babelstream:
      return "BabelStream output";
    case Format::babelstream_csv:
      return "BabelStream CSV";
    case Format::fio_csv:
      return "fio CSV";
    case Format::fio_json:
      return "fio JSON";
    case Format::transfer_csv:
      return "copy bandwidth CSV";
    case Format::nvbandwidth:
      return "nvbandwidth output";
    case Format::attention_csv:
      return "attention CSV";
    case Format::operator_profile:
      return "operator profile CSV";
    case Format::collective_profile:
      return "NCCL profile CSV";
  }
  return "unknown";
}

Format detect_format(std::string_view content, const std::string& file) {
  const std::string ext = extension_of(file);
  if (ext == ".csv") return detect_csv(content, file);
  if (ext == ".json") return Format::fio_json;
  if (!ext.empty() && ext != ".log" && ext != ".txt" && ext != ".out") {
    throw ParseError(file, 0, "format", "a .csv, .json (fio), .log, .txt or .out file, or one without an extension",
                     "a file named " + quote(std::filesystem::path(file).filename().string()));
  }
  if (text::is_blank(content)) throw ParseError(file, 1, "format", kTextFormats, "an empty file");
  const std::string_view first = text::trim(content);
  if (!first.empty() && first.front() == '{') return Format::fio_json;
  if (const auto format = detect_text(content)) return *format;
  // fio prints notes before its JSON; a '{' line further down is still fio's.
  for (const text::Line& line : text::split_lines(content)) {
    if (text::trim(line.text) == "{") return Format::fio_json;
  }
  throw ParseError(file, 1, "format", kTextFormats, "text that none of them prints");
}

Measurement parse_measurement(std::string_view content, const std::string& file, const LoadOptions& options) {
  switch (detect_format(content, file)) {
    case Format::nccl_tests_log:
      return parse_nccl_tests_log_text(content, file, options.nccl);
    case Format::nccl_tests_csv:
      return parse_nccl_tests_csv_text(content, file, options.nccl);
    case Format::gemm_csv:
      return parse_gemm_csv_text(content, file);
    case Format::cublaslt_gemm:
      return parse_cublaslt_gemm_text(content, file, options.gemm_dtype);
    case Format::stream_csv:
      return parse_stream_csv_text(content, file, options.memory);
    case Format::babelstream:
      return parse_babelstream_text(content, file, options.memory);
    case Format::babelstream_csv:
      return parse_babelstream_csv_text(content, file, options.memory);
    case Format::fio_csv:
      return parse_fio_csv_text(content, file);
    case Format::fio_json:
      return parse_fio_json_text(content, file);
    case Format::transfer_csv:
      return parse_transfer_csv_text(content, file);
    case Format::nvbandwidth:
      return parse_nvbandwidth_text(content, file);
    case Format::attention_csv:
      return parse_attention_csv_text(content, file);
    case Format::operator_profile:
      return parse_operator_profile_text(content, file);
    case Format::collective_profile:
      return parse_collective_profile_text(content, file);
  }
  throw ParseError(file, 0, "format", "a known format", "none");
}

Measurement load_measurement(const std::filesystem::path& file, const LoadOptions& options) {
  const std::string content = text::read_file(file);
  return parse_measurement(content, file.string(), options);
}

std::vector<Measurement> load_folder(const std::filesystem::path& folder, const LoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    throw ParseError(folder.string(), 0, "", "a folder",
                     std::filesystem::exists(folder, ec) ? "a file" : "no such folder");
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    if (entry.is_directory(ec)) continue;
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.front() == '.' || name == "README.md" || name == "SOURCES.md") continue;
    files.push_back(entry.path());
  }
  if (ec) throw ParseError(folder.string(), 0, "", "a readable folder", quote(ec.message()));
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.filename().string() < b.filename().string(); });
  std::vector<Measurement> measurements;
  measurements.reserve(files.size());
  for (const auto& file : files) measurements.push_back(load_measurement(file, options));
  return measurements;
}

const std::string& file_of(const Measurement& m) {
  return std::visit([](const auto& v) -> const std::string& { return v.file; }, m);
}

std::string_view kind_of(const Measurement& m) {
  struct Kind {
    std::string_view operator()(const NcclTestsLog&) const { return "nccl-tests"; }
    std::string_view operator()(const GemmSweep&) const { return "gemm"; }
    std::string_view operator()(const StreamBandwidth&) const { return "stream"; }
    std::string_view operator()(const FioRuns&) const { return "fio"; }
    std::string_view operator()(const TransferBandwidth&) const { return "transfer"; }
    std::string_view operator()(const AttentionResult&) const { return "attention"; }
    std::string_view operator()(const OperatorProfile&) const { return "operator-profile"; }
    std::string_view operator()(const CollectiveProfile&) const { return "collective-profile"; }
  };
  return std::visit(Kind{}, m);
}

std::vector<Measurement> drop_repeated(std::vector<Measurement> measurements) {
  std::vector<Measurement> kept;
  for (Measurement& m : measurements) {
    const auto* log = std::get_if<NcclTestsLog>(&m);
    bool repeated = false;
    if (log != nullptr) {
      for (Measurement& k : kept) {
        auto* earlier = std::get_if<NcclTestsLog>(&k);
        if (earlier == nullptr || !same_measurement(*earlier, *log)) continue;
        repeated = true;
        if (earlier->source != NcclTestsSource::log && log->source == NcclTestsSource::log) k = std::move(m);
        break;
      }
    }
    if (!repeated) kept.push_back(std::move(m));
  }
  return kept;
}

}  // namespace fathom::calib
