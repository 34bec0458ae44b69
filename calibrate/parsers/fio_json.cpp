// fio --output-format=json, read with yaml-cpp. What is read from each entry of "jobs":
//   "jobname", "error",
//   "job options" (falling back to the top-level "global options"): rw, bs, iodepth, numjobs,
//     ioengine, direct -- fio's defaults (read, 4096, 1, 1) where neither says;
//   "read" / "write" / "trim": "bw_bytes" (else "bw" in KiB/s), "iops",
//     "lat_ns"/"clat_ns" (else "lat"/"clat" in us): "mean", and "percentile" of clat (else lat).
// A one-direction job (read, randwrite, ...) gives that direction; a mixed one (rw, randrw, ...)
// gives each direction that moved bytes.
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/fio.hpp"
#include "calibrate/parsers/fio_detail.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {
namespace {

// Where the JSON object is in the file: from the line that opens it to its matching brace.
struct JsonSpan {
  std::size_t begin = 0, end = 0;  // byte offsets, end one past the closing brace
  int first_line = 1;              // the file's line of `begin`
};

JsonSpan find_json(std::string_view text, const std::string& file) {
  const std::vector<text::Line> lines = text::split_lines(text);
  const text::Line* open = nullptr;
  for (const text::Line& line : lines) {
    if (text::starts_with(text::trim(line.text), "{")) {
      open = &line;
      break;
    }
  }
  if (open == nullptr) {
    throw ParseError(file, lines.empty() ? 1 : lines.back().number, "JSON",
                     "fio --output-format=json output (a line opening with '{')",
                     text::is_blank(text) ? "an empty file" : "no JSON object");
  }
  JsonSpan span;
  span.first_line = open->number;
  span.begin = static_cast<std::size_t>(open->text.data() - text.data()) + open->text.find('{');
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = span.begin; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) {
        span.end = i + 1;
        return span;
      }
    }
  }
  throw ParseError(file, span.first_line, "JSON", "a '}' closing the object opened on this line",
                   "the end of the file");
}

class JsonReader {
 public:
  JsonReader(const std::string& file, int first_line) : file_(file), base_(first_line - 1) {}

  int line_of(const YAML::Node& node, int fallback) const {
    if (!node.IsDefined()) return fallback;
    const YAML::Mark mark = node.Mark();
    return mark.line >= 0 ? base_ + mark.line + 1 : fallback;
  }

  [[noreturn]] void fail(const YAML::Node& at, int fallback, const std::string& field, const std::string& expected,
                         const std::string& found) const {
    throw ParseError(file_, line_of(at, fallback), field, expected, found);
  }

  static std::string kind(const YAML::Node& node) {
    if (!node.IsDefined()) return "nothing";
    if (node.IsMap()) return "an object";
    if (node.IsSequence()) return "an array";
    if (node.IsNull()) return "null";
    return quote(node.Scalar());
  }

