// nccl-tests output as the tool prints it: the command line (when the log holds it), the
// "# nThread ..." header, the rank lines, the table and its trailers. Lines that are none of
// these (MPI warnings, NCCL INFO lines, banners) are skipped; a line that starts with a whole
// number is a data row and must parse.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "calibrate/errors.hpp"
#include "calibrate/parsers/nccl_tests.hpp"
#include "calibrate/parsers/nccl_tests_detail.hpp"
#include "calibrate/parsers/text.hpp"

namespace fathom::calib {
namespace {

using text::Line;
using text::Where;

constexpr const char* kRankShape = "\"#  Rank N Group N Pid N on HOST device N [BUS] NAME\"";
constexpr const char* kSizeShape = "a size such as 8, 1M or 8G";

// A word of the command line and the line it is on.
struct Token {
  std::string text;
  int line = 0;
};

// "[1,0]<stdout>:" that mpirun --tag-output puts before each line, removed.
std::string_view strip_mpi_tag(std::string_view s) {
  if (s.empty() || s.front() != '[') return s;
  const std::size_t close = s.find(']');
  if (close == std::string_view::npos || close < 2) return s;
  for (std::size_t i = 1; i < close; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i])) && s[i] != ',') return s;
  }
  const std::string_view rest = s.substr(close + 1);
  if (!text::starts_with(rest, "<std")) return s;
  const std::size_t colon = rest.find(">:");
  return colon == std::string_view::npos ? s : rest.substr(colon + 2);
}

// Shell words of one line: quotes group, a backslash keeps the next byte. Returns true when the
// line ends in a backslash that continues the command on the next line.
bool shell_words(std::string_view s, int line, std::vector<Token>& out) {
  std::string word;
  bool in_word = false;
  char quote_char = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote_char != 0) {
      if (c == quote_char) {
        quote_char = 0;
      } else {
        word += c;
      }
      continue;
    }
    if (c == '\\') {
      if (i + 1 == s.size()) {
        if (in_word) out.push_back({word, line});
        return true;
      }
      word += s[++i];
      in_word = true;
    } else if (c == '"' || c == '\'') {
      quote_char = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back({word, line});
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back({word, line});
  return false;
}

bool is_nccl_assignment(std::string_view word) {
  return text::starts_with(word, "NCCL_") && word.find('=') != std::string_view::npos && word.find('=') > 5;
}

// A line that starts or holds the command: a launcher, a *_perf binary, or NCCL_X=... settings.
bool looks_like_command(const std::vector<std::string_view>& tokens) {
  if (tokens.empty()) return false;
  if (is_nccl_assignment(tokens.front())) return true;
  if ((tokens.front() == "export" || tokens.front() == "env") && tokens.size() > 1 && is_nccl_assignment(tokens[1])) {
    return true;
  }
  for (const std::string_view t : tokens) {
    std::string_view base = t;
    const std::size_t slash = base.find_last_of('/');
    if (slash != std::string_view::npos) base.remove_prefix(slash + 1);
    if (base == "mpirun" || base == "mpiexec" || base == "srun" || base == "orterun" || base == "prterun") return true;
    if (!detail::op_from_binary(t).empty()) return true;
  }
  return false;
}

