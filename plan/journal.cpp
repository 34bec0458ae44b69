#include "plan/journal.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "sim/hash.hpp"

namespace fathom::plan {

namespace {

constexpr std::string_view kMagic = "fathom-plan-journal 2";

std::uint64_t hash_text(std::uint64_t h, std::string_view text) {
  h = sim::hash_combine(h, text.size());
  for (unsigned char c : text) h = sim::hash_combine(h, c);
  return h;
}

// Tabs and newlines would split the line: a reason keeps them escaped.
std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<std::string> unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size()) return std::nullopt;
    if (text[i] == '\\') {
      out += '\\';
    } else if (text[i] == 't') {
      out += '\t';
    } else if (text[i] == 'n') {
      out += '\n';
    } else {
      return std::nullopt;
    }
  }
  return out;
}

// Every double of a candidate, in the line's order.
std::vector<double*> doubles_of(Evaluated& e) {
  train::StepBreakdown& b = e.breakdown;
  return {&e.step_s,
          &e.time_to_train_s,
          &e.mfu,
          &e.tokens_per_s,
          &e.peak_memory_bytes,
          &b.compute,
          &b.tp,
          &b.cp,
          &b.ep,
          &b.pp,
          &b.bubble,
          &b.dp,
          &b.optimizer,
          &b.straggler,
          &e.capex_usd,
          &e.usd_per_run,
          &e.facility_power_w,
          &e.usd_per_gpu_hour,
          &e.serving.p99_ttft_s,
          &e.serving.p99_tpot_s,
          &e.serving.p99_e2e_s,
          &e.serving.requests_per_s,
          &e.serving.goodput,
          &e.serving.usd_per_hour,
          &e.serving.usd_per_million_tokens};
}

std::string hex(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::optional<long long> whole(const std::string& field) {
  if (field.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(field.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return std::nullopt;
  return v;
}

std::optional<double> number(const std::string& field) {
  if (field.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(field.c_str(), &end);
  if (*end != '\0') return std::nullopt;
  return v;
}

}  // namespace

std::string journal_line(const Evaluated& e) {
  Evaluated copy = e;
  std::string line = std::to_string(e.index) + '\t' + std::to_string(static_cast<int>(e.status)) + '\t' +
                     std::to_string(e.nodes) + '\t' + std::to_string(e.gpus) + '\t' + std::to_string(e.dp) + '\t' +
                     (e.priced ? "1" : "0") + '\t' + (e.service ? "1" : "0") + '\t' +
                     std::to_string(e.serving.replicas) + '\t' + std::to_string(e.serving.evaluations);
  for (double* v : doubles_of(copy)) line += '\t' + hex(*v);
  line += '\t' + escape(e.reason);
  return line;
}

std::optional<Evaluated> parse_journal_line(std::string_view line) {
  std::vector<std::string> fields;
  std::size_t begin = 0;
  while (true) {
    const std::size_t tab = line.find('\t', begin);
    fields.emplace_back(line.substr(begin, tab == std::string_view::npos ? std::string_view::npos : tab - begin));
    if (tab == std::string_view::npos) break;
    begin = tab + 1;
  }
  Evaluated e;
  const std::vector<double*> doubles = doubles_of(e);
  constexpr std::size_t kWhole = 9;  // the fields before the doubles
  if (fields.size() != kWhole + doubles.size() + 1) return std::nullopt;
  const auto index = whole(fields[0]);
  const auto status = whole(fields[1]);
  const auto nodes = whole(fields[2]);
  const auto gpus = whole(fields[3]);
  const auto dp = whole(fields[4]);
  const auto replicas = whole(fields[7]);
  const auto evaluations = whole(fields[8]);
  const auto flag = [](const std::string& f) { return f == "0" || f == "1"; };
  if (!index || *index < 0 || !status || *status < 0 || *status > static_cast<int>(Status::kMissesSlo) || !nodes ||
      !gpus || !dp || !flag(fields[5]) || !flag(fields[6]) || !replicas || !evaluations) {
    return std::nullopt;
  }
  e.index = static_cast<std::size_t>(*index);
  e.status = static_cast<Status>(*status);
  e.nodes = static_cast<int>(*nodes);
  e.gpus = static_cast<int>(*gpus);
  e.dp = static_cast<int>(*dp);
  e.priced = fields[5] == "1";
  e.service = fields[6] == "1";
  e.serving.replicas = static_cast<int>(*replicas);
  e.serving.evaluations = static_cast<int>(*evaluations);
  for (std::size_t k = 0; k < doubles.size(); ++k) {
    const auto v = number(fields[kWhole + k]);
    if (!v) return std::nullopt;
    *doubles[k] = *v;
  }
  const auto reason = unescape(fields.back());
  if (!reason) return std::nullopt;
  e.reason = *reason;
  return e;
}

std::uint64_t plan_identity(std::string_view text, const std::vector<std::string>& overrides,
                            const std::vector<std::vector<std::string>>& candidates) {
  std::uint64_t h = hash_text(0, text);
  h = sim::hash_combine(h, overrides.size());
  for (const auto& o : overrides) h = hash_text(h, o);
  h = sim::hash_combine(h, candidates.size());
  for (const auto& c : candidates) {
    h = sim::hash_combine(h, c.size());
    for (const auto& a : c) h = hash_text(h, a);
  }
  return h;
}

Journal::Journal(const std::string& path, std::uint64_t identity, bool resume) : path_(path) {
  char header[64];
  std::snprintf(header, sizeof header, "%s %016" PRIx64, std::string(kMagic).c_str(), identity);
  bool fresh = true;
  if (resume) {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      // Lines end with '\n': what follows the last one is a line the kill cut short.
      std::size_t begin = 0;
      std::size_t number = 0;
      while (true) {
        const std::size_t end = text.find('\n', begin);
        if (end == std::string::npos) break;
        ++number;
        const std::string_view line(text.data() + begin, end - begin);
        if (number == 1) {
          if (line != header) {
            throw std::runtime_error(path +
                                     ":1: expected the journal of this plan, found one of another (the scenario, its "
                                     "overrides or its plan changed since it was written); remove it or run without "
                                     "--resume");
          }
        } else {
          auto e = parse_journal_line(line);
          if (!e) {
            throw std::runtime_error(path + ":" + std::to_string(number) +
                                     ": expected a journal line (a candidate's index, status and figures), found a "
                                     "damaged line; remove the journal to start again");
          }
          done_[e->index] = std::move(*e);
        }
        begin = end + 1;
      }
      fresh = number == 0;
      if (begin < text.size()) {
        // Drop the cut line so that appends start on a line of their own.
        text.resize(begin);
        std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
      }
    }
  }
  file_ = std::fopen(path.c_str(), fresh ? "wb" : "ab");
  if (!file_) throw std::runtime_error(path + ": cannot write the journal (" + std::strerror(errno) + ")");
  if (fresh) {
    std::fprintf(file_, "%s\n", header);
    std::fflush(file_);
  }
}

Journal::~Journal() {
  if (file_) std::fclose(file_);
}

void Journal::append(const std::vector<const Evaluated*>& evaluated) {
  for (const Evaluated* e : evaluated) std::fprintf(file_, "%s\n", journal_line(*e).c_str());
  if (std::fflush(file_) != 0) throw std::runtime_error(path_ + ": cannot write the journal");
}

}  // namespace fathom::plan