  // `node[key]` of an object; an undefined node when `node` is not an object or lacks the key.
  static YAML::Node child(const YAML::Node& node, const std::string& key) {
    if (!node.IsDefined() || !node.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    for (const auto& entry : node) {
      if (entry.first.IsScalar() && entry.first.Scalar() == key) return entry.second;
    }
    return YAML::Node(YAML::NodeType::Undefined);
  }

  double number(const YAML::Node& node, int fallback, const std::string& field) const {
    if (!node.IsDefined() || !node.IsScalar()) fail(node, fallback, field, "a number >= 0", kind(node));
    const auto value = text::to_double(node.Scalar());
    if (!value || *value < 0) fail(node, fallback, field, "a number >= 0", quote(node.Scalar()));
    return *value;
  }

  std::optional<double> optional_number(const YAML::Node& node, int fallback, const std::string& field) const {
    if (!node.IsDefined()) return std::nullopt;
    return number(node, fallback, field);
  }

  // A string option, from the job's options, else the global ones, else `otherwise`.
  std::optional<std::string> option(const YAML::Node& job_options, const YAML::Node& global, const std::string& key,
                                    int fallback, const std::string& field) const {
    for (const YAML::Node* source : {&job_options, &global}) {
      const YAML::Node value = child(*source, key);
      if (!value.IsDefined()) continue;
      if (!value.IsScalar()) fail(value, fallback, field, "a value", kind(value));
      return value.Scalar();
    }
    return std::nullopt;
  }

  FioRuns read(const YAML::Node& root) {
    FioRuns runs;
    runs.file = file_;
    runs.source = FioSource::json;
    if (!root.IsMap()) fail(root, base_ + 1, "JSON", "an object with \"jobs\" (fio JSON output)", kind(root));
    const YAML::Node version = child(root, "fio version");
    if (version.IsDefined() && version.IsScalar()) runs.fio_version = version.Scalar();
    const YAML::Node global = child(root, "global options");
    const YAML::Node jobs = child(root, "jobs");
    if (!jobs.IsDefined() || !jobs.IsSequence() || jobs.size() == 0) {
      fail(jobs, line_of(root, base_ + 1), "jobs", "a non-empty array of fio jobs", kind(jobs));
    }
    for (std::size_t i = 0; i < jobs.size(); ++i) read_job(jobs[i], global, "jobs[" + std::to_string(i) + "]", runs);
    if (runs.results.empty()) {
      fail(jobs, base_ + 1, "jobs", "a job that moved bytes (a read, write or trim with io_bytes > 0)", "none");
    }
    return runs;
  }

  void read_job(const YAML::Node& job, const YAML::Node& global, const std::string& path, FioRuns& runs) const {
    const int job_line = line_of(job, base_ + 1);
    if (!job.IsMap()) fail(job, job_line, path, "an object", kind(job));
    const YAML::Node name = child(job, "jobname");
    if (!name.IsDefined() || !name.IsScalar()) fail(name, job_line, path + ".jobname", "a job name", kind(name));
    const YAML::Node error = child(job, "error");
    if (error.IsDefined() && !(error.IsScalar() && error.Scalar() == "0")) {
      fail(error, job_line, path + ".error", "0 (the job ran without error)", kind(error));
    }
    const YAML::Node options = child(job, "job options");
    const std::string opt = path + ".job options.";
    const std::string rw = option(options, global, "rw", job_line, opt + "rw").value_or("read");
    if (!detail::is_fio_rw(rw))
      fail(options, job_line, opt + "rw", "one of " + text::join(fio_rw_modes(), ", "), quote(rw));
    const auto integer_option = [&](const char* key, std::int64_t otherwise) {
      const auto value = option(options, global, key, job_line, opt + key);
      if (!value) return otherwise;
      const auto parsed = text::to_int64(*value);
      if (!parsed || *parsed < 1) fail(options, job_line, opt + key, "a whole number >= 1", quote(*value));
      return std::min<std::int64_t>(*parsed, 1 << 30);
    };
    const int iodepth = static_cast<int>(integer_option("iodepth", 1));
    const int numjobs = static_cast<int>(integer_option("numjobs", 1));
    const std::string bs = option(options, global, "bs", job_line, opt + "bs").value_or("4096");
    const std::string ioengine = option(options, global, "ioengine", job_line, opt + "ioengine").value_or("");
    std::optional<bool> direct;
    if (const auto d = option(options, global, "direct", job_line, opt + "direct")) {
      if (*d != "0" && *d != "1" && *d != "true" && *d != "false") {
        fail(options, job_line, opt + "direct", "0 or 1", quote(*d));
      }
      direct = *d == "1" || *d == "true";
    }
    const std::string only = detail::fio_direction(rw);
    const char* directions[] = {"read", "write", "trim"};
    for (int d = 0; d < 3; ++d) {
      const std::string direction = directions[d];
      const YAML::Node section = child(job, direction);
      const std::string where = path + "." + direction;
      if (!only.empty() && only != direction) continue;
      if (!section.IsDefined() && only.empty()) continue;
      if (!section.IsMap()) fail(section, job_line, where, "an object with bw_bytes", kind(section));
      if (only.empty()) {
        const YAML::Node io = child(section, "io_bytes");
        const YAML::Node moved = io.IsDefined() ? io : child(section, "bw_bytes");
        if (number(moved, job_line, where + (io.IsDefined() ? ".io_bytes" : ".bw_bytes")) <= 0) continue;
      }
      FioResult r;
      r.test = name.Scalar();
      r.rw = rw;
      r.direction = direction;
      r.iodepth = iodepth;
      r.numjobs = numjobs;
      r.ioengine = ioengine;
      r.direct = direct;
      r.line = line_of(section, job_line);
      r.block_size_bytes = block_size(bs, d, options, job_line, opt + "bs");
      const YAML::Node bw_bytes = child(section, "bw_bytes");
      if (bw_bytes.IsDefined()) {
        r.bandwidth_bytes_per_s = number(bw_bytes, r.line, where + ".bw_bytes");
      } else {
        r.bandwidth_bytes_per_s = number(child(section, "bw"), r.line, where + ".bw_bytes (or bw in KiB/s)") * 1024;
      }
      r.iops = optional_number(child(section, "iops"), r.line, where + ".iops");
      read_latency(section, where, r);
      runs.results.push_back(std::move(r));
    }
  }

  // fio's bs: one size, or "read,write,trim" sizes; a missing later one repeats the first.
  std::int64_t block_size(const std::string& bs, int direction, const YAML::Node& at, int fallback,
                          const std::string& field) const {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = bs.find(',', start);
      parts.push_back(bs.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    std::string chosen = static_cast<std::size_t>(direction) < parts.size() ? parts[direction] : parts.front();
    if (chosen.empty()) chosen = parts.front();
    const auto size = text::to_byte_size(chosen);
    if (!size || *size <= 0) fail(at, fallback, field, "a block size such as 4096, 4k or 1M", quote(bs));
    return *size;
  }

  void read_latency(const YAML::Node& section, const std::string& where, FioResult& r) const {
    const auto mean_of = [&](const char* ns_key, const char* us_key) -> std::optional<double> {
      const YAML::Node ns = child(section, ns_key);
      if (ns.IsDefined())
        return optional_number(child(ns, "mean"), line_of(ns, r.line), where + "." + ns_key + ".mean");
      const YAML::Node us = child(section, us_key);
      if (!us.IsDefined()) return std::nullopt;
      const auto mean = optional_number(child(us, "mean"), line_of(us, r.line), where + "." + us_key + ".mean");
      return mean ? std::optional<double>(*mean * 1e3) : std::nullopt;
    };
    r.lat_mean_ns = mean_of("lat_ns", "lat");
    r.clat_mean_ns = mean_of("clat_ns", "clat");
    for (const char* key : {"clat_ns", "lat_ns"}) {
      const YAML::Node stats = child(section, key);
      const YAML::Node percentiles = child(stats, "percentile");
      if (!percentiles.IsDefined()) continue;
      const std::string field = where + "." + key + ".percentile";
      if (!percentiles.IsMap()) fail(percentiles, r.line, field, "an object of percentile: ns", kind(percentiles));
      for (const auto& entry : percentiles) {
        const auto percent = entry.first.IsScalar() ? text::to_double(entry.first.Scalar()) : std::nullopt;
        if (!percent || *percent < 0 || *percent > 100) {
          fail(entry.first, line_of(percentiles, r.line), field, "a percentile between 0 and 100", kind(entry.first));
        }
        r.clat_percentiles_ns[*percent] = number(entry.second, line_of(percentiles, r.line), field);
      }
      break;
    }
  }

 private:
  const std::string& file_;
  int base_;
};

}  // namespace

FioRuns parse_fio_json_text(std::string_view text, const std::string& file) {
  const JsonSpan span = find_json(text, file);
  // fio writes one object per run: anything after it (a second run appended to the file) would
  // be lost, so it is an error at its line.
  if (const std::string_view rest = text.substr(span.end); !text::is_blank(rest)) {
    const std::size_t at = span.end + rest.find_first_not_of(" \t\r\n");
    const int line =
        1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    throw ParseError(file, line, "JSON", "the end of the file after fio's JSON object",
                     text[at] == '{' || rest.find("\n{") != std::string_view::npos
                         ? "a second JSON object (one fio run per file)"
                         : "more text");
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text.substr(span.begin, span.end - span.begin)));
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? span.first_line + e.mark.line : span.first_line;
    throw ParseError(file, line, "JSON", "well-formed JSON", "a syntax error (" + e.msg + ")");
  }
  try {
    return JsonReader(file, span.first_line).read(root);
  } catch (const YAML::Exception& e) {
    // A structure the reader did not foresee; still reported where it is.
    const int line = e.mark.line >= 0 ? span.first_line + e.mark.line : span.first_line;
    throw ParseError(file, line, "JSON", "fio JSON output", "unexpected structure (" + e.msg + ")");
  }
}

FioRuns parse_fio_json(const std::filesystem::path& file) {
  const std::string content = text::read_file(file);
  return parse_fio_json_text(content, file.string());
}

}  // namespace fathom::calib