// "-x ...", "--mca ...": a line that goes on with the command above it. A rule of dashes does not.
bool is_option(std::string_view t) {
  if (t.size() < 2 || t[0] != '-') return false;
  const std::size_t at = t[1] == '-' ? 2 : 1;
  return at < t.size() && std::isalnum(static_cast<unsigned char>(t[at]));
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// The leading "2.26.2" of "2.26.2+cuda12.8"; empty unless it starts with a digit.
std::string version_prefix(std::string_view token) {
  std::size_t n = 0;
  while (n < token.size() && (std::isdigit(static_cast<unsigned char>(token[n])) || token[n] == '.')) ++n;
  if (n == 0 || !std::isdigit(static_cast<unsigned char>(token[0]))) return "";
  while (n > 0 && token[n - 1] == '.') --n;
  return std::string(token.substr(0, n));
}

class LogParser {
 public:
  LogParser(std::string_view text, const std::string& file) : text_(text) { log_.file = file; }

  NcclTestsLog parse(const NcclTestsOptions& options) {
    const std::vector<Line> lines = text::split_lines(text_);
    for (const Line& line : lines) read_line(line);
    finish_command();
    if (log_.rows.empty()) {
      const int at = lines.empty() ? 1 : lines.back().number;
      throw ParseError(log_.file, at, "rows",
                       "nccl-tests data rows (size count type redop root time algbw busbw #wrong ...)",
                       text::is_blank(text_) ? "an empty file" : "none");
    }
    if (log_.nccl_version.empty()) log_.nccl_version = library_version_;
    count_ranks();
    resolve_op();
    detail::apply_nccl_options(log_, options, op_line_, log_.rank_lines.empty() ? 0 : log_.rank_lines.front().line);
    const auto algo = log_.env.find("NCCL_ALGO");
    if (algo != log_.env.end()) log_.algo = algo->second;
    return std::move(log_);
  }

 private:
  void read_line(const Line& line) {
    const std::string_view raw = strip_mpi_tag(line.text);
    const std::string_view t = text::trim(raw);
    const bool continued = continues_;
    continues_ = false;
    if (t.empty()) {
      in_command_ = false;
      return;
    }
    if (continued || (in_command_ && is_option(t))) {
      add_command_line(t, line.number);
      return;
    }
    in_command_ = false;
    if (t.front() == '#') {
      read_comment(text::trim(t.substr(1)), line.number);
      return;
    }
    const std::vector<std::string_view> tokens = text::split_ws(t);
    if (all_digits(tokens.front())) {
      read_row(t, line.number);
      return;
    }
    read_version(t);
    read_info_env(tokens);
    if (looks_like_command(tokens)) {
      in_command_ = true;
      if (command_start_ == 0) command_start_ = line.number;
      add_command_line(t, line.number);
    }
  }

  void add_command_line(std::string_view t, int line) {
    if (!command_text_.empty()) command_text_ += ' ';
    command_text_ += t;
    if (command_start_ == 0) command_start_ = line;
    continues_ = shell_words(t, line, command_);
    in_command_ = true;
    if (continues_ && !command_text_.empty() && command_text_.back() == '\\') {
      command_text_.pop_back();
      while (!command_text_.empty() && (command_text_.back() == ' ' || command_text_.back() == '\t')) {
        command_text_.pop_back();
      }
    }
  }

  // --- the command line -------------------------------------------------------------------

  void set_env(const Token& assignment) {
    const std::size_t eq = assignment.text.find('=');
    if (eq == std::string::npos) return;  // "-x NCCL_FOO": exported from an environment the log does not show
    const std::string name = assignment.text.substr(0, eq);
    if (!text::starts_with(name, "NCCL_")) return;
    log_.env[name] = assignment.text.substr(eq + 1);
  }

  std::int64_t size_value(const Token& t, const std::string& flag) const {
    const auto value = text::to_byte_size(t.text);
    if (!value) Where{log_.file, t.line}.fail(flag + " (command line)", kSizeShape, quote(t.text));
    return *value;
  }

  void finish_command() {
    if (command_.empty()) return;
    log_.command_line = command_text_;
    log_.command_line_line = command_start_;
    std::size_t binary = command_.size();
    for (std::size_t i = 0; i < command_.size(); ++i) {
      const Token& t = command_[i];
      const bool has_next = i + 1 < command_.size();
      if ((t.text == "-x" || t.text == "--env") && has_next) {
        set_env(command_[++i]);
      } else if ((t.text == "-genv" || t.text == "-env") && i + 2 < command_.size()) {
        set_env({command_[i + 1].text + "=" + command_[i + 2].text, t.line});
        i += 2;
      } else if (text::starts_with(t.text, "--export=")) {
        std::string_view list = std::string_view(t.text).substr(9);
        while (!list.empty()) {
          const std::size_t comma = list.find(',');
          set_env({std::string(list.substr(0, comma)), t.line});
          if (comma == std::string_view::npos) break;
          list.remove_prefix(comma + 1);
        }
      } else if (is_nccl_assignment(t.text)) {
        set_env(t);
      } else if (binary == command_.size() && !detail::op_from_binary(t.text).empty()) {
        binary = i;
        binary_op_ = detail::op_from_binary(t.text);
        binary_line_ = t.line;
      } else if (binary < i) {
        read_test_flag(i);
      }
    }
  }

  // One nccl-tests option after the binary; moves `i` past its value.
  void read_test_flag(std::size_t& i) {
    const Token& t = command_[i];
    std::string flag = t.text;
    std::optional<Token> value;
    const std::size_t eq = flag.find('=');
    if (text::starts_with(flag, "--") && eq != std::string::npos) {
      value = Token{flag.substr(eq + 1), t.line};
      flag.resize(eq);
    } else if (i + 1 < command_.size()) {
      value = command_[i + 1];
    }
    const auto take = [&]() -> const Token& {
      if (!text::contains(t.text, "=")) ++i;
      return *value;
    };
    if (!value) return;
    const Where where{log_.file, value->line};
    // The header's values, which the tool printed after parsing its options, come first.
    if (flag == "-b" || flag == "--minbytes") {
      const std::int64_t bytes = size_value(take(), flag);
      if (!log_.min_bytes) log_.min_bytes = bytes;
    } else if (flag == "-e" || flag == "--maxbytes") {
      const std::int64_t bytes = size_value(take(), flag);
      if (!log_.max_bytes) log_.max_bytes = bytes;
    } else if (flag == "-f" || flag == "--stepfactor") {
      const std::int64_t factor = where.integer(take().text, flag + " (command line)", 1);
      if (!log_.step_factor) log_.step_factor = factor;
    } else if (flag == "-g" || flag == "--ngpus") {
      command_gpus_ =
          static_cast<int>(std::min<std::int64_t>(where.integer(take().text, flag + " (command line)", 1), 1 << 20));
    }
  }

  // --- '#' lines ------------------------------------------------------------------------------

  void second_run(int line) const {
    if (log_.rows.empty()) return;
    throw ParseError(log_.file, line, "run",
                     "one nccl-tests run per file (its rows end at line " + std::to_string(log_.rows.back().line) +
                         "; split the file there)",
                     "the header of a second run");
  }

  void read_comment(std::string_view body, int line) {
    const std::vector<std::string_view> tokens = text::split_ws(body);
    read_version(body);
    if (tokens.empty()) return;
    const std::string_view first = tokens.front();
    if (first == "nThread") {
      second_run(line);
      read_test_header(tokens, line);
    } else if (first == "Rank") {
      second_run(line);
      read_rank(tokens, body, line);
    } else if (first == "size" && std::find(tokens.begin(), tokens.end(), "count") != tokens.end()) {
      second_run(line);
      const auto times = std::count(tokens.begin(), tokens.end(), "time");
      placements_ = times == 1 || times == 2 ? static_cast<int>(times) : 0;
      column_header_line_ = line;
    } else if (text::contains(body, "out-of-place") || text::contains(body, "in-place")) {
      single_is_in_place_ = !text::contains(body, "out-of-place");
    } else if (text::starts_with(body, "Collective test starting:")) {
      second_run(line);
      if (tokens.size() >= 4) {
        test_op_ = detail::op_from_binary(tokens[3]);
        test_op_line_ = line;
      }
    } else if (text::starts_with(body, "Avg bus bandwidth")) {
      log_.avg_busbw_gbps = Where{log_.file, line}.number(after_colon(body), "Avg bus bandwidth", 0);
    } else if (text::starts_with(body, "Out of bounds values")) {
      const auto parts = text::split_ws(after_colon(body));
      log_.out_of_bounds =
          Where{log_.file, line}.integer(parts.empty() ? std::string_view() : parts.front(), "Out of bounds values", 0);
    } else if (first == "nccl-tests" || first == "rccl-tests") {
      for (const std::string_view t : tokens) {
        if (text::starts_with(t, "nccl-library=")) read_library_code(t.substr(13));
      }
    }
  }

  static std::string_view after_colon(std::string_view body) {
    const std::size_t colon = body.find(':');
    return colon == std::string_view::npos ? std::string_view() : text::trim(body.substr(colon + 1));
  }

  // NCCL_VERSION_CODE: major*10000 + minor*100 + patch since 2.9, major*1000 + minor*100 + patch before.
  void read_library_code(std::string_view digits) {
    const auto code = text::to_int64(digits);
    if (!code || *code <= 0 || *code > 1000000) return;
    const bool wide = *code >= 20900;
    const std::int64_t major = wide ? *code / 10000 : *code / 1000;
    const std::int64_t minor = wide ? (*code / 100) % 100 : (*code / 100) % 10;
    library_version_ = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(*code % 100);
  }

  // "# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 20 ..."
  void read_test_header(const std::vector<std::string_view>& tokens, int line) {
    const Where where{log_.file, line};
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const std::string_view key = tokens[i];
      const std::string_view value = i + 1 < tokens.size() ? tokens[i + 1] : std::string_view();
      const std::string field = "header " + std::string(key);
      const std::string_view before = i > 0 ? tokens[i - 1] : std::string_view();
      const auto small = [&](std::int64_t v) { return static_cast<int>(std::min<std::int64_t>(v, 1 << 30)); };
      if (key == "nThread") {
        log_.threads = small(where.integer(value, field, 1));
      } else if (key == "nGpus") {
        header_gpus_ = small(where.integer(value, field, 1));
      } else if (key == "minBytes") {
        log_.min_bytes = where.integer(value, field, 0);
      } else if (key == "maxBytes") {
        log_.max_bytes = where.integer(value, field, 0);
      } else if (key == "step:") {
        if (text::ends_with(value, "(factor)")) {
          log_.step_factor = where.integer(value.substr(0, value.size() - 8), field, 1);
        }
      } else if (key == "iters:" && before == "warmup") {
        log_.warmup_iters = small(where.integer(value, "header warmup iters", 0));
      } else if (key == "iters:" && before != "agg") {
        log_.iters = small(where.integer(value, field, 0));
      } else {
        continue;
      }
      ++i;
    }
  }

  void add_rank(NcclTestsRank rank) {
    const auto [it, fresh] = rank_first_line_.emplace(rank.rank, rank.line);
    if (!fresh) {
      throw ParseError(
          log_.file, rank.line, "rank", "each rank listed once",
          "rank " + std::to_string(rank.rank) + " again (first at line " + std::to_string(it->second) + ")");
    }
    if (!rank.device_name.empty() &&
        std::find(log_.device_names.begin(), log_.device_names.end(), rank.device_name) == log_.device_names.end()) {
      log_.device_names.push_back(rank.device_name);
    }
    log_.rank_lines.push_back(std::move(rank));
  }

  // "Rank 0 Group 0 Pid 29262 on HOST device 0 [0000:19:00] NAME", the older form without
  // "Group", or a summary "Rank 0 .. Rank 7 on HOST NAME".
  void read_rank(const std::vector<std::string_view>& t, std::string_view body, int line) {
    const Where where{log_.file, line};
    const auto bad = [&]() { where.fail("rank line", kRankShape, quote("# " + std::string(body))); };
    const auto rest = [&](std::size_t from) {
      std::string name;
      for (std::size_t k = from; k < t.size(); ++k) name += (name.empty() ? "" : " ") + std::string(t[k]);
      return name;
    };
    if (t.size() < 2) bad();
    const int first = static_cast<int>(std::min<std::int64_t>(where.integer(t[1], "rank line: Rank", 0), 1 << 30));
    if (t.size() >= 7 && t[2] == "..") {
      if (t[3] != "Rank" || t[5] != "on") bad();
      const std::int64_t last = where.integer(t[4], "rank line: Rank", first);
      if (last - first >= 65536) where.fail("rank line: Rank", "at most 65536 ranks", quote(t[4]));
      for (int r = first; r <= last; ++r) add_rank({r, std::string(t[6]), -1, rest(7), line});
      return;
    }
    std::size_t i = 2;
    if (i + 1 < t.size() && t[i] == "Group") {
      where.integer(t[i + 1], "rank line: Group", 0);
      i += 2;
    }
    if (i + 1 >= t.size() || (t[i] != "Pid" && t[i] != "pid")) bad();
    where.integer(t[i + 1], "rank line: Pid", 0);
    i += 2;
    if (i + 1 >= t.size() || t[i] != "on") bad();
    const std::string host(t[i + 1]);
    i += 2;
    if (i + 1 >= t.size() || t[i] != "device") bad();
    const int device =
        static_cast<int>(std::min<std::int64_t>(where.integer(t[i + 1], "rank line: device", 0), 1 << 30));
    i += 2;
    if (i < t.size() && text::starts_with(t[i], "[")) ++i;
    add_rank({first, host, device, rest(i), line});
  }

  // --- plain lines ----------------------------------------------------------------------------

  // "NCCL version 2.26.2+cuda12.8" (NCCL_DEBUG=VERSION), in an INFO line, or RCCL's.
  void read_version(std::string_view t) {
    if (!log_.nccl_version.empty()) return;
    for (const char* marker : {"NCCL version ", "RCCL version "}) {
      const std::size_t at = t.find(marker);
      if (at == std::string_view::npos) continue;
      const auto words = text::split_ws(t.substr(at + 13));
      if (words.empty()) continue;
      const std::string version = version_prefix(words.front());
      if (version.empty()) continue;
      log_.nccl_version = version;
      const std::size_t cuda = words.front().find("+cuda");
      if (cuda != std::string_view::npos) log_.cuda_version = version_prefix(words.front().substr(cuda + 5));
      return;
    }
  }

  // "host:pid:tid [0] NCCL INFO NCCL_ALGO set by environment to Ring"
  void read_info_env(const std::vector<std::string_view>& t) {
    for (std::size_t i = 0; i + 6 < t.size(); ++i) {
      if (t[i] != "INFO" || !text::starts_with(t[i + 1], "NCCL_")) continue;
      if (t[i + 2] != "set" || t[i + 3] != "by" || t[i + 4] != "environment" || t[i + 5] != "to") continue;
      std::string_view value = t[i + 6];
      while (!value.empty() && value.back() == '.') value.remove_suffix(1);
      log_.env.emplace(std::string(t[i + 1]), std::string(value));
    }
  }

  // --- data rows ------------------------------------------------------------------------------

  Placement read_placement(const std::vector<std::string_view>& t, std::size_t at, const std::string& name,
                           const Where& where) const {
    const auto field = [&](const char* what, std::size_t column) {
      return name + " " + what + " (column " + std::to_string(column + 1) + ")";
    };
    Placement p;
    p.time_us = where.number(t[at], field("time", at), 0);
    p.algbw_gbps = where.number(t[at + 1], field("algbw", at + 1), 0);
    p.busbw_gbps = where.number(t[at + 2], field("busbw", at + 2), 0);
    if (t[at + 3] != "N/A") p.wrong = where.integer(t[at + 3], field("#wrong", at + 3), 0);
    return p;
  }

  void read_row(std::string_view t, int line) {
    const Where where{log_.file, line};
    const std::size_t hash = t.find('#');
    const std::string_view body = hash == std::string_view::npos ? t : t.substr(0, hash);  // a trailing comment
    const std::vector<std::string_view> tokens = text::split_ws(body);
    const bool ok = placements_ == 2   ? tokens.size() == 13
                    : placements_ == 1 ? tokens.size() == 9
                                       : tokens.size() == 13 || tokens.size() == 9;
    if (!ok) {
      const std::string shape = placements_ == 1
                                    ? "9 columns (size, count, type, redop, root, time, algbw, busbw, #wrong)"
                                    : "13 columns (size, count, type, redop, root, then time, algbw, busbw and #wrong "
                                      "out-of-place and in-place)";
      const std::string because =
          column_header_line_ > 0 ? " as the header at line " + std::to_string(column_header_line_) + " has" : "";
      where.fail("row", shape + because, std::to_string(tokens.size()) + " columns: " + quote(t));
    }
    NcclTestsRow row;
    row.line = line;
    row.bytes = where.integer(tokens[0], "size (column 1)", 0);
    row.count = where.integer(tokens[1], "count (column 2)", 0);
    if (!is_identifier(tokens[2])) where.fail("type (column 3)", "a data type such as float", quote(tokens[2]));
    row.type = tokens[2];
    if (!is_identifier(tokens[3])) where.fail("redop (column 4)", "a reduction such as sum or none", quote(tokens[3]));
    row.redop = tokens[3];
    row.root = static_cast<int>(std::min<std::int64_t>(where.integer(tokens[4], "root (column 5)", -1), 1 << 30));
    if (tokens.size() == 13) {
      row.out_of_place = read_placement(tokens, 5, "out-of-place", where);
      row.in_place = read_placement(tokens, 9, "in-place", where);
    } else if (single_is_in_place_) {
      row.in_place = read_placement(tokens, 5, "in-place", where);
    } else {
      row.out_of_place = read_placement(tokens, 5, "out-of-place", where);
    }
    log_.rows.push_back(std::move(row));
  }

  // --- after the last line --------------------------------------------------------------------

  void count_ranks() {
    if (command_gpus_) {
      log_.gpus_per_process = command_gpus_;
    } else if (header_gpus_) {
      log_.gpus_per_process = header_gpus_;
    }
    if (log_.rank_lines.empty()) return;
    log_.ranks = static_cast<int>(log_.rank_lines.size());
    std::vector<std::string> hosts;
    std::map<std::string, int> per_host;
    for (const NcclTestsRank& r : log_.rank_lines) {
      if (per_host[r.host]++ == 0) hosts.push_back(r.host);
    }
    log_.nodes = static_cast<int>(hosts.size());
    const int first = per_host[hosts.front()];
    const bool even = std::all_of(per_host.begin(), per_host.end(), [&](const auto& h) { return h.second == first; });
    log_.gpus_per_node = even ? first : 0;
  }

  void resolve_op() {
    if (!binary_op_.empty() && !test_op_.empty() && binary_op_ != test_op_) {
      throw ParseError(log_.file, test_op_line_, "op",
                       quote(binary_op_) + " as the binary on line " + std::to_string(binary_line_) + " says",
                       quote(test_op_));
    }
    log_.op = !binary_op_.empty() ? binary_op_ : test_op_;
    op_line_ = !binary_op_.empty() ? binary_line_ : test_op_line_;
  }

  std::string_view text_;
  NcclTestsLog log_;
  // The command line, collected over its lines and read at the end.
  std::vector<Token> command_;
  std::string command_text_;
  int command_start_ = 0;
  bool in_command_ = false;
  bool continues_ = false;
  std::string binary_op_;
  int binary_line_ = 0;
  std::string test_op_;
  int test_op_line_ = 0;
  int op_line_ = 0;
  int command_gpus_ = 0;
  int header_gpus_ = 0;
  std::string library_version_;
  // The table's shape from its header: 0 = not seen, 1 or 2 placements.
  int placements_ = 0;
  bool single_is_in_place_ = false;
  int column_header_line_ = 0;
  std::map<int, int> rank_first_line_;
};

}  // namespace

NcclTestsLog parse_nccl_tests_log_text(std::string_view text, const std::string& file,
                                       const NcclTestsOptions& options) {
  return LogParser(text, file).parse(options);
}

NcclTestsLog parse_nccl_tests_log(const std::filesystem::path& file, const NcclTestsOptions& options) {
  const std::string content = text::read_file(file);
  return parse_nccl_tests_log_text(content, file.string(), options);
}

}  // namespace fathom::calib
